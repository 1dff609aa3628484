import { PutObjectCommand, paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { startAzurite, type Azurite } from '../support/azurite';
import { jsClient } from '../support/clients';
import { azuriteOptions, bucketToml, credentialToml, everywhere, gcsEmulatorOptions, s3Options } from '../support/config-toml';
import { startGateway, TRANSPORT_RUNTIMES, type RunningGateway, type RuntimeName } from '../support/gateway';
import { startGcsEmulator, type GcsEmulator } from '../support/gcs-emulator';
import { seededRandom } from '../support/random';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';
import { ADMIN, GRANTED, SCOPED, WALKS, granted, listingModel, modelKeys, randomListing, sorted, walkObjects } from './listing-model';

/**
 * Object listings against a model of S3's (listing-model.ts): seeded random walks (V1 and V2, a prefix, a
 * delimiter, max-keys, start-after or a marker, URL encoding) paged to their end through the gateway, each
 * compared entry by entry with what S3's rules give over the keys the caller may see.
 *
 * The model is checked first against RGW itself for the whole bucket. The gateway is then held to it on
 * RGW, Azure (Azurite) and GCS (the storage emulator) buckets: whole, under a `backend_prefix`, and for a
 * caller whose scopes grant a few ranges of keys (which the gateway reads range by range and folds into
 * common prefixes itself); and for the account-level listing of a path-mapped deployment, across its
 * mapped buckets.
 */
let rgw: Rgw;
let azurite: Azurite;
let gcs: GcsEmulator;
let direct: S3Client;
const keys = modelKeys();

beforeAll(async () => {
  [rgw, azurite, gcs] = await Promise.all([startRgw(), startAzurite(), startGcsEmulator()]);
  await Promise.all([createBucket(rgw, 'lst'), azurite.createContainer('lst')]);
  direct = rgwS3Client(rgw);
  for (let i = 0; i < keys.length; i += 16) {
    await Promise.all(
      keys.slice(i, i + 16).flatMap((key) => [direct.send(new PutObjectCommand({ Bucket: 'lst', Key: key, Body: key })), azurite.putBlob('lst', key, key), gcs.upload('lst', key, key)]),
    );
  }
}, 180_000);

afterAll(async () => {
  direct?.destroy();
  await Promise.all([rgw?.stop(), azurite?.stop(), gcs?.stop()]);
});

describe('the model', () => {
  it('gives what RGW itself lists, for every walk', async () => {
    const random = seededRandom(7);
    const all = sorted(keys);
    for (let i = 0; i < WALKS; i++) {
      const l = randomListing(random, 'lst', all);
      const got = await walkObjects(rgw.endpoint, rgw, l, true);
      expect({ listing: l, shown: got }).toEqual({ listing: l, shown: listingModel(all, l) });
    }
  }, 300_000);
});

describe.each(TRANSPORT_RUNTIMES)('listings through the gateway (%s runtime)', (runtime: RuntimeName) => {
  let gw: RunningGateway;

  beforeAll(async () => {
    const bucket = (name: string, extra = {}): string => bucketToml({ name, backend_type: 's3' }, s3Options(rgw.endpoint, 'lst', rgw, extra));
    const azure = (name: string, extra = {}): string =>
      bucketToml({ name, backend_type: 'azure' }, { ...azuriteOptions(azurite.endpoint, 'lst'), ...extra });
    const config = [
      bucket('lst'),
      bucket('tenant', { backend_prefix: 't/' }),
      azure('azure'),
      azure('azure-tenant', { backend_prefix: 't/' }),
      bucketToml({ name: 'gcs', backend_type: 'gcs' }, gcsEmulatorOptions(gcs.endpoint, 'lst')),
      credentialToml(ADMIN, { principal_name: 'admin' }, [everywhere(['list_bucket'])]),
      credentialToml(SCOPED, { principal_name: 'scoped' }, ['lst', 'azure', 'gcs'].map((b) => ({ bucket: b, prefixes: GRANTED, actions: ['list_bucket'] }))),
    ].join('\n');
    gw = await startGateway(runtime, { config });
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
      const got = await walkObjects(gw.endpoint, who, l);
      expect({ listing: l, shown: got }).toEqual({ listing: l, shown: listingModel(visible, l) });
      total += got.length;
    }
    // The walks list something: a gateway answering every listing empty would not pass.
    expect(total).toBeGreaterThan(WALKS);
  }, 300_000);

  it.each(['lst', 'azure', 'azure-tenant', 'gcs'])('%s: every entry\'s ETag is its body\'s hex MD5, as S3 lists an object uploaded whole', async (bucket) => {
    const client = jsClient(gw.endpoint, ADMIN);
    try {
      const shown: [string, string | undefined][] = [];
      for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket })) for (const c of page.Contents ?? []) shown.push([c.Key ?? '', c.ETag]);
      const body = (key: string): string => (bucket === 'azure-tenant' ? `t/${key}` : key);
      expect(shown.length).toBeGreaterThan(0);
      expect(shown).toEqual(shown.map(([key]) => [key, `"${createHash('md5').update(body(key)).digest('hex')}"`]));
    } finally {
      client.destroy();
    }
  }, 60_000);
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
      const got = await walkObjects(gw.endpoint, who, l);
      expect({ listing: l, shown: got }).toEqual({ listing: l, shown: listingModel(visible, l) });
      total += got.length;
    }
    // The walks list something: a gateway answering every listing empty would not pass.
    expect(total).toBeGreaterThan(WALKS);
  }, 300_000);
});
