import { CreateMultipartUploadCommand, DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { compareKeys } from '../../functions/core/keys';
import { childOf, decodeEntities, listOf, parseXml, textOf, type ParsedXml } from '../../functions/core/xml';
import type { Keys } from '../support/clients';
import { bucketToml, credentialToml, everywhere, s3Options } from '../support/config-toml';
import { startGateway, TRANSPORT_RUNTIMES, type RunningGateway, type RuntimeName } from '../support/gateway';
import { seededRandom } from '../support/random';
import { rawRequest } from '../support/raw-request';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, type Azurite } from '../support/azurite';
import { startGcsEmulator, type GcsEmulator } from '../support/gcs-emulator';

/**
 * Listings against a model of S3's: seeded random walks (V1 and V2, a prefix, a delimiter, max-keys,
 * start-after or a marker, URL encoding) paged to their end through the gateway, each compared entry by
 * entry with what S3's rules give over the keys the caller may see. Keys mix nested folders, keys that are
 * prefixes of others, spaces, `+`, `%`, `-`, `~` and non-ASCII names, so the order is S3's (UTF-8 bytes).
 * A common prefix is an entry in that order like a key: a position at or inside it does not show it again.
 *
 * The model is checked first against RGW itself for the whole bucket. The gateway is then held to it on
 * RGW, Azure (Azurite) and GCS (the storage emulator) buckets: whole, under a `backend_prefix`, and for a
 * caller whose scopes grant a few ranges of keys (which the gateway reads range by range and folds into
 * common prefixes itself); and for the account-level listing of a path-mapped deployment, across its
 * mapped buckets.
 */
const ADMIN: Keys = { accessKeyId: 'LISTADMIN00000000000', secretAccessKey: 'list/admin/secret/000000000000000000000' };
const SCOPED: Keys = { accessKeyId: 'LISTSCOPED0000000000', secretAccessKey: 'list/scoped/secret/00000000000000000000' };
/** SCOPED's list_bucket grants in `lst`: several runs under the prefix `a`, which `a` itself covers. */
const GRANTED = ['a', 'ab', 'a b/', 'a-b', 'z'];
const SEGMENTS = ['a', 'b', 'ab', 'a b', 'a+b', 'a-b', '%41', '~x', 'é', 'z', '日本', 'a.b'];
const WALKS = Number(process.env.LISTING_WALKS ?? 60);

interface Listing {
  readonly bucket: string;
  readonly version: 1 | 2;
  readonly prefix?: string;
  readonly delimiter?: string;
  readonly maxKeys?: number;
  readonly start?: string;
  readonly url: boolean;
}

/** What a listing shows, page after page: keys and common prefixes in order (prefixes marked). */
type Shown = string[];

let rgw: Rgw;
let azurite: Azurite;
let gcs: GcsEmulator;
let direct: S3Client;
const keys: string[] = [];

function randomKeys(random: () => number): string[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const out = new Set<string>();
  while (out.size < 140) {
    const depth = 1 + Math.floor(random() * 3);
    const parts = Array.from({ length: depth }, () => pick(SEGMENTS));
    out.add(parts.join('/'));
  }
  return [...out];
}

