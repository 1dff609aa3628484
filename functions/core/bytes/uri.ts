/**
 * The one RFC 3986 percent-encoder of the project: SigV4 canonical requests, every backend URL builder (object
 * keys through `encodeKey`), Azure SAS and GCS signed URLs all encode with it, so a key is encoded the same way
 * wherever it goes.
 */
import { HEX } from './encoding';

/** `PERCENT[b]` is `%XX` with upper-case hex, as RFC 3986 section 2.1 recommends and SigV4 requires. */
const PERCENT: readonly string[] = Array.from({ length: 256 }, (_, b) => `%${HEX[b].toUpperCase()}`);

/** Bit set over ASCII of the unreserved characters `A-Z a-z 0-9 - . _ ~` (RFC 3986 section 2.3). */
const UNRESERVED = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  UNRESERVED[c] = /[A-Za-z0-9\-._~]/.test(ch) ? 1 : 0;
}

const SLASH = 0x2f;

function keptAsIs(code: number, encodeSlash: boolean): boolean {
  return code < 128 && (UNRESERVED[code] === 1 || (code === SLASH && !encodeSlash));
}

/**
 * Percent-encodes everything but the unreserved characters, as SigV4 canonicalization requires, with the
 * UTF-8 bytes of non-ASCII text. A lone surrogate becomes U+FFFD, as TextEncoder would encode it.
 *
 * @param s Decoded text.
 * @param encodeSlash `false` keeps `/` (object key paths); `true` encodes it (query names and values).
 * @example uriEncode('a b/€', true) // 'a%20b%2F%E2%82%AC'
 */
export function uriEncode(s: string, encodeSlash: boolean): string {
  let i = 0;
  // Most names and values need no encoding: return the input itself rather than a copy.
  while (i < s.length && keptAsIs(s.charCodeAt(i), encodeSlash)) i++;
  if (i === s.length) return s;

  let out = s.slice(0, i);
  for (; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (keptAsIs(code, encodeSlash)) {
      out += s[i];
    } else if (code < 0x80) {
      out += PERCENT[code];
    } else {
      let point = code;
      if (code >= 0xd800 && code <= 0xdbff) {
        const low = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
        if (low >= 0xdc00 && low <= 0xdfff) {
          point = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          i++;
        } else {
          point = 0xfffd;
        }
      } else if (code >= 0xdc00 && code <= 0xdfff) {
        point = 0xfffd;
      }
      out += utf8Percent(point);
    }
  }
  return out;
}

function utf8Percent(point: number): string {
  if (point < 0x800) return PERCENT[0xc0 | (point >> 6)] + PERCENT[0x80 | (point & 0x3f)];
  if (point < 0x10000) {
    return PERCENT[0xe0 | (point >> 12)] + PERCENT[0x80 | ((point >> 6) & 0x3f)] + PERCENT[0x80 | (point & 0x3f)];
  }
  return (
    PERCENT[0xf0 | (point >> 18)] +
    PERCENT[0x80 | ((point >> 12) & 0x3f)] +
    PERCENT[0x80 | ((point >> 6) & 0x3f)] +
    PERCENT[0x80 | (point & 0x3f)]
  );
}

