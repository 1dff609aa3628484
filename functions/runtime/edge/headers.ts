import type { ReadonlyHeaders } from '../../core/http';

/**
 * Header values between the Workers runtime and the core. The core takes a header value as a byte string, one
 * character per byte on the wire, so that it verifies and signs the bytes that were sent (sigv4 `wireBytes`);
 * the Node server and the Lambda adapter hand values over that way. workerd does not: it decodes a request's
 * header values as UTF-8 (a byte that is not UTF-8, such as a lone Latin-1 0xE9, becomes U+FFFD before the
 * worker runs) and encodes the values of a `fetch` as UTF-8 (checked under miniflare 4.20260426). These two
 * conversions put the bytes back on either side.
 */

const NON_ASCII = /[^\u0000-\u007f]/;
const utf8 = new TextEncoder();
const text = new TextDecoder();

/**
 * A request's headers as the core reads them: each value as the bytes workerd decoded it from. ASCII values,
 * nearly all of them, pass as they are.
 */
export function wireHeaders(headers: Headers, clientAcceptEncoding?: string): ReadonlyHeaders {
  const wire: ReadonlyHeaders = {
    get: (name) => {
      const value = headers.get(name);
      return value === null ? null : toByteString(value);
    },
    has: (name) => headers.has(name),
    forEach: (callback) => headers.forEach((value, name) => callback(toByteString(value), name)),
  };
  return clientAcceptEncoding === undefined ? wire : withAcceptEncoding(wire, clientAcceptEncoding);
}

/**
 * The request's headers with the `Accept-Encoding` its client sent, which Cloudflare replaced with `br, gzip`
 * and kept in `request.cf.clientAcceptEncoding` (empty: the client sent none): a client that signed the header
 * is verified over its own value (runtime/edge/platform-headers.ts).
 */
function withAcceptEncoding(headers: ReadonlyHeaders, sent: string): ReadonlyHeaders {
  const own = (name: string): boolean => name.toLowerCase() === 'accept-encoding';
  return {
    get: (name) => (own(name) ? (sent === '' ? null : toByteString(sent)) : headers.get(name)),
    has: (name) => (own(name) ? sent !== '' : headers.has(name)),
    forEach: (callback) => {
      headers.forEach((value, name) => {
        if (!own(name)) callback(value, name);
      });
      if (sent !== '') callback(toByteString(sent), 'accept-encoding');
    },
  };
}

/** The UTF-8 bytes of decoded text, one character per byte. */
function toByteString(value: string): string {
  if (!NON_ASCII.test(value)) return value;
  let out = '';
  for (const byte of utf8.encode(value)) out += String.fromCharCode(byte);
  return out;
}

/**
 * A header value for the runtime's `fetch`: the text whose UTF-8 is the value's bytes, so the bytes the
 * core signed are the bytes sent. Bytes that are not UTF-8 cannot be sent from a Worker at all; they never
 * arrive from one either, since workerd replaced them on the way in.
 */
export function fetchHeaderValue(value: string): string {
  if (!NON_ASCII.test(value) || /[^\u0000-\u00ff]/.test(value)) return value;
  return text.decode(Uint8Array.from(value, (ch) => ch.charCodeAt(0)));
}