beforeAll(async () => {
  [rgw, azurite, gcs] = await Promise.all([startRgw(), startAzurite(), startGcsEmulator()]);
  await Promise.all([createBucket(rgw, 'lst'), createBucket(rgw, 'vlst', { versioning: true }), createBucket(rgw, 'ulst'), createBucket(rgw, 'pctu'), azurite.createContainer('lst')]);
  direct = rgwS3Client(rgw);
  keys.push(...randomKeys(seededRandom(2511)));
  const all = [...keys, ...keys.filter((_, i) => i % 3 === 0).map((k) => `t/${k}`)];
  for (let i = 0; i < all.length; i += 16) {
    await Promise.all(
      all.slice(i, i + 16).flatMap((key) => [direct.send(new PutObjectCommand({ Bucket: 'lst', Key: key, Body: key })), azurite.putBlob('lst', key, key), gcs.upload('lst', key, key)]),
    );
  }
  keys.push(...all.slice(keys.length));
  // Every other key in a versioned bucket: one to three versions each, and every fifth of those deleted.
  const versioned = keys.filter((_, i) => i % 2 === 0);
  await Promise.all(
    versioned.map(async (Key, i) => {
      for (let v = 0; v <= i % 3; v++) await direct.send(new PutObjectCommand({ Bucket: 'vlst', Key, Body: `${Key} ${v}` }));
      if (i % 5 === 0) await direct.send(new DeleteObjectCommand({ Bucket: 'vlst', Key }));
    }),
  );
  // A multipart upload begun for every key, two for every third. Not for names holding a
  // character up to `.`: RGW lists uploads in the order of `key.uploadId` and pages them by key, so `a-b/x`
  // comes before `a`'s own uploads and a page starting after `a` loses it (backends.md).
  await Promise.all(
    keys
      .filter((key) => !/[\x20-\x2e]/.test(key))
      .map(async (Key, i) => {
        for (let u = 0; u <= (i % 3 === 0 ? 1 : 0); u++) await direct.send(new CreateMultipartUploadCommand({ Bucket: 'ulst', Key }));
      }),
  );
  for (const Key of ['pct/k%41', 'pct/k%41', 'pct/k5']) await direct.send(new CreateMultipartUploadCommand({ Bucket: 'pctu', Key }));
}, 180_000);

afterAll(async () => {
  direct?.destroy();
  await Promise.all([rgw?.stop(), azurite?.stop(), gcs?.stop()]);
});

