/**
 * The ListBucketResult document of ListObjects (V1) and ListObjectsV2, written as one string.
 *
 * A 1,000-key page is the largest document the gateway writes on a hot path: building a node per entry for
 * the general XML builder and walking them again cost more than the page's own text, so the page is written
 * here directly, element by element, in the order and form the builder used (a spec compares the two).
 */
import type { ProxyResponse } from '../http';
import type { ListEntry, ListPage, ListParams } from '../backends/store';
import type { RequestContext } from '../context';
import { encodeKey } from '../keys';
import { S3_XMLNS, xmlPiecesResponse, xmlResponse } from '../responses';
import { escapeXml } from '../xml';

/** Who owns every listed object, as ListBuckets says: the gateway (backend owners are never shown). */
export const GATEWAY_OWNER = { ID: 'gateway', DisplayName: 'gateway' } as const;

const OWNER = `<Owner><ID>${GATEWAY_OWNER.ID}</ID><DisplayName>${GATEWAY_OWNER.DisplayName}</DisplayName></Owner>`;
const HEAD = `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="${escapeXml(S3_XMLNS)}">`;

type Encode = (value: string) => string;
const identity: Encode = (s) => s;

/**
 * The ListBucketResult XML for a page, under the bucket name the client asked for. With `encoding-type=url`
 * the elements S3 encodes are URL-encoded, and only those (the ones botocore decodes again): V2's Prefix,
 * Delimiter, StartAfter, keys and common prefixes; V1's Delimiter, Marker, NextMarker, keys and common
 * prefixes, but not its Prefix. A V2 `continuation-token` is echoed whenever one was sent, even empty.
 */
export function renderListing(ctx: RequestContext, name: string, version: 1 | 2, params: ListParams, page: ListPage): ProxyResponse {
  const encode: Encode = ctx.query.get('encoding-type') === 'url' ? (s) => encodeKey(s) : identity;
  const head = version === 2 ? v2Head(params, page, encode, ctx.query.get('continuation-token')) : v1Head(params, page, encode);
  const withOwner = version === 1 || params.fetchOwner;
  const pieces: string[] = [];
  let xml = HEAD + el('Name', name) + head;
  const add = (text: string): void => {
    xml += text;
    if (xml.length < PIECE_CHARS) return;
    pieces.push(xml);
    xml = '';
  };
  for (const e of page.contents) add(entry(e, encode, withOwner));
  for (const p of page.commonPrefixes) add(`<CommonPrefixes>${el('Prefix', encode(p))}</CommonPrefixes>`);
  xml += '</ListBucketResult>';
  if (pieces.length === 0) return xmlResponse(200, xml, ctx.requestId);
  pieces.push(xml);
  return xmlPiecesResponse(pieces, ctx.requestId);
}

/**
 * A page longer than this is sent in pieces of about this many characters, never as one string: V8 keeps a
 * string over ~128 KB in its large-object space, and turning a 250 KB page into one string and that into
 * bytes cost ~4x the writing of it (a fresh mapping per string, page faults on every use).
 */
const PIECE_CHARS = 32 * 1024;

/** `<name>value</name>`, escaped; nothing for an absent value. */
function el(name: string, value: string | number | boolean | undefined): string {
  return value === undefined ? '' : `<${name}>${escapeXml(String(value))}</${name}>`;
}

function v2Head(params: ListParams, page: ListPage, encode: Encode, continuationToken: string | undefined): string {
  return (
    el('Prefix', encode(params.prefix)) +
    el('Delimiter', params.delimiter === undefined ? undefined : encode(params.delimiter)) +
    el('MaxKeys', params.maxKeys) +
    el('EncodingType', encode === identity ? undefined : 'url') +
    el('KeyCount', page.contents.length + page.commonPrefixes.length) +
    el('IsTruncated', page.isTruncated) +
    el('ContinuationToken', continuationToken) +
    el('NextContinuationToken', page.isTruncated ? page.nextContinuationToken : undefined) +
    el('StartAfter', params.startAfter === undefined ? undefined : encode(params.startAfter))
  );
}

function v1Head(params: ListParams, page: ListPage, encode: Encode): string {
  return (
    el('Prefix', params.prefix) +
    el('Marker', encode(params.marker ?? '')) +
    el('MaxKeys', params.maxKeys) +
    el('Delimiter', params.delimiter === undefined ? undefined : encode(params.delimiter)) +
    el('EncodingType', encode === identity ? undefined : 'url') +
    el('IsTruncated', page.isTruncated) +
    el('NextMarker', page.isTruncated && page.nextMarker !== undefined ? encode(page.nextMarker) : undefined)
  );
}

function entry(e: ListEntry, encode: Encode, withOwner: boolean): string {
  return (
    `<Contents><Key>${escapeXml(encode(e.key))}</Key><LastModified>${escapeXml(e.lastModified)}</LastModified>` +
    `<ETag>${etagXml(e.etag)}</ETag><Size>${e.size}</Size>${withOwner ? OWNER : ''}` +
    `<StorageClass>${escapeXml(e.storageClass)}</StorageClass></Contents>`
  );
}

/** A quoted ETag is in nearly every entry: its quotes are written as references without a general escape. */
function etagXml(etag: string): string {
  const inner = etag.length >= 2 && etag.startsWith('"') && etag.endsWith('"') ? etag.slice(1, -1) : undefined;
  return inner !== undefined && !SPECIAL.test(inner) ? `&quot;${inner}&quot;` : escapeXml(etag);
}

const SPECIAL = /[&<>"']/;
