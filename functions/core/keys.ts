import { uriEncode, utf8Length } from './bytes';
import { S3Error, invalidRequest } from './errors';

/**
 * Object keys. Validation follows the spec's rule (empty, `.` and `..` segments and control characters are
 * refused) and S3's limit of 1,024 bytes; everything else reaches the backend byte for byte through
 * `encodeKey`, the one encoder every backend URL builder uses.
 */

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** An empty, `.` or `..` segment: between slashes or at either end. */
const DOT_OR_EMPTY_SEGMENT = /(?:^|\/)\.{0,2}(?:\/|$)/;

/** S3's limit on a key, in UTF-8 bytes; Azure's blob names and GCS's object names have the same. */
export const MAX_KEY_BYTES = 1024;

/**
 * Throws 400 InvalidRequest for a key the gateway refuses to store, and 400 KeyTooLongError, as S3 answers
 * any request naming one, for a key over 1,024 bytes: passed on, each store failed in its own way (s3rver
 * with a 500 for a file name its disk refuses).
 */
export function validateKey(key: string): void {
  if (key === '') throw invalidRequest('The object key is empty');
  const tooLong = keyTooLong(key);
  if (tooLong !== undefined) throw tooLong;
  if (CONTROL.test(key)) throw invalidRequest('Object keys must not contain control characters');
  if (DOT_OR_EMPTY_SEGMENT.test(key)) throw invalidRequest('Object keys must not contain empty, "." or ".." path segments');
}

/** S3's KeyTooLongError for a key over 1,024 bytes of UTF-8, saying its size; undefined for any other key. */
export function keyTooLong(key: string): S3Error | undefined {
  // Every UTF-16 unit takes at most three bytes: a short key needs no count.
  if (key.length * 3 <= MAX_KEY_BYTES) return undefined;
  const bytes = utf8Length(key);
  if (bytes <= MAX_KEY_BYTES) return undefined;
  return new S3Error('KeyTooLongError', 'Your key is too long', { Size: String(bytes), MaxSizeAllowed: String(MAX_KEY_BYTES) });
}

/**
 * A key (or another path segment) for a backend URL: RFC 3986 percent-encoding of every byte outside the
 * unreserved set, `/` kept when `keepSlash`. The project's one encoder, shared with SigV4.
 */
export function encodeKey(key: string, keepSlash = true): string {
  return uriEncode(key, !keepSlash);
}

/**
 * Decodes a raw path segment as S3 does: percent escapes only (`+` stays a plus). Malformed escapes or
 * invalid UTF-8 are a 400, never a crash.
 */
export function decodePathComponent(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalidRequest('The request path is not valid percent-encoded UTF-8');
  }
}

/**
 * A name a backend listed with `encoding-type=url`: decoded, or as listed when it is not valid
 * percent-encoding (a store that ignored the parameter and lists `100%.txt` as it is).
 */
export function decodeListedKey(value: string): string {
  const first = value.indexOf('%');
  if (first < 0) return value;
  const ascii = decodeAsciiEscapes(value, first);
  if (ascii !== undefined) return ascii;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * `value` with its escapes decoded (the first at `at`) when each is of an ASCII character, as
 * `decodeURIComponent` decodes them; undefined for any other escape or a malformed one. A listed key's escapes
 * are nearly all of this kind (`%2F`), and V8's `decodeURIComponent` took ~150 ns a key, a sixth of
 * reading a 1,000-key page.
 */
function decodeAsciiEscapes(value: string, at: number): string | undefined {
  let out = '';
  let from = 0;
  while (at >= 0) {
    const high = hexDigit(value.charCodeAt(at + 1));
    const low = hexDigit(value.charCodeAt(at + 2));
    if (high < 0 || high > 7 || low < 0) return undefined;
    out += value.slice(from, at) + String.fromCharCode(high * 16 + low);
    from = at + 3;
    at = value.indexOf('%', from);
  }
  return out + value.slice(from);
}

/** The value of a hexadecimal digit's character code, or -1 (NaN past the end of a string included). */
function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/**
 * Orders names as S3 does: by UTF-8 bytes, which is code point order (JavaScript's `<` compares UTF-16 code
 * units, which differs for characters above U+FFFF against U+E000-U+FFFF).
 */
export function compareKeys(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i) as number;
    const cb = b.codePointAt(j) as number;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return i < a.length ? 1 : j < b.length ? -1 : 0;
}
