import type { HeaderMap } from '../core/http';

/**
 * The response headers a Function URL's prelude carries. Users report that a Function URL in RESPONSE_STREAM
 * mode decompresses a body sent with `Content-Encoding: gzip` and removes the header
 * (aws-lambda-nodejs-runtime-interface-client#96, opennextjs-aws#1127). An object stored gzip-encoded would
 * then reach the client as other bytes than the ones stored, its ETag and checksums no longer matching. The
 * header is lost either way, so it is left out: the platform has nothing to decode and the bytes arrive as
 * stored. Other codings are not reported to be touched and pass unchanged.
 */
export function functionUrlHeaders(headers: HeaderMap): HeaderMap {
  const encoding = headers['content-encoding'];
  if (encoding === undefined || !/(^|,)\s*(x-)?gzip\s*(,|$)/i.test(encoding)) return headers;
  const out: HeaderMap = {};
  for (const name of Object.keys(headers)) if (name !== 'content-encoding') out[name] = headers[name];
  return out;
}