/** RFC 3986 encoding of a query value, as SigV4 canonicalizes it. */
function q(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** S3's listing over `visible` (sorted), all pages at once: keys and common prefixes in order. */
function model(visible: readonly string[], l: Listing): Shown {
  const prefix = l.prefix ?? '';
  const shown: Shown = [];
  for (const key of visible) {
    if (!key.startsWith(prefix)) continue;
    if (l.start !== undefined && compareKeys(key, l.start) <= 0) continue;
    const at = l.delimiter === undefined ? -1 : key.indexOf(l.delimiter, prefix.length);
    if (at < 0) {
      shown.push(key);
      continue;
    }
    // A common prefix is an entry in key order like any other: one at or before the start is not shown,
    // also when the start lies inside it (as RGW lists).
    const cp = key.slice(0, at + l.delimiter!.length);
    if (l.start !== undefined && compareKeys(cp, l.start) <= 0) continue;
    if (shown[shown.length - 1] !== `CP:${cp}`) shown.push(`CP:${cp}`);
  }
  return shown;
}

function text(node: ParsedXml | undefined, name: string): string | undefined {
  return textOf(childOf(node, name));
}

/** Pages `l` to its end at `endpoint`, checking each page's own fields; what it showed, in order. */
async function walk(endpoint: string, who: Keys, l: Listing, rgwMarkers = false): Promise<Shown> {
  const shown: Shown = [];
  let position: string | undefined;
  for (let page = 0; page < 400; page++) {
    const params: string[] = [];
    if (l.version === 2) params.push('list-type=2');
    if (l.prefix !== undefined) params.push(`prefix=${q(l.prefix)}`);
    if (l.delimiter !== undefined) params.push(`delimiter=${q(l.delimiter)}`);
    if (l.maxKeys !== undefined) params.push(`max-keys=${l.maxKeys}`);
    if (l.url) params.push('encoding-type=url');
    if (l.version === 2) {
      if (position !== undefined) params.push(`continuation-token=${q(position)}`);
      else if (l.start !== undefined) params.push(`start-after=${q(l.start)}`);
    } else {
      const marker = position ?? l.start;
      if (marker !== undefined) params.push(`marker=${q(marker)}`);
    }
    const target = `/${l.bucket}?${params.join('&')}`;
    const res = await rawRequest(endpoint, { method: 'GET', target }, who);
    if (res.status !== 200) throw new Error(`${target}: ${res.status} ${res.body}`);
    const doc = childOf(parseXml(res.body), 'ListBucketResult');
    const decode = (v: string | undefined): string | undefined => (v !== undefined && l.url ? decodeURIComponent(v) : v);
    const contents = listOf(doc, 'Contents').map((c) => decode(text(c, 'Key'))!);
    const prefixes = listOf(doc, 'CommonPrefixes').map((c) => decode(text(c, 'Prefix'))!);
    const onPage = [...contents, ...prefixes.map((p) => `CP:${p}`)].sort((a, b) => compareKeys(a.replace(/^CP:/, ''), b.replace(/^CP:/, '')));
    expect(onPage.length).toBeLessThanOrEqual(l.maxKeys ?? 1000);
    if (l.version === 2) expect(Number(text(doc, 'KeyCount'))).toBe(onPage.length);
    shown.push(...onPage);
    if (text(doc, 'IsTruncated') !== 'true') return shown;
    if (l.version === 2) {
      position = text(doc, 'NextContinuationToken');
      expect(position).toBeTruthy();
    } else {
      // S3 sends NextMarker only with a delimiter; without one the client resumes from the last key.
      // RGW writes NextMarker unencoded with encoding-type=url, where S3 (and the gateway) encode it.
      const next = text(doc, 'NextMarker');
      position = (rgwMarkers ? next : decode(next)) ?? contents[contents.length - 1];
      expect(position).toBeDefined();
    }
  }
  throw new Error(`${JSON.stringify(l)}: no end after 400 pages`);
}

/**
 * A random listing of `bucket` over `names`; `listable` says which prefixes the caller may list (a listing's
 * prefix must be covered by a grant), and another prefix becomes `a`.
 */
function randomListing(random: () => number, bucket: string, names: readonly string[], listable = (_prefix: string) => true): Listing {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const cut = (s: string): string => s.slice(0, Math.floor(random() * (s.length + 1)));
  const r = random();
  const prefix = r < 0.3 ? '' : r < 0.8 ? cut(pick(names)) : pick(['a', 'a/', 'é', 'zz', '日']);
  return {
    bucket,
    version: random() < 0.5 ? 1 : 2,
    prefix: listable(prefix) ? prefix || undefined : 'a',
    delimiter: pick([undefined, undefined, '/', '/', '-', 'b', ' ']),
    maxKeys: pick([undefined, 1, 2, 3, 5, 8, 1000]),
    start: random() < 0.6 ? undefined : random() < 0.7 ? cut(pick(names)) : pick(names),
    url: random() < 0.5,
  };
}

/** Whether a grant on `prefix` covers `key` (configuration.md: `data` covers `data` and `data/…`). */
const covers = (prefix: string, key: string): boolean => (prefix === '' || prefix.endsWith('/') ? key.startsWith(prefix) : key === prefix || key.startsWith(`${prefix}/`));
const granted = (key: string): boolean => GRANTED.some((p) => covers(p, key));

const sorted = (list: readonly string[]): string[] => [...list].sort(compareKeys);

describe('the model', () => {
  it('gives what RGW itself lists, for every walk', async () => {
    const random = seededRandom(7);
    const all = sorted(keys);
    for (let i = 0; i < WALKS; i++) {
      const l = randomListing(random, 'lst', all);
      const got = await walk(rgw.endpoint, rgw, l, true);
      expect({ listing: l, shown: got }).toEqual({ listing: l, shown: model(all, l) });
    }
  }, 300_000);
});

describe.each(TRANSPORT_RUNTIMES)('listings through the gateway (%s runtime)', (runtime: RuntimeName) => {
  let gw: RunningGateway;

  beforeAll(async () => {
    const bucket = (name: string, extra = {}): string => bucketToml({ name, backend_type: 's3' }, s3Options(rgw.endpoint, 'lst', rgw, extra));
    const azure = (name: string, extra = {}): string =>
      bucketToml({ name, backend_type: 'azure' }, { account_name: AZURITE_ACCOUNT, container_name: 'lst', endpoint: azurite.endpoint, access_key: { env: 'AZURE_KEY' }, ...extra });
    const config = [
      bucket('lst'),
      bucket('tenant', { backend_prefix: 't/' }),
      azure('azure'),
      azure('azure-tenant', { backend_prefix: 't/' }),
      bucketToml({ name: 'gcs', backend_type: 'gcs' }, { bucket_name: 'lst', endpoint: gcs.endpoint, api: 'json' }),
      credentialToml(ADMIN, { principal_name: 'admin' }, [everywhere(['list_bucket'])]),
      credentialToml(SCOPED, { principal_name: 'scoped' }, ['lst', 'azure', 'gcs'].map((b) => ({ bucket: b, prefixes: GRANTED, actions: ['list_bucket'] }))),
    ].join('\n');
    gw = await startGateway(runtime, { config, env: { AZURE_KEY: AZURITE_KEY } });
  }, 60_000);

  afterAll(() => gw?.stop());

  const whole = (k: string): string => k;
  const underT = (k: string): string | undefined => (k.startsWith('t/') ? k.slice(2) : undefined);
  const inGrant = (k: string): string | undefined => (granted(k) ? k : undefined);
  it.each([
    ['the whole bucket', 'lst', ADMIN, whole, undefined, 11],
    ['a bucket under a backend_prefix', 'tenant', ADMIN, underT, undefined, 12],
    ['a caller granted a few ranges', 'lst', SCOPED, inGrant, granted, 13],
    ['Azure: the whole container', 'azure', ADMIN, whole, undefined, 21],
    ['Azure: under a backend_prefix', 'azure-tenant', ADMIN, underT, undefined, 22],
    ['Azure: a caller granted a few ranges', 'azure', SCOPED, inGrant, granted, 23],
    ['GCS: the whole bucket', 'gcs', ADMIN, whole, undefined, 31],
    ['GCS: a caller granted a few ranges', 'gcs', SCOPED, inGrant, granted, 33],
  ] as const)('%s: every walk shows what S3 would', async (_, bucket, who, visibleAs, listable, seed) => {
    const visible = sorted(keys.map(visibleAs).filter((k): k is string => k !== undefined));
    const random = seededRandom(seed);
    let total = 0;
    for (let i = 0; i < WALKS; i++) {
      const l = randomListing(random, bucket, visible, listable);
      const got = await walk(gw.endpoint, who, l);
      expect({ listing: l, shown: got }).toEqual({ listing: l, shown: model(visible, l) });
      total += got.length;
    }
    // The walks list something: a gateway answering every listing empty would not pass.
    expect(total).toBeGreaterThan(WALKS);
  }, 300_000);
});

/**
 * A path-mapped deployment (`/{account}/{repo}/{key}`): the account-level listing spans the mapped buckets,
 * each a run of RGW's keys under `{repo}/` (its backend_prefix), so the client's keys are RGW's own.
 */
describe.each(TRANSPORT_RUNTIMES)('account-level listings of a path-mapped deployment (%s runtime)', (runtime: RuntimeName) => {
  const REPOS = ['a', 'ab', 'a-b', 'z'];
  /** SCOPED may list two of the mapped buckets, whole. */
  const LISTED = ['a', 'z'];
  let gw: RunningGateway;

  beforeAll(async () => {
    const mapped = REPOS.map((repo) => bucketToml({ name: `acme:${repo}`, backend_type: 's3' }, s3Options(rgw.endpoint, 'lst', rgw, { backend_prefix: `${repo}/` })));
    const config = [
      '[path_mapping]\nsegments = 2\n',
      ...mapped,
      credentialToml(ADMIN, { principal_name: 'admin' }, [everywhere(['list_bucket'])]),
      credentialToml(SCOPED, { principal_name: 'scoped' }, LISTED.map((repo) => ({ bucket: `acme:${repo}`, actions: ['list_bucket'] }))),
    ].join('\n');
    gw = await startGateway(runtime, { config });
  }, 60_000);

  afterAll(() => gw?.stop());

  const under = (repos: readonly string[]) => (k: string): boolean => repos.some((repo) => k.startsWith(`${repo}/`));
  it.each([
    ['every mapped bucket', ADMIN, REPOS, 41],
    ['a caller who may list two of them', SCOPED, LISTED, 42],
  ] as const)('%s: every walk shows what S3 would over their keys', async (_, who, repos, seed) => {
    const visible = sorted(keys.filter(under(repos)));
    for (const repo of REPOS) expect(keys.some(under([repo]))).toBe(true);
    // A prefix inside a mapped bucket the caller may not list is refused, so walks stay out of those.
    const hidden = REPOS.filter((repo) => !repos.includes(repo));
    const listable = (prefix: string): boolean => !hidden.some((repo) => prefix.startsWith(`${repo}/`));
    const random = seededRandom(seed);
    let total = 0;
    for (let i = 0; i < WALKS; i++) {
      const l = randomListing(random, 'acme', visible, listable);
      const got = await walk(gw.endpoint, who, l);
      expect({ listing: l, shown: got }).toEqual({ listing: l, shown: model(visible, l) });
      total += got.length;
    }
    // The walks list something: a gateway answering every listing empty would not pass.
    expect(total).toBeGreaterThan(WALKS);
  }, 300_000);
});

/**
 * A key marker given alone, naming a key that holds `%41`: S3 starts after that key's uploads, which RGW
 * lists again. The gateway leaves them out and asks for the next page after the last one, which it must
 * name as the key it is, not as RGW's NextKeyMarker reads (unencoded, whatever `encoding-type` asked).
 */
describe.each(TRANSPORT_RUNTIMES)('multipart upload listings after a key marker alone (%s runtime)', (runtime: RuntimeName) => {
  let gw: RunningGateway;

  beforeAll(async () => {
    const config = [
      bucketToml({ name: 'ulst', backend_type: 's3' }, s3Options(rgw.endpoint, 'pctu', rgw)),
      credentialToml(ADMIN, { principal_name: 'admin' }, [everywhere(['list_bucket'])]),
    ].join('\n');
    gw = await startGateway(runtime, { config });
  }, 60_000);

  afterAll(() => gw?.stop());

  it.each([false, true])('start after every upload of that key, and go on from there (encoding-type=url: %s)', async (url) => {
    const l: Listing = { bucket: 'ulst', version: 2, prefix: 'pct/', maxKeys: 2, start: 'pct/k%41', url };
    expect(await walkEntries(UPLOADS, gw.endpoint, ADMIN, l)).toEqual([expect.stringMatching(/^U:pct\/k5#/)]);
  });
});

/** What a kind of entry listing is asked with and answers. */
interface EntryListing {
  /** The subresource, its page size parameter, and its second marker. */
  readonly subresource: string;
  readonly maxParam: string;
  readonly idMarker: string;
  /** Entries in document order: their element names and id field, and the letter each is shown with. */
  readonly elements: Readonly<Record<string, string>>;
  readonly idField: string;
}

const VERSIONS: EntryListing = { subresource: 'versions', maxParam: 'max-keys', idMarker: 'version-id-marker', elements: { Version: 'V', DeleteMarker: 'D' }, idField: 'VersionId' };
const UPLOADS: EntryListing = { subresource: 'uploads', maxParam: 'max-uploads', idMarker: 'upload-id-marker', elements: { Upload: 'U' }, idField: 'UploadId' };

/**
 * ListObjectVersions and ListMultipartUploads the same way, on RGW buckets: every version and delete marker
 * (or upload) of the keys the caller may see, in RGW's order (key order; newest version first within a key,
 * uploads in RGW's order), paged by key and version (or upload) markers. A key marker given alone starts
 * after every entry of that key, as S3 does.
 */
describe.each([
  ['version listings', VERSIONS, 'vlst', 'list_bucket_versions', 50],
  ['multipart upload listings', UPLOADS, 'ulst', 'list_bucket', 70],
] as const)('%s', (_, kind, backendBucket, action, seeds) => {
  /** Every entry in RGW's order: its letter, `:`, its key, `#` and its id. */
  let all: string[];
  const keyOf = (entry: string): string => entry.slice(2, entry.lastIndexOf('#'));
  /**
   * Uploads of the same key come in RGW's order (by upload id), which the gateway passes on: their walks
   * are compared as sorted lists (nothing missing, nothing twice). Versions are compared in order.
   */
  const inOrder = (shown: Shown): Shown => (kind === UPLOADS ? [...shown].sort() : shown);
  /** RGW answers ListMultipartUploads with a delimiter with a few uploads and no common prefixes (backends.md). */
  const listing = (random: () => number, bucket: string, names: readonly string[], listable?: (prefix: string) => boolean): Listing => {
    const l = randomListing(random, bucket, names, listable);
    return kind === UPLOADS ? { ...l, delimiter: undefined } : l;
  };

  beforeAll(async () => {
    all = await walkEntries(kind, rgw.endpoint, rgw, { bucket: backendBucket, version: 2, url: true }, true);
    expect(all.length).toBeGreaterThan(40);
  });

  /**
   * The entries S3 lists from `entries` (RGW's order, keys already in the caller's space). `rgw`: as RGW
   * lists them, which starts a key marker given alone at that key's entries.
   */
  function entryModel(entries: readonly string[], l: Listing, rgw = false): Shown {
    const prefix = l.prefix ?? '';
    const shown: Shown = [];
    for (const entry of entries) {
      const key = keyOf(entry);
      if (!key.startsWith(prefix) || (l.start !== undefined && compareKeys(key, l.start) < (rgw ? 0 : 1))) continue;
      const at = l.delimiter === undefined ? -1 : key.indexOf(l.delimiter, prefix.length);
      if (at < 0) {
        shown.push(entry);
        continue;
      }
      const cp = key.slice(0, at + l.delimiter!.length);
      if (l.start !== undefined && compareKeys(cp, l.start) <= 0) continue;
      if (shown[shown.length - 1] !== `CP:${cp}`) shown.push(`CP:${cp}`);
    }
    return shown;
  }

  it('the model gives what RGW itself lists, for every walk', async () => {
    const random = seededRandom(seeds);
    const names = [...new Set(all.map(keyOf))];
    for (let i = 0; i < WALKS; i++) {
      const l = listing(random, backendBucket, names);
      expect({ listing: l, shown: inOrder(await walkEntries(kind, rgw.endpoint, rgw, l, true)) }).toEqual({ listing: l, shown: inOrder(entryModel(all, l, true)) });
    }
  }, 300_000);

  describe.each(TRANSPORT_RUNTIMES)('through the gateway (%s runtime)', (runtime: RuntimeName) => {
    let gw: RunningGateway;

    beforeAll(async () => {
      const bucket = (name: string, extra = {}): string => bucketToml({ name, backend_type: 's3' }, s3Options(rgw.endpoint, backendBucket, rgw, extra));
      const config = [
        bucket('whole'),
        bucket('tenant', { backend_prefix: 't/' }),
        credentialToml(ADMIN, { principal_name: 'admin' }, [everywhere([action])]),
        credentialToml(SCOPED, { principal_name: 'scoped' }, [{ bucket: 'whole', prefixes: GRANTED, actions: [action] }]),
      ].join('\n');
      gw = await startGateway(runtime, { config });
    }, 60_000);

    afterAll(() => gw?.stop());

    const rename = (entry: string, key: string): string => `${entry.slice(0, 2)}${key}${entry.slice(entry.lastIndexOf('#'))}`;
    it.each([
      ['the whole bucket', 'whole', ADMIN, (e: string) => e, undefined, 1],
      ['a bucket under a backend_prefix', 'tenant', ADMIN, (e: string) => (keyOf(e).startsWith('t/') ? rename(e, keyOf(e).slice(2)) : undefined), undefined, 2],
      ['a caller granted a few ranges', 'whole', SCOPED, (e: string) => (granted(keyOf(e)) ? e : undefined), granted, 3],
    ] as const)('%s: every walk shows what S3 would', async (_label, bucket, who, visibleAs, listable, seed) => {
      const visible = all.map(visibleAs).filter((e): e is string => e !== undefined);
      const names = [...new Set(visible.map(keyOf))];
      const random = seededRandom(seeds + seed);
      let total = 0;
      for (let i = 0; i < WALKS; i++) {
        const l = listing(random, bucket, names, listable);
        const got = await walkEntries(kind, gw.endpoint, who, l);
        expect({ listing: l, shown: inOrder(got) }).toEqual({ listing: l, shown: inOrder(entryModel(visible, l)) });
        total += got.length;
      }
      expect(total).toBeGreaterThan(WALKS);
    }, 300_000);

    // Under `a` with `/`, each granted range is one key or folds into a common prefix the gateway decides
    // itself, so RGW is never asked with a delimiter (which it gets wrong for uploads): the folds, walked.
    it('a caller granted a few ranges, listing `a` with `/`: the folded prefixes, from any position', async () => {
      const visible = all.filter((e) => granted(keyOf(e)));
      const names = [...new Set(visible.map(keyOf))];
      const random = seededRandom(seeds + 4);
      for (let i = 0; i < WALKS; i++) {
        const l: Listing = { ...randomListing(random, 'whole', names, granted), prefix: 'a', delimiter: '/' };
        expect({ listing: l, shown: inOrder(await walkEntries(kind, gw.endpoint, SCOPED, l)) }).toEqual({ listing: l, shown: inOrder(entryModel(visible, l)) });
      }
    }, 300_000);
  });
});

/**
 * Pages a version or upload listing to its end (`l.start` as the key marker); what it showed, in order:
 * each entry as its letter, `:`, its key, `#` and its id.
 */
async function walkEntries(kind: EntryListing, endpoint: string, who: Keys, l: Listing, rgwMarkers = false): Promise<Shown> {
  const shown: Shown = [];
  const names = Object.keys(kind.elements).join('|');
  let position: { key: string; id?: string } | undefined = l.start === undefined ? undefined : { key: l.start };
  for (let page = 0; page < 400; page++) {
    const params = [kind.subresource];
    if (l.prefix !== undefined) params.push(`prefix=${q(l.prefix)}`);
    if (l.delimiter !== undefined) params.push(`delimiter=${q(l.delimiter)}`);
    if (l.maxKeys !== undefined) params.push(`${kind.maxParam}=${l.maxKeys}`);
    if (l.url) params.push('encoding-type=url');
    if (position !== undefined) params.push(`key-marker=${q(position.key)}`);
    if (position?.id !== undefined) params.push(`${kind.idMarker}=${q(position.id)}`);
    const target = `/${l.bucket}?${params.join('&')}`;
    const res = await rawRequest(endpoint, { method: 'GET', target }, who);
    if (res.status !== 200) throw new Error(`${target}: ${res.status} ${res.body}`);
    const decode = (v: string): string => (l.url ? decodeURIComponent(v) : decodeEntities(v));
    const field = (xml: string, name: string): string | undefined => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
    const entries = [...res.body.matchAll(new RegExp(`<(${names})>(.*?)</\\1>`, 'g'))].map(
      (m) => `${kind.elements[m[1]]}:${decode(field(m[2], 'Key') ?? '')}#${field(m[2], kind.idField)}`,
    );
    const prefixes = [...res.body.matchAll(/<CommonPrefixes><Prefix>([^<]*)<\/Prefix><\/CommonPrefixes>/g)].map((m) => `CP:${decode(m[1])}`);
    const name = (e: string): string => (e.startsWith('CP:') ? e.slice(3) : e.slice(2, e.lastIndexOf('#')));
    // Document order within entries; common prefixes take their place in key order (a stable sort).
    const onPage = [...entries, ...prefixes].sort((a, b) => compareKeys(name(a), name(b)));
    expect(onPage.length).toBeLessThanOrEqual(l.maxKeys ?? 1000);
    shown.push(...onPage);
    if (field(res.body, 'IsTruncated') !== 'true') return shown;
    const nextKey = field(res.body, 'NextKeyMarker');
    expect(nextKey).toBeDefined();
    // RGW writes NextKeyMarker unencoded with encoding-type=url, where S3 (and the gateway) encode it.
    position = { key: rgwMarkers ? decodeEntities(nextKey!) : decode(nextKey!), id: field(res.body, `Next${kind.idField}Marker`) || undefined };
  }
  throw new Error(`${JSON.stringify(l)}: no end after 400 pages`);
}
