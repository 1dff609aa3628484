import { TRANSPORT_RUNTIMES } from '../support/gateway';
import { startGcsEmulator, type GcsEmulator } from '../support/gcs-emulator';
import { errorCode, rawRequest } from '../support/raw-request';
import { ADMIN, ADMIN_CREDENTIALS, SPECIAL_KEYS } from './fixtures';
import { describeStoreContract, seedStore, useStoreGateway } from './store-contract';

/**
 * Virtual buckets in Cloud Storage, through the firebase-tools storage emulator (JSON API, `api = "json"`),
 * for every operation it supports. The emulator checks no auth and has no preconditions: those checks
 * here are the gateway's own (docs/backends.md lists what only real GCS can show).
 */

let emulator: GcsEmulator;

function config(): string {
  const bucket = (name: string, extra = ''): string => `
[[buckets]]
name = "${name}"
backend_type = "gcs"
[buckets.backend_options]
bucket_name = "data"
endpoint = "${emulator.endpoint}"
api = "json"
${extra}`;
  return `
${bucket('gcs')}
${bucket('gcs-tenant', 'backend_prefix = "tenant-a/"')}

${ADMIN_CREDENTIALS}`;
}

describe.each(TRANSPORT_RUNTIMES)('a GCS backend (storage emulator, JSON API) through the gateway (%s runtime)', (runtime) => {
  // Fresh backends per runtime: the specifications write and count, so runtimes must not share state.
  beforeAll(async () => {
    emulator = await startGcsEmulator();
    await seedStore((key, body, contentType) => emulator.upload('data', key, body, contentType));
  }, 60_000);

  afterAll(() => emulator?.stop());

  const fx = useStoreGateway(runtime, () => ({ config: config() }));

  describeStoreContract(
    {
      runtime,
      bucket: 'gcs',
      tenantBucket: 'gcs-tenant',
      specialKeys: SPECIAL_KEYS.filter((k) => !["special/quote'", 'special/[brackets]', 'special/semi;colon', 'special/at@dollar$', 'special/comma,colon:'].includes(k)),
      etag: /^"[0-9a-f]{32}"$/,
      staleEtag: '"0123"',
      backendNames: async (prefix) => {
        const listed = (await (await fetch(`${emulator.endpoint}/storage/v1/b/data/o?prefix=${encodeURIComponent(prefix)}`)).json()) as { items?: { name: string }[] };
        return (listed.items ?? []).map((i) => i.name);
      },
      backendHas: async (name) => (await fetch(`${emulator.endpoint}/storage/v1/b/data/o/${encodeURIComponent(name)}`)).status === 200,
    },
    fx,
  );

  it('multipart uploads, part copies and version-scoped reads are 501 NotImplemented', async () => {
    for (const [method, target, headers] of [
      ['POST', '/gcs/big.bin?uploads', {}],
      ['PUT', '/gcs/big.bin?partNumber=1&uploadId=abc', {}],
      ['PUT', '/gcs/part.bin?partNumber=1&uploadId=abc', { 'x-amz-copy-source': '/gcs/range.bin' }],
      ['GET', '/gcs/range.bin?versionId=1', {}],
      ['GET', '/gcs/range.bin?attributes&versionId=1', { 'x-amz-object-attributes': 'ETag' }],
    ] as const) {
      const res = await rawRequest(fx.gw.endpoint, { method, target, headers: { ...headers } }, ADMIN);
      expect([method, target, res.status, errorCode(res.body)]).toEqual([method, target, 501, 'NotImplemented']);
    }
  });
});
