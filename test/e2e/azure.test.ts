import { CreateMultipartUploadCommand, GetObjectAttributesCommand, GetObjectCommand, HeadObjectCommand, ListObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UNRECOGNISED, parseBlobList, scanBlobList } from '../../functions/core/backends/azure/listing';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, type Azurite } from '../support/azurite';
import { awsCli, jsClient, rclone, s3cmd } from '../support/clients';
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
${bucket('azure-other-account', 'data', 'access_key = { env = "AZURE_KEY" }').replace(`account_name = "${AZURITE_ACCOUNT}"`, 'account_name = "otheraccount"')}

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
      etag: /^"[0-9a-f]{32}"$/,
      staleEtag: '"0123456789abcdef0123456789abcdef"',
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

  describe('ETags S3 clients can check: the hex MD5 Azure keeps, else Azure\'s own', () => {
    const md5 = (body: string | Uint8Array): string => `"${createHash('md5').update(body).digest('hex')}"`;
    /**
     * A blob committed with Put Block List, as other Azure writers store large files: Azure keeps no MD5 for
     * it. Over 4 MiB: for a smaller one Azurite computes a Content-MD5 on each whole read, where Azure sends none.
     */
    const putBlockList = async (name: string, body: string): Promise<string> => {
      const id = encodeURIComponent(Buffer.from('block-000001').toString('base64'));
      expect((await azurite.request('PUT', `/data/${name}`, { query: `comp=block&blockid=${id}`, body })).status).toBe(201);
      const list = `<?xml version="1.0" encoding="utf-8"?><BlockList><Latest>${decodeURIComponent(id)}</Latest></BlockList>`;
      expect((await azurite.request('PUT', `/data/${name}`, { query: 'comp=blocklist', body: list })).status).toBe(201);
      const head = await azurite.request('HEAD', `/data/${name}`);
      expect(head.headers.get('content-md5')).toBeNull();
      return head.headers.get('etag') as string;
    };

    it('the JS SDK\'s PutObject answers the hex MD5 of the body; HEAD, GET, a ranged GET, both listings and GetObjectAttributes show the same', async () => {
      const body = 'checked by its MD5';
      const put = await fx.s3.send(new PutObjectCommand({ Bucket: 'azure', Key: 'etag/md5.txt', Body: body }));
      expect(put.ETag).toBe(md5(body));
      expect((await fx.s3.send(new HeadObjectCommand({ Bucket: 'azure', Key: 'etag/md5.txt' }))).ETag).toBe(md5(body));
      const get = await fx.s3.send(new GetObjectCommand({ Bucket: 'azure', Key: 'etag/md5.txt' }));
      expect([get.ETag, await get.Body?.transformToString()]).toEqual([md5(body), body]);
      const ranged = await fx.s3.send(new GetObjectCommand({ Bucket: 'azure', Key: 'etag/md5.txt', Range: 'bytes=0-6' }));
      expect([ranged.ETag, ranged.ContentRange, await ranged.Body?.transformToString()]).toEqual([md5(body), `bytes 0-6/${body.length}`, 'checked']);
      expect((await fx.s3.send(new ListObjectsV2Command({ Bucket: 'azure', Prefix: 'etag/md5' }))).Contents?.map((c) => c.ETag)).toEqual([md5(body)]);
      expect((await fx.s3.send(new ListObjectsCommand({ Bucket: 'azure', Prefix: 'etag/md5' }))).Contents?.map((c) => c.ETag)).toEqual([md5(body)]);
      const attributes = await fx.s3.send(new GetObjectAttributesCommand({ Bucket: 'azure', Key: 'etag/md5.txt', ObjectAttributes: ['ETag'] }));
      expect(attributes.ETag).toBe(md5(body).slice(1, -1));
    });

    it('a blob Azure keeps no MD5 for shows Azure\'s own ETag in HEAD and listings, and preconditions match it', async () => {
      const own = await putBlockList('etag/blocks.txt', 'committed from blocks'.repeat(250_000));
      expect(own).toMatch(/^"0x[0-9A-F]+"$/);
      expect((await fx.s3.send(new HeadObjectCommand({ Bucket: 'azure', Key: 'etag/blocks.txt' }))).ETag).toBe(own);
      expect((await fx.s3.send(new ListObjectsV2Command({ Bucket: 'azure', Prefix: 'etag/blocks' }))).Contents?.map((c) => c.ETag)).toEqual([own]);
      const get = (headers: Record<string, string>) => rawRequest(fx.gw.endpoint, { method: 'GET', target: '/azure/etag/blocks.txt', headers }, ADMIN);
      const whole = await get({ 'if-match': own });
      expect([whole.status, whole.headers.etag]).toEqual([200, own]);
      expect((await get({ 'if-match': own, range: 'bytes=0-9' })).status).toBe(206);
      expect((await get({ 'if-none-match': own })).status).toBe(304);
      const replaced = await fx.s3.send(new PutObjectCommand({ Bucket: 'azure', Key: 'etag/blocks.txt', Body: 'replaced', IfMatch: own }));
      expect(replaced.ETag).toBe(md5('replaced'));
    });

    it('conditional reads on the MD5 ETag answer 200, 206, 304 and 412 as S3 does; writes and deletes are pinned to the blob read', async () => {
      const etag = (await fx.s3.send(new PutObjectCommand({ Bucket: 'azure', Key: 'etag/cond.txt', Body: 'conditional' }))).ETag as string;
      const other = '"0123456789abcdef0123456789abcdef"';
      // Each read's headers, with S3's status (a 412 carries no ETag, and HEAD no error document).
      const reads: [string, Record<string, string>, number][] = [];
      for (const method of ['GET', 'HEAD']) {
        reads.push(
          [method, { 'if-match': etag }, 200],
          [method, { 'if-match': etag.slice(1, -1) }, 200],
          [method, { 'if-match': other }, 412],
          [method, { 'if-none-match': etag }, 304],
          [method, { 'if-none-match': other }, 200],
        );
      }
      reads.push(['GET', { 'if-match': etag, range: 'bytes=0-3' }, 206], ['GET', { 'if-none-match': etag, range: 'bytes=-4' }, 304]);
      for (const [method, headers, status] of reads) {
        const res = await rawRequest(fx.gw.endpoint, { method, target: '/azure/etag/cond.txt', headers }, ADMIN);
        const code = method === 'GET' && status === 412 ? 'PreconditionFailed' : undefined;
        expect([method, headers, res.status, res.headers.etag, errorCode(res.body)]).toEqual([method, headers, status, status === 412 ? undefined : etag, code]);
      }
      expect(await codeOf(fx.s3.send(new PutObjectCommand({ Bucket: 'azure', Key: 'etag/cond.txt', Body: 'x', IfMatch: other })))).toBe('PreconditionFailed');
      const del = (ifMatch: string) => rawRequest(fx.gw.endpoint, { method: 'DELETE', target: '/azure/etag/cond.txt', headers: { 'if-match': ifMatch } }, ADMIN);
      expect((await del(other)).status).toBe(412);
      expect((await del(etag)).status).toBe(204);
      expect((await azurite.request('HEAD', '/data/etag/cond.txt')).status).toBe(404);
    });

    it('s3cmd puts a 1 MiB file at the first try (its MD5 check passes) and gets it back', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'azure-s3cmd-'));
      try {
        const bytes = Buffer.alloc(1024 * 1024, 'azure');
        writeFileSync(join(dir, 'one-mib.bin'), bytes);
        const put = await s3cmd(fx.gw.endpoint, ADMIN, ['put', join(dir, 'one-mib.bin'), `s3://azure/s3cmd/${runtime}/one-mib.bin`]);
        expect([put.code, put.stderr]).toEqual([0, '']);
        expect(put.stdout).not.toMatch(/MD5|retry/i);
        const info = await s3cmd(fx.gw.endpoint, ADMIN, ['info', `s3://azure/s3cmd/${runtime}/one-mib.bin`]);
        expect(info.stdout).toMatch(new RegExp(`MD5 sum:\\s+${md5(bytes).slice(1, -1)}`));
        const get = await s3cmd(fx.gw.endpoint, ADMIN, ['get', '--force', `s3://azure/s3cmd/${runtime}/one-mib.bin`, join(dir, 'back.bin')]);
        expect([get.code, get.stderr]).toEqual([0, '']);
        expect(get.stdout).not.toMatch(/MD5/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('rclone copies a tree and checks it by MD5: rclone check and md5sum find the same hashes as the files\'', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'azure-rclone-'));
      try {
        const files: Record<string, string> = { 'a.txt': 'first file\n', 'sub/b.bin': 'x'.repeat(300_000) };
        mkdirSync(join(dir, 'sub'));
        for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
        const remote = `gw:azure/rclone/${runtime}`;
        const copy = await rclone(fx.gw.endpoint, ADMIN, ['copy', '--checksum', dir, remote]);
        expect([copy.code, copy.stderr]).toEqual([0, '']);
        const check = await rclone(fx.gw.endpoint, ADMIN, ['check', dir, remote]);
        expect(check.code).toBe(0);
        expect(check.stderr).toMatch(/0 differences found/);
        expect(check.stderr).toMatch(/2 matching files/);
        expect(check.stderr).not.toMatch(/hash/i);
        const sums = await rclone(fx.gw.endpoint, ADMIN, ['md5sum', remote]);
        const listed = sums.stdout.trim().split('\n').map((line) => line.split(/\s+/)).sort((x, y) => x[1].localeCompare(y[1]));
        expect(listed).toEqual(Object.entries(files).map(([name, body]) => [md5(body).slice(1, -1), name]));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
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

    it('UploadPartCopy from another account is 501 NotImplemented naming why; a malformed range is 400, a forged upload id 404 (part copies: azure-multipart.test.ts)', async () => {
      const { UploadId } = await fx.s3.send(new CreateMultipartUploadCommand({ Bucket: 'azure', Key: 'part.bin' }));
      const copy = (source: string, headers: Record<string, string> = {}, uploadId = UploadId as string) =>
        rawRequest(fx.gw.endpoint, { method: 'PUT', target: `/azure/part.bin?partNumber=1&uploadId=${encodeURIComponent(uploadId)}`, headers: { 'x-amz-copy-source': source, ...headers } }, ADMIN);
      const other = await copy('/azure-other-account/range.bin');
      expect([other.status, errorCode(other.body)]).toEqual([501, 'NotImplemented']);
      expect(other.body).toContain('UploadPartCopy from another store or Azure account');
      const malformed = await copy('/azure/range.bin', { 'x-amz-copy-source-range': '0-9' });
      expect([malformed.status, errorCode(malformed.body)]).toEqual([400, 'InvalidArgument']);
      const forged = await copy('/azure/range.bin', {}, 'abc');
      expect([forged.status, errorCode(forged.body)]).toEqual([404, 'NoSuchUpload']);
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
