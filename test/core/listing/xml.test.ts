import type { ListPage, ListParams } from '../../../functions/core/backends/store';
import type { RequestContext } from '../../../functions/core/context';
import { encodeKey } from '../../../functions/core/keys';
import { GATEWAY_OWNER, renderListing } from '../../../functions/core/listing/xml';
import { S3_XMLNS } from '../../../functions/core/responses';
import { buildXml, type XmlNode } from '../../../functions/core/xml';

/**
 * The listing document is written as one string; it must be exactly what the general XML builder writes for
 * the same page (the builder's form is what every listing spec and client was checked against).
 */

function ctx(query: Record<string, string>): RequestContext {
  return { requestId: 'REQ', query: { get: (name: string) => query[name] } } as unknown as RequestContext;
}

/** The document as the general builder writes it. */
function reference(name: string, version: 1 | 2, params: ListParams, page: ListPage, query: Record<string, string>): string {
  const encode = query['encoding-type'] === 'url' ? (s: string): string => encodeKey(s) : (s: string): string => s;
  const url = query['encoding-type'] === 'url' ? 'url' : undefined;
  const entry = (withOwner: boolean) => (e: ListPage['contents'][number]): XmlNode => ({
    Key: encode(e.key), LastModified: e.lastModified, ETag: e.etag, Size: e.size, Owner: withOwner ? GATEWAY_OWNER : undefined, StorageClass: e.storageClass,
  });
  const prefixes = page.commonPrefixes.map((p) => ({ Prefix: encode(p) }));
  const body: XmlNode =
    version === 2
      ? {
          Name: name, Prefix: encode(params.prefix), Delimiter: params.delimiter === undefined ? undefined : encode(params.delimiter), MaxKeys: params.maxKeys,
          EncodingType: url, KeyCount: page.contents.length + page.commonPrefixes.length, IsTruncated: page.isTruncated, ContinuationToken: query['continuation-token'],
          NextContinuationToken: page.isTruncated ? page.nextContinuationToken : undefined, StartAfter: params.startAfter === undefined ? undefined : encode(params.startAfter),
          Contents: page.contents.map(entry(params.fetchOwner)), CommonPrefixes: prefixes,
        }
      : {
          Name: name, Prefix: params.prefix, Marker: encode(params.marker ?? ''), MaxKeys: params.maxKeys, Delimiter: params.delimiter === undefined ? undefined : encode(params.delimiter),
          EncodingType: url, IsTruncated: page.isTruncated, NextMarker: page.isTruncated && page.nextMarker !== undefined ? encode(page.nextMarker) : undefined,
          Contents: page.contents.map(entry(true)), CommonPrefixes: prefixes,
        };
  return buildXml('ListBucketResult', body, S3_XMLNS);
}

const PAGE: ListPage = {
  contents: [
    { key: 'a&b <c> "d" \'e\'', lastModified: '2026-11-27T10:00:00.000Z', etag: '"abc"', size: 0, storageClass: 'STANDARD' },
    { key: 'dir/ü €/%20+', lastModified: '', etag: '', size: 123456789, storageClass: 'GLACIER' },
  ],
  commonPrefixes: ['p&q/', 'x y/'],
  isTruncated: true,
  nextContinuationToken: 'tok&en',
  nextMarker: 'gw1.m<k',
};
const PARAMS: ListParams = { version: 2, prefix: 'a&', delimiter: '/', maxKeys: 2, startAfter: 's<a', fetchOwner: false };

describe('renderListing', () => {
  const cases: Array<[string, 1 | 2, ListParams, ListPage, Record<string, string>]> = [
    ['V2', 2, PARAMS, PAGE, {}],
    ['V2, url-encoded, fetch-owner, echoed token', 2, { ...PARAMS, fetchOwner: true }, PAGE, { 'encoding-type': 'url', 'continuation-token': '' }],
    ['V2, not truncated, no delimiter', 2, { ...PARAMS, delimiter: undefined, startAfter: undefined }, { ...PAGE, isTruncated: false }, {}],
    ['V1', 1, { ...PARAMS, version: 1, marker: 'm&k', startAfter: undefined }, PAGE, {}],
    ['V1, url-encoded', 1, { ...PARAMS, version: 1, startAfter: undefined }, PAGE, { 'encoding-type': 'url' }],
    ['an empty page', 2, PARAMS, { contents: [], commonPrefixes: [], isTruncated: false }, {}],
  ];
  it.each(cases)('GIVEN %s THEN it writes what the general builder writes', (_name, version, params, page, query) => {
    const response = renderListing(ctx(query), 'my&bucket', version, params, page);
    expect(response.body).toBe(reference('my&bucket', version, params, page, query));
    expect(response.headers).toMatchObject({ 'content-type': 'application/xml', 'x-amz-request-id': 'REQ' });
  });
});

describe('renderListing: a long page', () => {
  const contents = Array.from({ length: 1000 }, (_, i) => ({ key: `list/k-${i} ü&`, lastModified: '2026-11-27T10:00:00.000Z', etag: '"9dd4e461268c8034f5c8564e155c67a6"', size: i, storageClass: 'STANDARD' }));
  const page: ListPage = { contents, commonPrefixes: contents.map((c) => `${c.key}/`), isTruncated: false };

  it('GIVEN a page of 1,000 keys and prefixes THEN it is sent as the bytes of its pieces, and reads as the builder writes it', () => {
    const response = renderListing(ctx({ 'encoding-type': 'url' }), 'b', 2, PARAMS, page);
    expect(response.body).toBeInstanceOf(Uint8Array);
    const bytes = response.body as Uint8Array;
    expect(response.headers).toMatchObject({ 'content-type': 'application/xml', 'cache-control': 'no-transform', 'x-amz-request-id': 'REQ' });
    expect(new TextDecoder().decode(bytes)).toBe(reference('b', 2, PARAMS, page, { 'encoding-type': 'url' }));
  });
});
