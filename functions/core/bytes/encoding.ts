/**
 * Bytes as text: hex, base64 and base64url, UTF-8, and a constant-time comparison. Plain TypeScript on web
 * standards (`btoa`/`atob`, TextEncoder), so it runs unchanged in Node, Lambda and edge workers.
 */

/** `HEX[b]` is the two lower-case hex digits of byte b; a table beats `toString(16)` + padding per byte. */
export const HEX: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** The UTF-8 bytes of text. */
export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return utf8Encoder.encode(text);
}

/** The length of text's UTF-8 bytes, without encoding it: a surrogate pair's two units are four bytes. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x80) bytes += unit < 0x800 || (unit >= 0xd800 && unit <= 0xdfff) ? 1 : 2;
  }
  return bytes;
}

/** Text from UTF-8 bytes; throws TypeError on invalid UTF-8. */
export function fromUtf8(bytes: Uint8Array): string {
  return utf8Decoder.decode(bytes);
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
    else for (const b of utf8(ch)) bytes.push(b);
  }
  return Uint8Array.from(bytes);
}

/** Standard base64 (with padding) of bytes: `x-amz-checksum-*`, `Content-MD5`, Azure signatures. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  // Chunks keep String.fromCharCode's argument list short for large inputs (a DER key, a JWKS modulus).
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** base64url without padding (RFC 4648 section 5): JWKs, session tokens, listing tokens. */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Standard base64, padding optional; undefined for anything else (other characters, a length no encoder makes). */
export function fromBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return undefined;
  return decode(text);
}

/** Strict base64url (no padding, no other alphabet); undefined for anything else. */
export function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  return decode(text.replace(/-/g, '+').replace(/_/g, '/'));
}

function decode(base64: string): Uint8Array | undefined {
  const padded = base64.replace(/=+$/, '');
  let binary: string;
  try {
    binary = atob(padded + '='.repeat((4 - (padded.length % 4)) % 4));
  } catch {
    return undefined;
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
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
