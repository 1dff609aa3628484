import { uriEncode } from './bytes';
import { invalidRequest } from './errors';

/**
 * Object keys. Validation follows the spec's rule (empty, `.` and `..` segments and control characters are
 * refused); everything else reaches the backend byte for byte through `encodeKey`, the one encoder every
 * backend URL builder uses.
 */

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** An empty, `.` or `..` segment: between slashes or at either end. */
const DOT_OR_EMPTY_SEGMENT = /(?:^|\/)\.{0,2}(?:\/|$)/;

/** Throws 400 InvalidRequest for a key the gateway refuses to store. */
export function validateKey(key: string): void {
  if (key === '') throw invalidRequest('The object key is empty');
  if (CONTROL.test(key)) throw invalidRequest('Object keys must not contain control characters');
  if (DOT_OR_EMPTY_SEGMENT.test(key)) throw invalidRequest('Object keys must not contain empty, "." or ".." path segments');
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
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
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
