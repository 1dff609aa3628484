import type { ListParams, ObjectStore } from '../../../functions/core/backends/store';
import type { Action, Bucket, Config, Scope } from '../../../functions/core/config/types';
import type { Identity } from '../../../functions/core/auth/identity';
import type { BucketContext } from '../../../functions/core/context';
import { listMapped, type ListedChild } from '../../../functions/core/listing/mapped';
import { listObjects } from '../../../functions/core/listing/objects';
import { ListTokens } from '../../../functions/core/listing/token';
import { Query } from '../../../functions/core/query';
import { OPERATIONS } from '../../../functions/core/operations/table';
import type { Access } from '../../../functions/core/auth/authorize';

/** ListObjects' row of the operation table. */
const LIST_ACCESS = OPERATIONS.ListObjects.access as Access;
import { memoryStore } from '../../support/memory-store';

/**
 * Listings over a store with S3's listing semantics, for callers whose scopes cover part of a bucket: what
 * the client is shown (keys, common prefixes, markers, tokens) and what the backend is asked.
 */

const LIST: Action[] = ['list_bucket'];
const scope = (bucket: string, prefixes: string[], actions: Action[] = LIST): Scope => ({ bucket, prefixes, actions });

/** `priv` may be listed under `data` only; `database/` is granted in another bucket, and for reading here. */
const SCOPES: Scope[] = [scope('priv', ['data']), scope('other', ['database/']), scope('priv', ['database/'], ['get_object'])];

const KEYS = ['data', 'data!x', 'data/a.txt', 'data/sub/b.txt', 'data/sub/c.txt', 'database/x.txt', 'database/y.txt', 'dataz', 'zz'];

interface Recorded {
  readonly calls: ListParams[];
}

function bucketContext(name: string, store: ObjectStore, identity: Identity, rawQuery = ''): BucketContext {
  return {
    request: { rawPath: `/${name}` } as BucketContext['request'],
    query: new Query(rawQuery),
    identity,
    config: {} as Config,
    requestId: 'R',
    bucket: { name } as Bucket,
    store,
  };
}

const keyHolder = (scopes: Scope[]): Identity => ({ principal: { type: 'key', accessKeyId: 'AK', name: 'caller', scopes } }) as Identity;
const params = (over: Partial<ListParams>): ListParams => ({ version: 2, prefix: '', maxKeys: 1000, fetchOwner: false, ...over });

interface Shown {
  readonly keys: string[];
  readonly prefixes: string[];
  readonly truncated: boolean;
  readonly token?: string;
  readonly marker?: string;
  readonly xml: string;
}

function shown(xml: string): Shown {
  const all = (re: RegExp): string[] => [...xml.matchAll(re)].map((m) => m[1]);
  return {
    keys: all(/<Key>([^<]*)<\/Key>/g),
    prefixes: all(/<CommonPrefixes><Prefix>([^<]*)<\/Prefix><\/CommonPrefixes>/g),
    truncated: /<IsTruncated>true<\/IsTruncated>/.test(xml),
    token: /<NextContinuationToken>([^<]*)</.exec(xml)?.[1],
    marker: /<NextMarker>([^<]*)</.exec(xml)?.[1],
    xml,
  };
}

/** Every name a token or marker reveals when decoded the only way a client could: base64url, then as text. */
function revealed(value: string | undefined): string {
  if (value === undefined) return '';
  const body = value.replace(/^gw1\./, '');
  return `${value} ${Buffer.from(body, 'base64url').toString('latin1')}`;
}

