import { GetObjectAttributesCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { UNRECOGNISED, parseBlobList, scanBlobList } from '../../functions/core/backends/azure/listing';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, type Azurite } from '../support/azurite';
import { awsCli, jsClient } from '../support/clients';
import { expectedCliCopy, TRANSPORT_RUNTIMES } from '../support/gateway';
import { errorCode, rawRequest } from '../support/raw-request';
import { ADMIN, ADMIN_CREDENTIALS, SPECIAL_KEYS, codeOf, readText } from './fixtures';
import { describeStoreContract, seedStore, useStoreGateway } from './store-contract';

/**
 * Virtual buckets in Azure Blob containers (Azurite), driven by aws-cli v2, boto3 and the JS SDK: S3
 * clients must not be able to tell. JS SDK uploads here use Buffer/string bodies. A stream body would be sent
 * aws-chunked, which the gateway decodes on the way for every backend type, so a store only ever receives
 * plain bytes (the decoding is specified in aws-chunked.test.ts).
 */
const WRONG_KEY = Buffer.from('not the account key at all, but valid base64').toString('base64');

let azurite: Azurite;

function config(): string {
  const bucket = (name: string, container: string, extra: string, anonymous = false): string => `
[[buckets]]
name = "${name}"
backend_type = "azure"
anonymous_access = ${anonymous}
[buckets.backend_options]
account_name = "${AZURITE_ACCOUNT}"
container_name = "${container}"
endpoint = "${azurite.endpoint}"
${extra}`;
  return `
${bucket('azure', 'data', 'access_key = { env = "AZURE_KEY" }')}
${bucket('azure-tenant', 'data', 'access_key = { env = "AZURE_KEY" }\nbackend_prefix = "tenant-a/"')}
${bucket('azure-public', 'public', '', true)}
${bucket('azure-wrong-key', 'data', `access_key = "${WRONG_KEY}"`)}
${bucket('azure-missing', 'no-such-container', 'access_key = { env = "AZURE_KEY" }')}

${ADMIN_CREDENTIALS}`;
}

