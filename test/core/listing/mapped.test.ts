import type { Bucket, Config } from '../../../functions/core/config/types';
import type { ListParams } from '../../../functions/core/backends/store';
import type { BucketContext, RequestContext } from '../../../functions/core/context';
import { listMapped, type ListedChild } from '../../../functions/core/listing/mapped';
import { Query } from '../../../functions/core/query';
import { OPERATIONS } from '../../../functions/core/operations/table';
import type { Access } from '../../../functions/core/auth/authorize';

/** ListObjects' row of the operation table. */
const LIST = OPERATIONS.ListObjects.access as Access;
import { memoryStore } from '../../support/memory-store';

describe('listMapped: a client-level bucket over its mapped buckets', () => {
  const REPOS: Record<string, readonly string[]> = {
    a: ['x.txt', 'dir/1', 'dir/2'],
    'a-b': ['y.txt'],
    hidden: ['secret'],
    empty: [],
  };
  let calls: ListParams[];
  let children: ListedChild[];
  // A caller who may list every mapped bucket but `hidden`.
  const lister = {
    principal: {
      type: 'key',
      accessKeyId: 'AKID',
      name: 'lister',
      scopes: Object.keys(REPOS)
        .filter((path) => path !== 'hidden')
        .map((path) => ({ bucket: `acct:${path}`, prefixes: [], actions: ['list_bucket'] })),
    },
  } as unknown as RequestContext['identity'];
  const ctx = (rawQuery = ''): RequestContext =>
    ({ request: {} as RequestContext['request'], query: new Query(rawQuery), identity: lister, config: {} as Config, requestId: 'R' }) as RequestContext;

  beforeEach(() => {
    calls = [];
    children = Object.entries(REPOS)
      .map(([path, keys]) => ({
        path,
        ctx: { ...ctx(), bucket: { name: `acct:${path}` } as Bucket, store: memoryStore(keys, calls, { tokens: true, markers: true }) } as BucketContext,
      }))
      .sort((p, q) => (`${p.path}/` < `${q.path}/` ? -1 : 1));
  });

  const params = (over: Partial<ListParams>): ListParams => ({ version: 2, prefix: '', maxKeys: 1000, fetchOwner: false, ...over });

  async function page(over: Partial<ListParams>): Promise<{ keys: string[]; prefixes: string[]; truncated: boolean; token?: string; marker?: string; name?: string }> {
    const response = await listMapped(ctx(), 'acct', params(over), children, LIST);
    const xml = String(response.body);
    const all = (re: RegExp): string[] => [...xml.matchAll(re)].map((m) => m[1]);
    return {
      name: /<Name>([^<]*)<\/Name>/.exec(xml)?.[1],
      keys: all(/<Key>([^<]*)<\/Key>/g),
      prefixes: all(/<CommonPrefixes><Prefix>([^<]*)<\/Prefix><\/CommonPrefixes>/g),
      truncated: /<IsTruncated>true<\/IsTruncated>/.test(xml),
      token: /<NextContinuationToken>([^<]*)</.exec(xml)?.[1],
      marker: /<NextMarker>([^<]*)</.exec(xml)?.[1],
    };
  }

  it('WHEN listed with the delimiter "/" at the top THEN each visible mapped bucket is a common prefix, without a backend call', async () => {
    const out = await page({ delimiter: '/' });
    expect(out).toMatchObject({ name: 'acct', keys: [], prefixes: ['a-b/', 'a/', 'empty/'], truncated: false });
    expect(calls).toHaveLength(0);
  });

  it('WHEN listed without a delimiter THEN every key of every visible bucket, in S3 order ("a-b/" sorts before "a/")', async () => {
    expect((await page({})).keys).toEqual(['a-b/y.txt', 'a/dir/1', 'a/dir/2', 'a/x.txt']);
  });

  it('WHEN the prefix reaches inside one bucket THEN that bucket alone is listed, keys and prefixes in the client space', async () => {
    expect(await page({ prefix: 'a/', delimiter: '/' })).toMatchObject({ keys: ['a/x.txt'], prefixes: ['a/dir/'] });
    expect((await page({ prefix: 'a/d' })).keys).toEqual(['a/dir/1', 'a/dir/2']);
    expect(calls.map((c) => c.prefix)).toEqual(['', 'd']);
  });

  it('WHEN the prefix reaches inside a bucket the caller may not list THEN AccessDenied, while wider listings leave it out', async () => {
    await expect(page({ prefix: 'hidden/' })).rejects.toMatchObject({ code: 'AccessDenied' });
    expect((await page({ prefix: 'h' })).keys).toEqual([]);
  });

  it('pages V2 with continuation tokens across bucket boundaries, each key exactly once', async () => {
    const keys: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const out = await page({ maxKeys: 2, continuationToken: token });
      keys.push(...out.keys);
      token = out.truncated ? out.token : undefined;
      pages++;
    } while (token !== undefined && pages < 10);
    expect(keys).toEqual(['a-b/y.txt', 'a/dir/1', 'a/dir/2', 'a/x.txt']);
  });

  it('pages V1 with markers, and with the delimiter through common prefixes', async () => {
    const collect = async (over: Partial<ListParams>): Promise<string[]> => {
      const seen: string[] = [];
      let marker: string | undefined;
      for (let i = 0; i < 10; i++) {
        const out = await page({ version: 1, maxKeys: 1, marker, ...over });
        seen.push(...out.keys, ...out.prefixes);
        if (!out.truncated) break;
        marker = out.marker;
      }
      return seen;
    };
    expect(await collect({})).toEqual(['a-b/y.txt', 'a/dir/1', 'a/dir/2', 'a/x.txt']);
    expect(await collect({ delimiter: '/' })).toEqual(['a-b/', 'a/', 'empty/']);
  });

  it('starts after a key in the client space', async () => {
    expect((await page({ startAfter: 'a/dir/1' })).keys).toEqual(['a/dir/2', 'a/x.txt']);
    expect((await page({ startAfter: 'a-b/zzz' })).keys).toEqual(['a/dir/1', 'a/dir/2', 'a/x.txt']);
  });

  it('refuses a continuation token it did not issue', async () => {
    await expect(page({ continuationToken: 'k:abc' })).rejects.toMatchObject({ code: 'InvalidArgument' });
  });
});