describe('listObjects for a caller whose scopes cover part of the bucket', () => {
  let recorded: Recorded;
  let tokens: ListTokens;

  beforeEach(() => {
    recorded = { calls: [] };
    tokens = new ListTokens(new Uint8Array(32).fill(7));
  });

  const list = async (over: Partial<ListParams>, scopes = SCOPES, keys = KEYS, storeTokens = false, using = tokens): Promise<Shown> => {
    const ctx = bucketContext('priv', memoryStore(keys, recorded.calls, { tokens: storeTokens }), keyHolder(scopes));
    const p = params(over);
    return shown(String((await listObjects(ctx, p.version, p, LIST_ACCESS, using)).body));
  };

  it('GIVEN a grant on "data" and another bucket\'s "database/" WHEN listing prefix=data with "/" THEN "database/" is not a common prefix', async () => {
    const out = await list({ prefix: 'data', delimiter: '/' });
    expect(out.keys).toEqual(['data']);
    expect(out.prefixes).toEqual(['data/']);
    expect(out.xml).not.toMatch(/database|dataz|data!x/);
  });

  it('asks the backend only inside the granted ranges: the key "data" and the run "data/"', async () => {
    await list({ prefix: 'data' });
    // The key "data" sorts first among the keys starting with it: one single-key read finds it.
    expect(recorded.calls.map((c) => [c.prefix, c.maxKeys])).toEqual([['data', 1], ['data/', 999]]);
  });

  it('a grant for another action or bucket adds nothing: without "data" there is nothing to list', async () => {
    const out = await list({}, [scope('other', ['database/']), scope('priv', ['database/'], ['get_object'])]);
    expect(out).toMatchObject({ keys: [], prefixes: [], truncated: false });
    expect(recorded.calls).toHaveLength(0);
  });

  it.each([1, 2])('chained V2 pages of max-keys=%i show every visible key once and never name another, in keys or tokens', async (maxKeys) => {
    const keys: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 20; page++) {
      const out = await list({ prefix: 'data', maxKeys, continuationToken: token });
      keys.push(...out.keys);
      expect(`${out.xml} ${revealed(out.token)}`).not.toMatch(/database|dataz|data!x/);
      if (!out.truncated) break;
      token = out.token;
    }
    expect(keys).toEqual(['data', 'data/a.txt', 'data/sub/b.txt', 'data/sub/c.txt']);
  });

  it('chained V1 pages of max-keys=1 resume from the last key shown: NextMarker is that key', async () => {
    const keys: string[] = [];
    const markers: string[] = [];
    let marker: string | undefined;
    for (let page = 0; page < 20; page++) {
      const out = await list({ version: 1, prefix: 'data', maxKeys: 1, marker });
      keys.push(...out.keys);
      if (!out.truncated) break;
      marker = out.marker;
      markers.push(marker ?? '');
    }
    expect(keys).toEqual(['data', 'data/a.txt', 'data/sub/b.txt', 'data/sub/c.txt']);
    expect(markers).toEqual(['data', 'data/a.txt', 'data/sub/b.txt']);
  });

  it('pages through common prefixes with the delimiter, each once', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 10; page++) {
      const out = await list({ prefix: 'data/', delimiter: '/', maxKeys: 1, continuationToken: token });
      seen.push(...out.keys, ...out.prefixes);
      if (!out.truncated) break;
      token = out.token;
    }
    expect(seen).toEqual(['data/a.txt', 'data/sub/']);
  });

  it('a start-after or a V1 marker is only a position: nothing outside the grant follows it', async () => {
    expect((await list({ prefix: 'data', startAfter: 'data!' })).keys).toEqual(['data/a.txt', 'data/sub/b.txt', 'data/sub/c.txt']);
    expect((await list({ prefix: 'data', startAfter: 'database/' })).keys).toEqual([]);
    expect((await list({ version: 1, prefix: 'data', marker: 'dat' })).keys).toEqual(['data', 'data/a.txt', 'data/sub/b.txt', 'data/sub/c.txt']);
  });

  it('refuses a continuation token the gateway could not have issued: made up, or in the old plain form', async () => {
    await expect(list({ continuationToken: 'not a token!' })).rejects.toMatchObject({ code: 'InvalidArgument' });
    await expect(list({ continuationToken: Buffer.from('[1]').toString('base64url') })).rejects.toMatchObject({ code: 'InvalidArgument' });
    const forged = Buffer.from(JSON.stringify({ p: 'data', d: '', a: 'data!' })).toString('base64url');
    await expect(list({ prefix: 'data', continuationToken: forged })).rejects.toMatchObject({ code: 'InvalidArgument' });
    expect(recorded.calls).toHaveLength(0);
  });

  it('seals a store\'s own marker into the token, unreadable, and resumes from it', async () => {
    const first = await list({ prefix: 'data/', maxKeys: 1 }, SCOPES, KEYS, true);
    expect(revealed(first.token)).not.toContain('k:');
    recorded.calls.length = 0;
    const second = await list({ prefix: 'data/', maxKeys: 1, continuationToken: first.token }, SCOPES, KEYS, true);
    expect(second.keys).toEqual(['data/sub/b.txt']);
    expect(recorded.calls[0]).toMatchObject({ continuationToken: 'k:data/a.txt', startAfter: undefined });
    expect(second.marker).toBeUndefined();
  });

  it('a token another deployment sealed is refused before any backend read, not resumed by name', async () => {
    const first = await list({ prefix: 'data/', maxKeys: 1 }, SCOPES, KEYS, true);
    recorded.calls.length = 0;
    const elsewhere = new ListTokens(new Uint8Array(32).fill(9));
    await expect(list({ prefix: 'data/', maxKeys: 1, continuationToken: first.token }, SCOPES, KEYS, true, elsewhere)).rejects.toMatchObject({ code: 'InvalidArgument' });
    expect(recorded.calls).toHaveLength(0);
  });

  it('a shown key that starts like the gateway\'s marker goes out as a tagged marker, so it is never read back as one', async () => {
    const lookalike = `gw1.${'A'.repeat(60)}`;
    const keys = [lookalike, 'gw1.z'];
    const scopes = [scope('priv', [''])];
    const first = await list({ version: 1, maxKeys: 1 }, scopes, keys);
    expect(first.keys).toEqual([lookalike]);
    expect(first.marker).not.toBe(lookalike);
    expect((await list({ version: 1, maxKeys: 1, marker: first.marker }, scopes, keys)).keys).toEqual(['gw1.z']);
  });

  it('a V1 marker issued with a sealed store marker carries the gateway tag and resumes like the token', async () => {
    const first = await list({ version: 1, prefix: 'data/', maxKeys: 1 }, SCOPES, KEYS, true);
    expect(first.marker).toMatch(/^gw1\./);
    expect((await list({ version: 1, prefix: 'data/', maxKeys: 1, marker: first.marker }, SCOPES, KEYS, true)).keys).toEqual(['data/sub/b.txt']);
  });

  it('shows a granted run the delimiter folds above the prefix as its common prefix, only when it holds keys', async () => {
    const keys = ['data-x/1', 'data-y/2', 'data/a'];
    const scopes = [scope('priv', ['data', 'data-x/', 'data-e/'])];
    const out = await list({ prefix: 'data', delimiter: '/' }, scopes, keys);
    expect(out).toMatchObject({ keys: [], prefixes: ['data-x/', 'data/'] });
  });

  it('a position at or inside a folded common prefix does not show it again, as a backend lists it', async () => {
    const keys = ['data-x/1', 'data-x/2', 'data/a'];
    const scopes = [scope('priv', ['data', 'data-x/'])];
    for (const position of ['data-x/', 'data-x/1']) {
      expect(await list({ prefix: 'data', delimiter: '/', startAfter: position }, scopes, keys)).toMatchObject({ keys: [], prefixes: ['data/'] });
      expect(await list({ version: 1, prefix: 'data', delimiter: '/', marker: position }, scopes, keys)).toMatchObject({ keys: [], prefixes: ['data/'] });
    }
    expect(await list({ prefix: 'data', delimiter: '/', startAfter: 'data-w' }, scopes, keys)).toMatchObject({ keys: [], prefixes: ['data-x/', 'data/'] });
  });

  it('max-keys 0 is an empty page, not truncated', async () => {
    expect(await list({ prefix: 'data', maxKeys: 0 })).toMatchObject({ keys: [], prefixes: [], truncated: false });
  });

  it('owners are the gateway\'s: V1 always, V2 with fetch-owner', async () => {
    expect((await list({ version: 1, prefix: 'data/' })).xml).toContain('<Owner><ID>gateway</ID><DisplayName>gateway</DisplayName></Owner>');
    expect((await list({ prefix: 'data/' })).xml).not.toContain('<Owner>');
    expect((await list({ prefix: 'data/', fetchOwner: true })).xml).toContain('<Owner><ID>gateway</ID>');
  });

  it('an anonymous listing of a public bucket is one backend listing of the prefix', async () => {
    const anonymous = bucketContext('priv', memoryStore(KEYS, recorded.calls), { principal: { type: 'anonymous' } } as Identity);
    const ctx = { ...anonymous, bucket: { name: 'priv', anonymousAccess: true } as Bucket };
    const out = shown(String((await listObjects(ctx, 2, params({ prefix: 'data' }), LIST_ACCESS, tokens)).body));
    expect(out.keys).toEqual(['data', 'data!x', 'data/a.txt', 'data/sub/b.txt', 'data/sub/c.txt', 'database/x.txt', 'database/y.txt', 'dataz']);
    expect(recorded.calls.map((c) => c.prefix)).toEqual(['data']);
  });
});

describe('listMapped for a caller scoped inside a mapped bucket', () => {
  it('shows only the granted keys of each mapped bucket, across the client-level bucket', async () => {
    const recorded: Recorded = { calls: [] };
    const identity = keyHolder([scope('acct:a', ['dir/']), scope('acct:b', [])]);
    const child = (path: string, keys: string[]): ListedChild => ({
      path,
      ctx: bucketContext(`acct:${path}`, memoryStore(keys, recorded.calls), identity),
    });
    const children = [child('a', ['dir/1', 'dir/2', 'secret']), child('b', ['y'])];
    const ctx = bucketContext('acct', memoryStore([], recorded.calls), identity);
    const keys: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 10; page++) {
      const out = shown(String((await listMapped(ctx, 'acct', params({ maxKeys: 1, continuationToken: token }), children, LIST_ACCESS)).body));
      keys.push(...out.keys);
      expect(revealed(out.token)).not.toContain('secret');
      if (!out.truncated) break;
      token = out.token;
    }
    expect(keys).toEqual(['a/dir/1', 'a/dir/2', 'b/y']);
  });
});
