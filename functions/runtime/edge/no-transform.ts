import type { HeaderMap } from '../../core/http';

/**
 * Cloudflare compresses a Worker's 200, 403 and 404 responses whose type it deems compressible (text/*,
 * application/xml, application/json...) for clients that accept gzip or br, decompresses a gzip body for a
 * client that does not, and re-encodes it for one that accepts only br (developers.cloudflare.com
 * speed/optimization/content/compression; miniflare copies this). `encodeBody: 'manual'` only stops the
 * Workers runtime's own encoding. An S3 client then gets other bytes than the object's: rclone asks for
 * `gzip` and keeps what arrives, so a text object lands compressed on disk, and an ETag or checksum no longer
 * matches. Cloudflare leaves a response marked `Cache-Control: no-transform` as it is, so every response of
 * the worker carries it: added to an object's own Cache-Control, which the client then sees with it.
 *
 * @example withNoTransform({ 'cache-control': 'max-age=60' }) // { 'cache-control': 'max-age=60, no-transform' }
 */
export function withNoTransform(headers: HeaderMap): HeaderMap {
  const name = Object.keys(headers).find((key) => key.toLowerCase() === 'cache-control');
  const current = name === undefined ? undefined : headers[name];
  if (current !== undefined && /(^|,)\s*no-transform\s*(,|$)/i.test(current)) return headers;
  const out: HeaderMap = { ...headers };
  if (name !== undefined) delete out[name];
  out['cache-control'] = current === undefined || current.trim() === '' ? 'no-transform' : `${current}, no-transform`;
  return out;
}
