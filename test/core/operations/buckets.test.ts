import { listBuckets } from '../../../functions/core/operations/buckets';
import { Query } from '../../../functions/core/query';
import { S3Error } from '../../../functions/core/errors';
import { fromUtf8 } from '../../../functions/core/bytes/encoding';

/** ListBuckets names every virtual bucket, narrowed and paged by the query as S3 does since 2024. */
const NAMES = ['logs', 'data-b', 'data-a', 'assets', 'data-c'];
const CREATED = '2026-11-29T00:00:00.000Z';

function list(query = ''): string {
  const response = listBuckets(NAMES, new Query(query), 'REQ', CREATED);
  expect(response.status).toBe(200);
  const body = response.body;
  return typeof body === 'string' ? body : fromUtf8(body as Uint8Array);
}

const namesIn = (xml: string): string[] => [...xml.matchAll(/<Name>([^<]*)<\/Name>/g)].map((m) => m[1]);
const tokenIn = (xml: string): string | undefined => /<ContinuationToken>([^<]*)<\/ContinuationToken>/.exec(xml)?.[1];

function refusal(query: string): S3Error {
  try {
    list(query);
  } catch (err) {
    return err as S3Error;
  }
  throw new Error(`"${query}" was answered`);
}

describe('ListBuckets', () => {
  it('lists every bucket in name order, in the gateway region, with no token or prefix', () => {
    const xml = list();
    expect(namesIn(xml)).toEqual(['assets', 'data-a', 'data-b', 'data-c', 'logs']);
    expect(xml).toContain(`<Bucket><Name>assets</Name><CreationDate>${CREATED}</CreationDate><BucketRegion>us-east-1</BucketRegion></Bucket>`);
    expect(xml).not.toMatch(/<ContinuationToken>|<Prefix>/);
  });

  it('shows only names under a prefix, and echoes it', () => {
    const xml = list('prefix=data-');
    expect(namesIn(xml)).toEqual(['data-a', 'data-b', 'data-c']);
    expect(xml).toContain('<Prefix>data-</Prefix>');
    expect(namesIn(list('prefix=nothing'))).toEqual([]);
  });

  it('pages with max-buckets, each page naming the token of the next, the last none', () => {
    const pages: string[][] = [];
    let token: string | undefined;
    do {
      const xml = list(`max-buckets=2${token === undefined ? '' : `&continuation-token=${encodeURIComponent(token)}`}`);
      pages.push(namesIn(xml));
      token = tokenIn(xml);
    } while (token !== undefined && pages.length < 10);
    expect(pages).toEqual([['assets', 'data-a'], ['data-b', 'data-c'], ['logs']]);
  });

  it('pages within a prefix', () => {
    const first = list('prefix=data-&max-buckets=2');
    expect(namesIn(first)).toEqual(['data-a', 'data-b']);
    expect(namesIn(list(`prefix=data-&max-buckets=2&continuation-token=${tokenIn(first)}`))).toEqual(['data-c']);
  });

  it('lists every bucket for the gateway region and none for another', () => {
    expect(namesIn(list('bucket-region=us-east-1'))).toHaveLength(NAMES.length);
    expect(namesIn(list('bucket-region=eu-west-1'))).toEqual([]);
  });

  it.each(['0', '10001', '-1', '2.5', 'ten', ''])('refuses max-buckets=%s with 400 InvalidArgument', (value) => {
    expect(refusal(`max-buckets=${value}`)).toMatchObject({ code: 'InvalidArgument', status: 400 });
  });

  it.each(['not base64!', '%FF%FE', '_-8'])('refuses a continuation token it did not write (%s) with 400 InvalidArgument', (token) => {
    expect(refusal(`continuation-token=${token}`)).toMatchObject({ code: 'InvalidArgument', status: 400 });
  });
});
