import { createHash } from 'node:crypto';
import type { Keys } from '../support/clients';
import { reportedCacheControl, TRANSPORT_RUNTIMES, type RuntimeName } from '../support/gateway';
import { seededRandom } from '../support/random';
import { errorCode, rawRequest } from '../support/raw-request';
import { startStoreBuckets, useGatewayOverStores, type StoreBuckets } from './store-buckets';

/**
 * Object headers on every kind of bucket.
 *
 * User metadata round trips: a seeded stream of PUTs carrying `x-amz-meta-*` headers
 * with names of letters, digits, `-` and `_` in any order and printable values, each read back with a HEAD,
 * which must show exactly the names (lower-cased, as S3 shows them) and values that were sent. On Azure a
 * name Azure cannot hold, or that would read back as another, is refused with 400 InvalidArgument and nothing
 * is written (backends.md). S3's limit holds on every store: 2 KiB of names and values, and more is 400
 * MetadataTooLarge (operations.md#limits). What Azure and GCS cannot keep
 * (SSE-C and KMS keys, tags, object lock, website redirects) is refused with 501, never dropped.
 *
 * `response-*` overrides: a seeded stream of signed GETs and HEADs with any of S3's six overrides, whose
 * answers must carry each as the header it names (on Azure and GCS buckets all but `response-expires`,
 * and on the edge with `no-transform` added to the Cache-Control of GET answers Cloudflare would compress or
 * decode, a text type or a gzip encoding: backends.md, deploy-edge.md).
 */
const WRITER: Keys = { accessKeyId: 'METAWRITER0000000000', secretAccessKey: 'meta/writer/secret/00000000000000000000' };
const PUTS = Number(process.env.METADATA_PUTS ?? 60);

let stores: StoreBuckets;

beforeAll(async () => {
  stores = await startStoreBuckets('meta');
}, 180_000);

afterAll(() => stores?.stop());

/** Whether the gateway can store `name` on Azure (letters, digits, `-`, `_`; a letter first; no `-` before `-` or `_`). */
const azureStorable = (name: string): boolean => /^[a-z](?:[a-z0-9_]|-(?![-_]))*$/i.test(name);

