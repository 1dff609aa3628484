import { INVALID_TARGET, INVALID_VALUE, TOKEN } from './syntax';

/** A backend request as the client writes it. */
export interface WireRequest {
  readonly protocol: 'http:' | 'https:';
  readonly hostname: string;
  readonly port: string;
  readonly method: string;
  /** Sent exactly as given. */
  readonly path: string;
  /** `[name, value, …]`, including host and, for a body in hand, its length. */
  readonly headers: readonly string[];
}

/**
 * The request line and headers, validated as node:http would before anything is sent, and whether a streamed
 * body goes chunked (it has no length). Throws a TypeError for a request that cannot be written.
 */
export function requestHead(request: WireRequest, streamed: boolean): [string, boolean] {
  if (!TOKEN.test(request.method)) throw new TypeError(`Invalid method "${request.method}"`);
  if (INVALID_TARGET.test(request.path)) throw new TypeError('Request path contains unescaped characters');
  let head = `${request.method} ${request.path} HTTP/1.1\r\n`;
  let framed = false;
  const { headers } = request;
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i];
    const value = headers[i + 1];
    if (!TOKEN.test(name)) throw new TypeError(`Header name must be a valid HTTP token ["${name}"]`);
    if (INVALID_VALUE.test(value)) throw new TypeError(`Invalid character in header content ["${name}"]`);
    if (streamed && !framed) {
      const lower = name.toLowerCase();
      framed = lower === 'content-length' || lower === 'transfer-encoding';
    }
    head += `${name}: ${value}\r\n`;
  }
  const chunked = streamed && !framed;
  if (chunked) head += 'transfer-encoding: chunked\r\n';
  return [`${head}\r\n`, chunked];
}
