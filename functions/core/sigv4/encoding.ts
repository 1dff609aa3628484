/**
 * Byte-level helpers of SigV4: RFC 3986 encoding, hex, SHA-256 and HMAC. Only web standards and plain
 * TypeScript, so the same code runs in Node, Lambda and edge workers.
 */
import { HmacSha256, Sha256 } from '../checksums/sha256';

type Subtle = typeof globalThis.crypto.subtle;

/** A Web Crypto key (the global `CryptoKey` type is not declared without the DOM lib). */
export type CryptoKey = Awaited<ReturnType<Subtle['importKey']>>;

const utf8 = new TextEncoder();

/** Resolved on first use: a module-level `crypto.subtle` read would fail where crypto is installed late. */
let subtleCrypto: Subtle | undefined;
function subtle(): Subtle {
  return (subtleCrypto ??= globalThis.crypto.subtle);
}

/** `HEX[b]` is the two lower-case hex digits of byte b; a table beats `toString(16)` + padding per byte. */
const HEX: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

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

/**
 * Lower-case hex of bytes, the form SigV4 uses for hashes and signatures.
 *
 * @example toHex(new Uint8Array([0, 171])) // '00ab'
 */
export function toHex(bytes: Uint8Array | ArrayBuffer): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = '';
  for (let i = 0; i < view.length; i++) out += HEX[view[i]];
  return out;
}

/**
 * The bytes a string of wire text stands for. Header values reach the core as byte strings, one character per
 * byte received (Node's parser, workerd's `Headers`, and the Lambda adapter all hand them over that way), and
 * the runtimes send header values the same way, so each character up to U+00FF is that one byte. A character
 * beyond U+00FF cannot have come off the wire: it is text, and stands for its UTF-8 bytes.
 *
 * @example wireBytes('caf\u00e9') // Uint8Array [0x63, 0x61, 0x66, 0xe9]
 */
export function wireBytes(s: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code > 0xff) return mixedWireBytes(s);
    out[i] = code;
  }
  return out;
}

/** The slow path of {@link wireBytes}: some characters are text. */
function mixedWireBytes(s: string): Uint8Array<ArrayBuffer> {
  const bytes: number[] = [];
  for (const ch of s) {
    const point = ch.codePointAt(0) ?? 0;
    if (point <= 0xff) bytes.push(point);
    else for (const b of utf8.encode(ch)) bytes.push(b);
  }
  return Uint8Array.from(bytes);
}

/** Web Crypto's typings want ArrayBuffer-backed views; a view over shared memory is refused at run time. */
function toBytes(data: string | Uint8Array): Uint8Array<ArrayBuffer> {
  return typeof data === 'string' ? utf8.encode(data) : (data as Uint8Array<ArrayBuffer>);
}

/**
 * Below this size a hash is computed in TypeScript: Web Crypto's asynchronous round trip through the thread
 * pool (11-35 µs measured on Node) costs more than hashing a canonical request or a string to sign (~3 µs).
 * Above it, native hashing wins.
 */
const NATIVE_DIGEST_MIN_BYTES = 16 * 1024;

/**
 * Hex SHA-256 of text (as UTF-8) or bytes.
 *
 * @example await sha256Hex('') // 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
 */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = toBytes(data);
  if (bytes.length < NATIVE_DIGEST_MIN_BYTES) return toHex(new Sha256().update(bytes).digest());
  return toHex(await subtle().digest('SHA-256', bytes));
}

/** Hex SHA-256 of a small input, synchronously (canonical requests, strings to sign). */
export function sha256HexSync(data: string | Uint8Array): string {
  return toHex(new Sha256().update(toBytes(data)).digest());
}

/** An HMAC-SHA256 key with its padded states precomputed; keep it when signing repeatedly with one key. */
export type HmacKey = HmacSha256;

export function importHmacKey(raw: string | Uint8Array): HmacKey {
  return new HmacSha256(toBytes(raw));
}

/**
 * HMAC-SHA256 of `data` (text as UTF-8) under `key` (raw bytes or a prepared key). Synchronous: every input
 * the gateway signs is short.
 *
 * @example toHex(hmac(importHmacKey('key'), 'message'))
 */
export function hmac(key: HmacKey | string | Uint8Array, data: string | Uint8Array): Uint8Array {
  const prepared = typeof key === 'string' || key instanceof Uint8Array ? importHmacKey(key) : key;
  return prepared.sign(toBytes(data));
}

/**
 * Compares two strings in time that depends only on their length, so a signature check does not reveal how
 * many leading characters of a guess were right. Strings of different lengths are unequal at once: the length
 * of a signature is public.
 */
export function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