describe.each(TRANSPORT_RUNTIMES)('user metadata through the gateway (%s runtime)', (runtime: RuntimeName) => {
  // With the actions tags and object lock headers need, so an Azure or GCS bucket's own refusal is what answers.
  const gw = useGatewayOverStores(runtime, () => stores, WRITER, ['put_object', 'head_object', 'get_object', 'put_object_tagging', 'put_object_retention', 'put_object_legal_hold']);

  it.each(['s3', 'azure', 'gcs'])('a %s bucket gives back the metadata it was given', async (bucket) => {
    const random = seededRandom(bucket.length * 13 + runtime.length);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
    // RGW turns `_` in a metadata name into `-` (backends.md): S3 buckets here get names without one.
    const nameCharacters = bucket === 's3' ? ['a', 'B', '1', '-', '-'] : ['a', 'B', '1', '-', '_', '-', '_'];
    const mismatches: string[] = [];
    for (let i = 0; i < PUTS; i++) {
      const metadata: Record<string, string> = {};
      for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
        const name = pick(['a', 'K', 'x']) + Array.from({ length: Math.floor(random() * 6) }, () => pick(nameCharacters)).join('');
        metadata[name.toLowerCase()] = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pick(['v', 'W', '7', ' ', '-', '_', '=', ';', ',', '/', '"'])).join('').trim() || 'v';
      }
      const key = `meta-${runtime}-${i}`;
      const headers = Object.fromEntries(Object.entries(metadata).map(([name, value]) => [`x-amz-meta-${name}`, value]));
      const put = await rawRequest(gw.endpoint, { method: 'PUT', target: `/${bucket}/${key}`, headers, body: 'x' }, WRITER);
      const refused = bucket === 'azure' && !Object.keys(metadata).every(azureStorable);
      if (refused) {
        if (put.status !== 400 || errorCode(put.body) !== 'InvalidArgument') mismatches.push(`${JSON.stringify(metadata)}: PUT ${put.status}, expected 400 InvalidArgument`);
        continue;
      }
      if (put.status !== 200) {
        mismatches.push(`${JSON.stringify(metadata)}: PUT ${put.status} ${errorCode(put.body) ?? ''}`);
        continue;
      }
      const head = await rawRequest(gw.endpoint, { method: 'HEAD', target: `/${bucket}/${key}` }, WRITER);
      const got = Object.fromEntries(
        Object.entries(head.headers)
          .filter(([name]) => name.startsWith('x-amz-meta-'))
          .map(([name, value]) => [name.slice('x-amz-meta-'.length), String(value)]),
      );
      if (JSON.stringify(Object.entries(got).sort()) !== JSON.stringify(Object.entries(metadata).sort())) {
        mismatches.push(`${JSON.stringify(metadata)}: read back ${JSON.stringify(got)}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 300_000);

  it.each(['s3', 'azure', 'gcs'])('a %s bucket takes 2 KiB of user metadata and refuses more with MetadataTooLarge, storing nothing', async (bucket) => {
    // Names after `x-amz-meta-` and values, summed: 5 + 1000 + 6 + 1037 bytes is S3's 2,048.
    const metadata = (extra: number): Record<string, string> => ({ 'x-amz-meta-first': 'v'.repeat(1000), 'x-amz-meta-second': 'w'.repeat(1037 + extra) });
    const target = (name: string): string => `/${bucket}/meta-limit-${name}-${runtime}`;
    const atLimit = await rawRequest(gw.endpoint, { method: 'PUT', target: target('at'), headers: metadata(0), body: 'x' }, WRITER);
    expect(atLimit.status).toBe(200);
    const head = await rawRequest(gw.endpoint, { method: 'HEAD', target: target('at') }, WRITER);
    expect([head.headers['x-amz-meta-first'], head.headers['x-amz-meta-second']]).toEqual([metadata(0)['x-amz-meta-first'], metadata(0)['x-amz-meta-second']]);
    const over = await rawRequest(gw.endpoint, { method: 'PUT', target: target('over'), headers: metadata(1), body: 'x' }, WRITER);
    expect([over.status, errorCode(over.body)]).toEqual([400, 'MetadataTooLarge']);
    expect(over.body).toContain('<Size>2049</Size>');
    expect((await rawRequest(gw.endpoint, { method: 'HEAD', target: target('over') }, WRITER)).status).toBe(404);
  }, 60_000);

  // Azure keeps tags (blob index tags: azure-tags.test.ts); GCS keeps none.
  it.each(['azure', 'gcs'])('a %s bucket refuses what it cannot keep (own or KMS keys, tags on GCS, object lock, a redirect) and writes nothing', async (bucket) => {
    const sseC = {
      'x-amz-server-side-encryption-customer-algorithm': 'AES256',
      'x-amz-server-side-encryption-customer-key': Buffer.alloc(32, 7).toString('base64'),
      'x-amz-server-side-encryption-customer-key-md5': createHash('md5').update(Buffer.alloc(32, 7)).digest('base64'),
    };
    const refused: Record<string, string>[] = [
      sseC,
      { 'x-amz-server-side-encryption': 'aws:kms', 'x-amz-server-side-encryption-aws-kms-key-id': 'alias/mine' },
      ...(bucket === 'gcs' ? [{ 'x-amz-tagging': 'team=a' }] : []),
      { 'x-amz-object-lock-mode': 'COMPLIANCE', 'x-amz-object-lock-retain-until-date': '2099-01-01T00:00:00Z' },
      { 'x-amz-object-lock-legal-hold': 'ON' },
      { 'x-amz-website-redirect-location': '/elsewhere' },
    ];
    for (const [i, headers] of refused.entries()) {
      const target = `/${bucket}/unkept-${runtime}-${i}`;
      const put = await rawRequest(gw.endpoint, { method: 'PUT', target, headers, body: 'x' }, WRITER);
      expect([JSON.stringify(headers), put.status, errorCode(put.body)]).toEqual([JSON.stringify(headers), 501, 'NotImplemented']);
      expect(put.body).toMatch(/<Header>x-amz-/);
      expect((await rawRequest(gw.endpoint, { method: 'HEAD', target }, WRITER)).status).toBe(404);
    }
    const target = `/${bucket}/unkept-${runtime}-sse-s3`;
    expect((await rawRequest(gw.endpoint, { method: 'PUT', target, headers: { 'x-amz-server-side-encryption': 'AES256' }, body: 'x' }, WRITER)).status).toBe(200);
    const read = await rawRequest(gw.endpoint, { method: 'GET', target, headers: sseC }, WRITER);
    expect([read.status, errorCode(read.body)]).toEqual([400, 'InvalidRequest']);
  }, 60_000);

  const OVERRIDES: Readonly<Record<string, readonly string[]>> = {
    'response-content-type': ['text/html', 'application/x-thing; charset=utf-8'],
    'response-content-disposition': ['attachment; filename="a b.txt"', 'inline'],
    'response-content-encoding': ['gzip', 'identity'],
    'response-content-language': ['de-CH', 'en'],
    'response-cache-control': ['no-store', 'max-age=60, public'],
    'response-expires': ['Thu, 01 Jan 2099 00:00:00 GMT'],
  };

  it.each(['s3', 'azure', 'gcs'])('a %s bucket answers with the response-* overrides a signed read asks for', async (bucket) => {
    const key = `overrides-${runtime}`;
    expect((await rawRequest(gw.endpoint, { method: 'PUT', target: `/${bucket}/${key}`, headers: { 'content-type': 'text/plain' }, body: 'x' }, WRITER)).status).toBe(200);
    const random = seededRandom(bucket.length * 7 + runtime.length);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
    const mismatches: string[] = [];
    for (let i = 0; i < PUTS; i++) {
      const asked = Object.entries(OVERRIDES)
        .filter(() => random() < 0.4)
        .map(([name, values]) => [name, pick(values)] as const);
      const method = random() < 0.5 ? 'GET' : 'HEAD';
      const query = asked.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
      const res = await rawRequest(gw.endpoint, { method, target: `/${bucket}/${key}${query ? `?${query}` : ''}` }, WRITER);
      // What Cloudflare would compress (the stored text/plain, or text/html) or decode (gzip): GET answers alone.
      const override = (name: string): string | undefined => asked.find(([asking]) => asking === name)?.[1];
      const type = override('response-content-type') ?? 'text/plain';
      const transformable = method === 'GET' && (type.startsWith('text/') || override('response-content-encoding') === 'gzip');
      for (const [name, value] of asked) {
        if (bucket !== 's3' && name === 'response-expires') continue;
        const header = name.slice('response-'.length);
        const expected = header === 'cache-control' ? reportedCacheControl(runtime, value, transformable) : value;
        if (res.status !== 200 || res.headers[header] !== expected) mismatches.push(`${method} ?${query}: ${res.status}, ${header} ${JSON.stringify(res.headers[header])}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 300_000);
});
