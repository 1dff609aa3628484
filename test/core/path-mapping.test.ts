import { ConfigError, parseConfig } from '../../functions/core/config/parse';
import type { Bucket, Config } from '../../functions/core/config/types';
import { S3Error } from '../../functions/core/errors';
import type { ListPage, ListParams, ObjectStore } from '../../functions/core/backends/store';
import type { BucketContext, RequestContext } from '../../functions/core/context';
import { listMapped, type ListedChild } from '../../functions/core/operations/list-mapped';
import { PathMapper } from '../../functions/core/path-mapping';
import { Query } from '../../functions/core/query';

const mappedBucket = (name: string): string => `[[buckets]]\nname = "${name}"\nbackend_type = "s3"\n[buckets.backend_options]\nendpoint = "http://127.0.0.1:9000"\nbucket_name = "b"\n`;

function configWith(names: readonly string[], mapping = 'segments = 2\nseparator = ":"'): Config {
  return parseConfig(`[path_mapping]\n${mapping}\n${names.map(mappedBucket).join('\n')}`);
}

function problemsOf(toml: string): readonly string[] {
  try {
    parseConfig(toml);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('the configuration was accepted');
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof S3Error) return err.code;
    throw err;
  }
  return undefined;
}

describe('[path_mapping] configuration', () => {
  it('GIVEN segments and a separator THEN the mapping is read, and every bucket name must have that many parts', () => {
    const config = configWith(['acme:widgets', 'acme:gadgets']);
    expect(config.pathMapping).toEqual({ segments: 2, separator: ':' });
  });

  it('GIVEN no separator THEN it defaults to ":"', () => {
    expect(configWith(['a:b'], 'segments = 2').pathMapping).toEqual({ segments: 2, separator: ':' });
  });

  it('GIVEN no [path_mapping] THEN the configuration has none', () => {
    expect(parseConfig(mappedBucket('plain')).pathMapping).toBeUndefined();
  });

  it('refuses bad settings, naming the table and the field', () => {
    expect(problemsOf('[path_mapping]\nseparator = ":"')).toEqual(['[path_mapping]: segments is required']);
    expect(problemsOf('[path_mapping]\nsegments = 1')).toEqual(['[path_mapping]: segments must be an integer from 2 to 8 (the path segments that name one virtual bucket)']);
    expect(problemsOf('[path_mapping]\nsegments = 2\nseparator = "/"')).toEqual(['[path_mapping]: separator must be a non-empty string without "/", spaces or control characters']);
    expect(problemsOf('[path_mapping]\nsegments = 2\nsegmnts = 3')[0]).toMatch(/^\[path_mapping\]: segmnts is not a known field/);
    expect(problemsOf('path_mapping = 2')).toEqual(['[path_mapping]: must be a table']);
  });

  it('refuses a bucket whose name does not split into the mapped segments, naming the bucket', () => {
    const problems = problemsOf(`[path_mapping]\nsegments = 2\n${mappedBucket('plain')}\n${mappedBucket('a:b:c')}\n${mappedBucket('a:..')}`);
    expect(problems).toEqual([
      '[[buckets]] #1 "plain": name must be 2 non-empty parts joined by ":" (like "part1:part2"), because [path_mapping] segments = 2',
      '[[buckets]] #2 "a:b:c": name must be 2 non-empty parts joined by ":" (like "part1:part2"), because [path_mapping] segments = 2',
      '[[buckets]] #3 "a:..": name must be 2 non-empty parts joined by ":" (like "part1:part2"), because [path_mapping] segments = 2',
    ]);
  });
});

