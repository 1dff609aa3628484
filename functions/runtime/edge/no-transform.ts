import type { HeaderMap } from '../../core/http';
import type { ZoneCompression } from '../shared/settings';

/**
 * Cloudflare compresses a Worker's 200, 403 and 404 answers of the content types it lists for clients that
 * accept gzip, br or zstd, and decodes a gzip body for a client that does not accept it (re-encoding it for one
 * that accepts only br). `encodeBody: 'manual'` only stops the Workers runtime's own encoding. An S3 client then
 * gets other bytes than the object's: rclone asks for `gzip` and keeps what arrives, so a text object lands
 * compressed on disk, and an ETag or checksum no longer matches. Cloudflare leaves a response marked
 * `Cache-Control: no-transform` as it is, so the worker marks the answers Cloudflare would change, added to the
 * object's own Cache-Control (which the client then sees with it), and no others: a HEAD answer or any other
 * without a body has nothing to transform, and keeps the Cache-Control the object was stored with.
 */

/**
 * The content types Cloudflare compresses by default, as developers.cloudflare.com/speed/optimization/content/compression/
 * lists them ("Compression between Cloudflare and website visitors"), with `application/xml+rss` from the page's
 * earlier versions.
 */
const COMPRESSED_TYPES: ReadonlySet<string> = new Set([
  'text/html', 'text/richtext', 'text/plain', 'text/css', 'text/x-script', 'text/x-component', 'text/x-java-source',
  'text/x-markdown', 'application/javascript', 'application/x-javascript', 'text/javascript', 'text/js', 'image/x-icon',
  'image/vnd.microsoft.icon', 'application/x-perl', 'application/x-httpd-cgi', 'text/xml', 'application/xml',
  'application/rss+xml', 'application/xml+rss', 'application/vnd.api+json', 'application/x-protobuf', 'application/json',
  'multipart/bag', 'multipart/mixed', 'application/xhtml+xml', 'font/ttf', 'font/otf', 'font/x-woff', 'image/svg+xml',
  'application/vnd.ms-fontobject', 'application/ttf', 'application/x-ttf', 'application/otf', 'application/x-otf',
  'application/truetype', 'application/opentype', 'application/x-opentype', 'application/font-woff', 'application/eot',
  'application/font', 'application/font-sfnt', 'application/wasm', 'application/javascript-binast',
  'application/manifest+json', 'application/ld+json', 'application/graphql+json', 'application/geo+json',
]);

/** The statuses whose answers Cloudflare compresses (the same page). */
const COMPRESSED_STATUSES: ReadonlySet<number> = new Set([200, 403, 404]);

/**
 * Whether Cloudflare would compress an answer of `contentType` with `status`: a listed type, or any `text/` one
 * (the list has grown over the years; a miss costs an object's bytes, an extra mark only a visible directive).
 *
 * @example compressible('text/csv; charset=utf-8', 200) // true
 * @example compressible('application/octet-stream', 200) // false
 */
export function compressible(contentType: string | undefined, status: number): boolean {
  if (contentType === undefined || !COMPRESSED_STATUSES.has(status)) return false;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type.startsWith('text/') || COMPRESSED_TYPES.has(type);
}

/**
 * `headers` marked `no-transform` when Cloudflare could change the body they go with: an encoded one, which it
 * decodes for a client that does not accept the encoding, or one it compresses. With EDGE_ZONE_COMPRESSION
 * `disabled` nothing is compressed on the route, so only encoded bodies are marked (no Compression Rule is
 * documented to stop the decoding). An answer without a body is never marked.
 *
 * @example forCloudflare({ 'content-type': 'text/plain', 'cache-control': 'max-age=60' }, 200, true, 'default') // cache-control: 'max-age=60, no-transform'
 * @example forCloudflare({ 'content-type': 'text/plain', 'cache-control': 'max-age=60' }, 200, false, 'default') // unchanged (a HEAD answer)
 */
export function forCloudflare(headers: HeaderMap, status: number, hasBody: boolean, zone: ZoneCompression): HeaderMap {
  if (!hasBody) return headers;
  const encoding = header(headers, 'content-encoding')?.trim().toLowerCase();
  const encoded = encoding !== undefined && encoding !== '' && encoding !== 'identity';
  return encoded || (zone === 'default' && compressible(header(headers, 'content-type'), status)) ? withNoTransform(headers) : headers;
}

/**
 * `headers` with `no-transform` added to their Cache-Control (alone when there is none).
 *
 * @example withNoTransform({ 'cache-control': 'max-age=60' }) // { 'cache-control': 'max-age=60, no-transform' }
 */
export function withNoTransform(headers: HeaderMap): HeaderMap {
  const name = headerName(headers, 'cache-control');
  const current = name === undefined ? undefined : headers[name];
  if (current !== undefined && /(^|,)\s*no-transform\s*(,|$)/i.test(current)) return headers;
  const out: HeaderMap = { ...headers };
  if (name !== undefined) delete out[name];
  out['cache-control'] = current === undefined || current.trim() === '' ? 'no-transform' : `${current}, no-transform`;
  return out;
}

function headerName(headers: HeaderMap, lower: string): string | undefined {
  return Object.keys(headers).find((key) => key.toLowerCase() === lower);
}

function header(headers: HeaderMap, lower: string): string | undefined {
  const name = headerName(headers, lower);
  return name === undefined ? undefined : headers[name];
}
