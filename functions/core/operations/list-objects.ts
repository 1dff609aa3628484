import { isAllowed, prefixCovers } from '../authorization';
import type { Scope } from '../config/types';
import { S3Error } from '../errors';
import type { ProxyResponse } from '../http';
import { encodeKey } from '../keys';
import { s3Xml } from '../responses';
import type { ListEntry, ListPage, ListParams } from '../backends/store';
import type { XmlNode } from '../xml';
import type { BucketContext, RequestContext } from '../context';

/** ListObjects (V1) and ListObjectsV2 as the gateway's own XML, with the virtual bucket's name. */
export async function listObjects(ctx: BucketContext, version: 1 | 2, params: ListParams, scopes?: readonly Scope[]): Promise<ProxyResponse> {
  return renderListing(ctx, ctx.bucket.name, version, params, await listPage(ctx, params, scopes));
}

/** One page of the bucket's listing, without the entries the caller's scopes (when given) do not cover. */
export async function listPage(ctx: BucketContext, params: ListParams, scopes?: readonly Scope[]): Promise<ListPage> {
  const page = await ctx.store.list(params, ctx.request.signal);
  return scopes ? onlyAllowed(page, scopes, ctx.bucket.name) : page;
}

/** The ListBucketResult XML for a page, under the bucket name the client asked for. */
export function renderListing(ctx: RequestContext, name: string, version: 1 | 2, params: ListParams, page: ListPage): ProxyResponse {
  const encode: Encode = ctx.query.get('encoding-type') === 'url' ? (s) => encodeKey(s) : identity;
  const body = version === 2 ? v2Body(params, page, encode) : v1Body(params, page, encode);
  return s3Xml('ListBucketResult', { Name: name, ...body }, ctx.requestId);
}

/** Reads the listing parameters from the query, with S3's defaults and limits. */
export function listParams(ctx: RequestContext, version: 1 | 2): ListParams {
  const q = ctx.query;
  const rawMax = q.get('max-keys');
  if (rawMax !== undefined && !/^\d+$/.test(rawMax)) throw new S3Error('InvalidArgument', 'Provided max-keys not an integer or within integer range');
  const encoding = q.get('encoding-type');
  if (encoding !== undefined && encoding !== 'url') throw new S3Error('InvalidArgument', 'Invalid Encoding Method specified in Request');
  return {
    version,
    prefix: q.get('prefix') ?? '',
    delimiter: q.get('delimiter') || undefined,
    maxKeys: Math.min(rawMax === undefined ? 1000 : Number(rawMax), 1000),
    marker: version === 1 ? q.get('marker') || undefined : undefined,
    continuationToken: version === 2 ? q.get('continuation-token') || undefined : undefined,
    startAfter: version === 2 ? q.get('start-after') || undefined : undefined,
    fetchOwner: q.get('fetch-owner') === 'true',
  };
}

/**
 * A listing authorized on a prefix such as `data` would also return `database/…`; entries the caller's
 * scopes do not cover are dropped so a listing never reveals keys outside them.
 */
export function onlyAllowed(page: ListPage, scopes: readonly Scope[], bucket: string): ListPage {
  const allowed = (key: string): boolean => isAllowed(scopes, bucket, 'list_bucket', key);
  return {
    ...page,
    contents: page.contents.filter((entry) => allowed(entry.key)),
    commonPrefixes: page.commonPrefixes.filter((cp) => allowed(cp) || scopes.some((s) => s.prefixes.some((p) => prefixCovers(cp, p)))),
  };
}

type Encode = (value: string) => string;

function v2Body(params: ListParams, page: ListPage, encode: Encode): XmlNode {
  return {
    Prefix: encode(params.prefix),
    Delimiter: params.delimiter === undefined ? undefined : encode(params.delimiter),
    MaxKeys: params.maxKeys,
    EncodingType: encode === identity ? undefined : 'url',
    KeyCount: page.contents.length + page.commonPrefixes.length,
    IsTruncated: page.isTruncated,
    ContinuationToken: params.continuationToken,
    NextContinuationToken: page.isTruncated ? page.nextContinuationToken : undefined,
    StartAfter: params.startAfter === undefined ? undefined : encode(params.startAfter),
    Contents: page.contents.map((e) => entry(e, encode, params.fetchOwner)),
    CommonPrefixes: page.commonPrefixes.map((p) => ({ Prefix: encode(p) })),
  };
}

function v1Body(params: ListParams, page: ListPage, encode: Encode): XmlNode {
  return {
    Prefix: encode(params.prefix),
    Marker: encode(params.marker ?? ''),
    MaxKeys: params.maxKeys,
    Delimiter: params.delimiter === undefined ? undefined : encode(params.delimiter),
    EncodingType: encode === identity ? undefined : 'url',
    IsTruncated: page.isTruncated,
    NextMarker: page.isTruncated && page.nextMarker !== undefined ? encode(page.nextMarker) : undefined,
    Contents: page.contents.map((e) => entry(e, encode, true)),
    CommonPrefixes: page.commonPrefixes.map((p) => ({ Prefix: encode(p) })),
  };
}

const identity: Encode = (s) => s;

function entry(e: ListEntry, encode: Encode, withOwner: boolean): XmlNode {
  return {
    Key: encode(e.key),
    LastModified: e.lastModified,
    ETag: e.etag,
    Size: e.size,
    Owner: withOwner && e.owner ? { ID: e.owner.id, DisplayName: e.owner.displayName } : undefined,
    StorageClass: e.storageClass,
  };
}