describe.each(TRANSPORT_RUNTIMES)('an Azure Blob backend through the gateway (%s runtime)', (runtime) => {
  // Fresh backends per runtime: the specifications write and count, so runtimes must not share state.
  beforeAll(async () => {
    azurite = await startAzurite();
    await azurite.createContainer('data');
    await azurite.createContainer('public', 'container');
    await seedStore((key, body, contentType) => azurite.putBlob('data', key, body, contentType ? { 'x-ms-blob-content-type': contentType } : {}));
    await azurite.putBlob('data', 'native-meta.txt', 'meta', { 'x-ms-meta-my_key': 'set in Azure' });
    await azurite.putBlob('public', 'hello.txt', 'hello, world\n');
  }, 60_000);

  afterAll(() => azurite?.stop());

  const fx = useStoreGateway(runtime, () => ({ config: config(), env: { AZURE_KEY: AZURITE_KEY } }));
  let anonymous: S3Client;
  beforeAll(() => {
    anonymous = jsClient(fx.gw.endpoint);
  });
  afterAll(() => anonymous?.destroy());

  describeStoreContract(
    {
      runtime,
      bucket: 'azure',
      tenantBucket: 'azure-tenant',
      specialKeys: SPECIAL_KEYS.filter((k) => !['special/semi;colon', 'special/at@dollar$', 'special/comma,colon:'].includes(k)),
      etag: /^"0x[0-9A-F]+"$/,
      staleEtag: '"0x0123"',
      backendNames: async (prefix) => {
        const listed = await azurite.request('GET', '/data', { query: `restype=container&comp=list&prefix=${encodeURIComponent(prefix)}` });
        return [...(await listed.text()).matchAll(/<Name>([^<]*)<\/Name>/g)].map((m) => m[1].replace(/&amp;/g, '&').replace(/&apos;/g, "'"));
      },
      backendHas: async (name) => (await azurite.request('HEAD', `/data/${name}`)).status === 200,
    },
    fx,
  );

  describe('what only Azure has', () => {
    it('stores an S3 PUT as a block blob with Azure-legal metadata names and its Content-Language', async () => {
      await fx.s3.send(new PutObjectCommand({ Bucket: 'azure', Key: 'js/lang.txt', Body: 'x', ContentLanguage: 'en', Metadata: { 'original-name': 'Doc One' } }));
      expect((await fx.s3.send(new HeadObjectCommand({ Bucket: 'azure', Key: 'js/lang.txt' }))).ContentLanguage).toBe('en');
      const direct = await azurite.request('HEAD', '/data/js/lang.txt');
      expect(direct.headers.get('x-ms-blob-type')).toBe('BlockBlob');
      expect(direct.headers.get('x-ms-meta-original_name')).toBe('Doc One');
    });

    it('reads Azurite\'s listing pages, special names included, with the scanner (not the general parser)', async () => {
      for (const query of ['restype=container&comp=list&prefix=&maxresults=5000&include=metadata', 'restype=container&comp=list&prefix=&maxresults=5000&delimiter=%2F']) {
        const page = await (await azurite.request('GET', '/data', { query })).text();
        const scanned = scanBlobList(page, '');
        expect(scanned).not.toBe(UNRECOGNISED);
        expect(scanned).toEqual(parseBlobList(page, ''));
      }
    });

    it('reads metadata set natively in Azure with "_" as "-"', async () => {
      const head = await fx.s3.send(new HeadObjectCommand({ Bucket: 'azure', Key: 'native-meta.txt' }));
      expect(head.Metadata).toEqual({ 'my-key': 'set in Azure' });
    });

    it('never shows Azure\'s own error codes', async () => {
      const missing = await rawRequest(fx.gw.endpoint, { method: 'GET', target: '/azure/missing' }, ADMIN);
      expect(missing.body).not.toContain('BlobNotFound');
      const failed = await rawRequest(fx.gw.endpoint, { method: 'GET', target: '/azure/range.bin', headers: { 'if-match': '"0x0123"' } }, ADMIN);
      expect(failed.body).not.toContain('ConditionNotMet');
    });

    it('answers a missing container with NoSuchBucket', async () => {
      expect(await codeOf(fx.s3.send(new GetObjectCommand({ Bucket: 'azure-missing', Key: 'x' })))).toBe('NoSuchBucket');
      expect(await codeOf(fx.s3.send(new ListObjectsV2Command({ Bucket: 'azure-missing' })))).toBe('NoSuchBucket');
      expect(await codeOf(fx.s3.send(new GetObjectAttributesCommand({ Bucket: 'azure-missing', Key: 'x', ObjectAttributes: ['ETag'] })))).toBe('NoSuchBucket');
    });
  });

  describe('failures S3 clients must see in S3 terms', () => {
    it('a wrong account key is a clean 403 AccessDenied, never Azure\'s XML', async () => {
      const res = await rawRequest(fx.gw.endpoint, { method: 'GET', target: '/azure-wrong-key/range.bin' }, ADMIN);
      expect(res.status).toBe(403);
      expect(errorCode(res.body)).toBe('AccessDenied');
      expect(res.body).not.toMatch(/AuthorizationFailure|AuthenticationFailed|Signature/);
      expect(await codeOf(fx.s3.send(new PutObjectCommand({ Bucket: 'azure-wrong-key', Key: 'x', Body: 'x' })))).toBe('AccessDenied');
      expect(await codeOf(fx.s3.send(new ListObjectsV2Command({ Bucket: 'azure-wrong-key' })))).toBe('AccessDenied');
    });

    it('CopyObject, DeleteObjects and UploadPartCopy are 501 NotImplemented (multipart uploads are specified in azure-multipart.test.ts)', async () => {
      for (const [method, target, headers] of [
        ['PUT', '/azure/copy.txt', { 'x-amz-copy-source': '/azure/range.bin' }],
        ['PUT', '/azure/big.bin?partNumber=1&uploadId=abc', { 'x-amz-copy-source': '/azure/range.bin' }],
        ['POST', '/azure?delete', {}],
      ] as const) {
        const res = await rawRequest(fx.gw.endpoint, { method, target, headers: { ...headers } }, ADMIN);
        expect([method, target, res.status, errorCode(res.body)]).toEqual([method, target, 501, 'NotImplemented']);
      }
    });

    it('a key holding a backslash is 400 InvalidArgument on every operation: Azure would read it as "/", another key', async () => {
      for (const method of ['PUT', 'GET', 'HEAD', 'DELETE']) {
        const res = await rawRequest(fx.gw.endpoint, { method, target: '/azure/win%5Cpath.txt', body: method === 'PUT' ? 'x' : undefined }, ADMIN);
        expect([method, res.status]).toEqual([method, 400]);
        if (method !== 'HEAD') expect(errorCode(res.body)).toBe('InvalidArgument');
      }
      expect((await azurite.request('HEAD', '/data/win/path.txt')).status).toBe(404);
    });

    it('a version-scoped read is 501', async () => {
      const res = await rawRequest(fx.gw.endpoint, { method: 'GET', target: '/azure/range.bin?versionId=abc' }, ADMIN);
      expect(res.status).toBe(501);
    });
  });

  describe('anonymous backend access', () => {
    it('reads and lists a public container without an account key', async () => {
      expect(await readText(anonymous, 'azure-public', 'hello.txt')).toBe('hello, world\n');
      const listed = await anonymous.send(new ListObjectsV2Command({ Bucket: 'azure-public' }));
      expect(listed.Contents?.map((c) => c.Key)).toEqual(['hello.txt']);
      const cli = await awsCli('v2', fx.gw.endpoint, undefined, ['s3', 'cp', 's3://azure-public/hello.txt', '-']);
      expect(cli).toMatchObject(expectedCliCopy(runtime, 'hello, world\n'));
    });

    it('an unsigned write to Azure is refused by Azure and reported as AccessDenied', async () => {
      expect(await codeOf(fx.s3.send(new PutObjectCommand({ Bucket: 'azure-public', Key: 'x.txt', Body: 'x' })))).toBe('AccessDenied');
    });
  });
});