describe('PathMapper', () => {
  const config = configWith(['acme:widgets', 'acme:gadgets', 'other:x']);
  const mapper = new PathMapper(config.pathMapping!, config.buckets);
  const get = (bucket: string, key: string): Parameters<PathMapper['map']>[0] => ({ name: 'GetObject', bucket, key });

  it('WHEN a path names a mapped bucket and a key THEN the operation addresses the virtual bucket and the rest of the key', () => {
    expect(mapper.map(get('acme', 'widgets/dir/a b.txt'))).toEqual({ level: 'bucket', operation: { name: 'GetObject', bucket: 'acme:widgets', key: 'dir/a b.txt' } });
  });

  it('WHEN ListBuckets THEN the distinct first segments are the buckets', () => {
    expect(mapper.map({ name: 'ListBuckets' })).toEqual({ level: 'root', names: ['acme', 'other'] });
  });

  it('WHEN a first segment is addressed as a bucket THEN its mapped buckets are listed in key order', () => {
    const mapped = mapper.map({ name: 'ListObjects', bucket: 'acme', version: 2 });
    expect(mapped.level).toBe('prefix');
    if (mapped.level === 'prefix') expect(mapped.children.map((c) => c.path)).toEqual(['gadgets', 'widgets']);
  });

  it('WHEN a path names no mapped bucket THEN NoSuchBucket, also for an internal name sent as a path', () => {
    expect(codeOf(() => mapper.map(get('nobody', 'widgets/k')))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.map(get('acme', 'nothing/k')))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.map(get('acme:widgets', 'k')))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.map({ name: 'ListObjects', bucket: 'acme:widgets', version: 2 }))).toBe('NoSuchBucket');
  });

  it('WHEN a key stops at the mapped bucket THEN InvalidRequest; an invalid key is InvalidRequest before mapping', () => {
    expect(codeOf(() => mapper.map(get('acme', 'widgets')))).toBe('InvalidRequest');
    expect(codeOf(() => mapper.map({ name: 'PutObject', bucket: 'acme', key: 'file.txt' }))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.map(get('acme', 'widgets/../x')))).toBe('InvalidRequest');
  });

  it('WHEN CopyObject THEN destination and copy source are both mapped, the source re-encoded with the one key encoder', () => {
    const mapped = mapper.map({ name: 'CopyObject', bucket: 'acme', key: 'widgets/copy.txt', copySource: '/acme/gadgets/a%20b%2Bc.txt?versionId=v1' });
    expect(mapped).toEqual({
      level: 'bucket',
      operation: { name: 'CopyObject', bucket: 'acme:widgets', key: 'copy.txt', copySource: '/acme%3Agadgets/a%20b%2Bc.txt?versionId=v1' },
    });
    expect(mapper.mapCopySource('other/x/k')).toBe('/other%3Ax/k');
  });

  it('WHEN the copy source names no mapped bucket THEN NoSuchBucket (spec rule 6), also written with its internal name', () => {
    expect(codeOf(() => mapper.mapCopySource('/acme:gadgets/k'))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.mapCopySource('/acme%3Agadgets/k'))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.mapCopySource('/acme/unknown/k'))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.mapCopySource('/nobody/gadgets/k'))).toBe('NoSuchBucket');
    expect(codeOf(() => mapper.mapCopySource('/acme/gadgets'))).toBe('InvalidArgument');
  });

  it('maps three segments the same way', () => {
    const deep = configWith(['a.b.c'], 'segments = 3\nseparator = "."');
    const m = new PathMapper(deep.pathMapping!, deep.buckets);
    expect(m.map(get('a', 'b/c/k'))).toEqual({ level: 'bucket', operation: { name: 'GetObject', bucket: 'a.b.c', key: 'k' } });
    expect(codeOf(() => m.map(get('a', 'b/c')))).toBe('InvalidRequest');
  });
});

/** A store over sorted in-memory keys with S3's listing semantics (tokens are the last key listed). */
function memoryStore(keys: readonly string[], calls: ListParams[]): ObjectStore {
  const sorted = [...keys].sort();
  return {
    forwardObject: () => Promise.reject(new Error('not used')),
    list: async (params: ListParams): Promise<ListPage> => {
      calls.push(params);
      const after = params.continuationToken?.replace(/^k:/, '') ?? params.marker ?? params.startAfter;
      const items: Array<{ value: string; cp: boolean }> = [];
      for (const key of sorted) {
        if (!key.startsWith(params.prefix) || (after !== undefined && key <= after)) continue;
        const at = params.delimiter === undefined ? -1 : key.indexOf(params.delimiter, params.prefix.length);
        if (at < 0) {
          items.push({ value: key, cp: false });
          continue;
        }
        const cp = key.slice(0, at + (params.delimiter ?? '').length);
        if (items[items.length - 1]?.value !== cp && !(after !== undefined && after.startsWith(cp))) items.push({ value: cp, cp: true });
      }
      const page = items.slice(0, params.maxKeys);
      const truncated = items.length > params.maxKeys;
      const last = page[page.length - 1]?.value;
      return {
        contents: page.filter((i) => !i.cp).map((i) => ({ key: i.value, lastModified: '2030-01-01T00:00:00.000Z', etag: '"e"', size: 1, storageClass: 'STANDARD' })),
        commonPrefixes: page.filter((i) => i.cp).map((i) => i.value),
        isTruncated: truncated,
        nextMarker: truncated ? last : undefined,
        nextContinuationToken: truncated ? `k:${last}` : undefined,
      };
    },
  };
}

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
        ctx: { ...ctx(), bucket: { name: `acct:${path}` } as Bucket, store: memoryStore(keys, calls) } as BucketContext,
      }))
      .sort((p, q) => (`${p.path}/` < `${q.path}/` ? -1 : 1));
  });

  const params = (over: Partial<ListParams>): ListParams => ({ version: 2, prefix: '', maxKeys: 1000, fetchOwner: false, ...over });

  async function page(over: Partial<ListParams>): Promise<{ keys: string[]; prefixes: string[]; truncated: boolean; token?: string; marker?: string; name?: string }> {
    const response = await listMapped(ctx(), 'acct', params(over), children);
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
