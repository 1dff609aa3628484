import { S3Error } from './errors';
import { utf8Pieces } from './bytes';
import type { HeaderMap, ProxyResponse } from './http';
import { buildXml, type XmlNode } from './xml';

/** Every response the core builds goes through here, so each carries the request id. */

export const S3_XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';

/**
 * The gateway's own documents are read by S3 clients that never decode a compressed body (rclone asks for
 * `gzip` and reads the bytes as they come): `no-transform` keeps a platform in front (Cloudflare compresses
 * `application/xml` for clients that accept it) from compressing them.
 */
export function xmlResponse(status: number, xml: string | Uint8Array, requestId: string, headers: HeaderMap = {}): ProxyResponse {
  return {
    status,
    headers: { 'content-type': 'application/xml', 'cache-control': 'no-transform', 'x-amz-request-id': requestId, ...headers },
    body: xml,
  };
}

/**
 * A long document that was written in pieces, sent as one buffer of their bytes: no single string of the
 * whole is made (see listing/xml.ts for why that matters), and a buffer's backing store lives outside V8's heap.
 * Sent as a stream before, a 1,000-key page cost ~0.5 ms more CPU (the stream, its Node adapter and a
 * pipeline per response), more than its 290 KB of copying. The pieces are encoded straight into that buffer
 * (utf8Pieces).
 */
export function xmlPiecesResponse(pieces: readonly string[], requestId: string): ProxyResponse {
  return xmlResponse(200, utf8Pieces(pieces), requestId);
}

export function s3Xml(root: string, body: XmlNode, requestId: string): ProxyResponse {
  return xmlResponse(200, buildXml(root, body, S3_XMLNS), requestId);
}

export function emptyResponse(status: number, requestId: string, headers: HeaderMap = {}): ProxyResponse {
  return { status, headers: { 'x-amz-request-id': requestId, ...headers }, body: null };
}

/**
 * The S3 error document for `err`. Anything that is not an S3Error is an internal error whose details stay
 * in the log. HEAD responses carry no body, as on S3. `resource` is the path the client sent; undefined
 * when no request could be read, and then no `Resource` is written, as S3 does.
 */
export function errorResponse(err: unknown, requestId: string, method: string, resource: string | undefined): ProxyResponse {
  const e = err instanceof S3Error ? err : new S3Error('InternalError', 'We encountered an internal error. Please try again.');
  if (method === 'HEAD') return withErrorCode(emptyResponse(e.status, requestId), e.code);
  const xml = buildXml('Error', { Code: e.code, Message: e.message, ...e.detail, Resource: resource, RequestId: requestId });
  return withErrorCode(xmlResponse(e.status, xml, requestId), e.code);
}

/** `response` marked as carrying the error `code`. */
export function withErrorCode(response: ProxyResponse, code: string): ProxyResponse {
  return { status: response.status, headers: response.headers, body: response.body, errorCode: code };
}

/**
 * A random prefix per process (or isolate), so ids from different instances do not collide. Drawn on first
 * use: edge workers refuse random generation at module scope.
 */
let requestIdPrefix: string | undefined;
let requestCounter = 0;

function randomPrefix(): string {
  let out = '';
  for (const b of crypto.getRandomValues(new Uint8Array(4))) out += b.toString(16).padStart(2, '0');
  return out.toUpperCase();
}

/**
 * A request id in S3's style (16 upper-case hex characters): the instance's random prefix and a counter,
 * unique per instance without a random draw per request.
 */
export function newRequestId(): string {
  requestCounter = (requestCounter + 1) % 0x100000000;
  requestIdPrefix ??= randomPrefix();
  return requestIdPrefix + requestCounter.toString(16).toUpperCase().padStart(8, '0');
}
