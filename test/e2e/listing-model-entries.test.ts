import { CreateMultipartUploadCommand, DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { bucketToml, credentialToml, everywhere, s3Options } from '../support/config-toml';
import { startGateway, TRANSPORT_RUNTIMES, type RunningGateway, type RuntimeName } from '../support/gateway';
import { seededRandom } from '../support/random';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';
import {
  ADMIN, GRANTED, SCOPED, UPLOADS, VERSIONS, WALKS, entryKey, granted, listingModel, modelKeys, randomListing, walkEntries, type Listing, type Shown,
} from './listing-model';

/**
 * ListObjectVersions and ListMultipartUploads against the model of listing-model.ts, on RGW buckets: every
 * version and delete marker (or upload) of the keys the caller may see, in RGW's order (key order; newest
 * version first within a key), paged by key and version (or upload) markers, compared with seeded random
 * walks through the gateway. A key marker given alone starts after every entry of that key, as S3 does.
 * Each model is checked first against RGW itself.
 */
let rgw: Rgw;
let direct: S3Client;
const keys = modelKeys();

beforeAll(async () => {
  rgw = await startRgw();
  await Promise.all([createBucket(rgw, 'vlst', { versioning: true }), createBucket(rgw, 'ulst'), createBucket(rgw, 'pctu')]);
  direct = rgwS3Client(rgw);
  // Every other key in a versioned bucket: one to three versions each, and every fifth of those deleted.
  const versioned = keys.filter((_, i) => i % 2 === 0);
  await Promise.all(
    versioned.map(async (Key, i) => {
      for (let v = 0; v <= i % 3; v++) await direct.send(new PutObjectCommand({ Bucket: 'vlst', Key, Body: `${Key} ${v}` }));
      if (i % 5 === 0) await direct.send(new DeleteObjectCommand({ Bucket: 'vlst', Key }));
    }),
  );
  // A multipart upload begun for every key, two for every third. Not for names holding a character up to
  // `.`: RGW lists uploads in the order of `key.uploadId` and pages them by key, so `a-b/x` comes before
  // `a`'s own uploads and a page starting after `a` loses it (backends.md).
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
  await rgw?.stop();
});

describe.each([
  ['version listings', VERSIONS, 'vlst', 'list_bucket_versions', 50],
  ['multipart upload listings', UPLOADS, 'ulst', 'list_bucket', 70],
] as const)('%s', (_, kind, backendBucket, action, seeds) => {
  /** Every entry in RGW's order: its letter, `:`, its key, `#` and its id. */
  let all: string[];
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

  it('the model gives what RGW itself lists, for every walk', async () => {
    const random = seededRandom(seeds);
    const names = [...new Set(all.map(entryKey))];
    for (let i = 0; i < WALKS; i++) {
      const l = listing(random, backendBucket, names);
      expect({ listing: l, shown: inOrder(await walkEntries(kind, rgw.endpoint, rgw, l, true)) }).toEqual({ listing: l, shown: inOrder(listingModel(all, l, entryKey, true)) });
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
      ['a bucket under a backend_prefix', 'tenant', ADMIN, (e: string) => (entryKey(e).startsWith('t/') ? rename(e, entryKey(e).slice(2)) : undefined), undefined, 2],
      ['a caller granted a few ranges', 'whole', SCOPED, (e: string) => (granted(entryKey(e)) ? e : undefined), granted, 3],
    ] as const)('%s: every walk shows what S3 would', async (_label, bucket, who, visibleAs, listable, seed) => {
      const visible = all.map(visibleAs).filter((e): e is string => e !== undefined);
      const names = [...new Set(visible.map(entryKey))];
      const random = seededRandom(seeds + seed);
      let total = 0;
      for (let i = 0; i < WALKS; i++) {
        const l = listing(random, bucket, names, listable);
        const got = await walkEntries(kind, gw.endpoint, who, l);
        expect({ listing: l, shown: inOrder(got) }).toEqual({ listing: l, shown: inOrder(listingModel(visible, l, entryKey)) });
        total += got.length;
      }
      expect(total).toBeGreaterThan(WALKS);
    }, 300_000);

    // Under `a` with `/`, each granted range is one key or folds into a common prefix the gateway decides
    // itself, so RGW is never asked with a delimiter (which it gets wrong for uploads): the folds, walked.
    it('a caller granted a few ranges, listing `a` with `/`: the folded prefixes, from any position', async () => {
      const visible = all.filter((e) => granted(entryKey(e)));
      const names = [...new Set(visible.map(entryKey))];
      const random = seededRandom(seeds + 4);
      for (let i = 0; i < WALKS; i++) {
        const l: Listing = { ...randomListing(random, 'whole', names, granted), prefix: 'a', delimiter: '/' };
        expect({ listing: l, shown: inOrder(await walkEntries(kind, gw.endpoint, SCOPED, l)) }).toEqual({ listing: l, shown: inOrder(listingModel(visible, l, entryKey)) });
      }
    }, 300_000);
  });
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
