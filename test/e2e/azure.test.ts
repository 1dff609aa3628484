import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, type Azurite } from '../support/azurite';
import { awsCli, boto3, jsClient } from '../support/clients';
import { RUNTIMES, expectedCliCopy, reportedCacheControl, reportedLength, startGateway, type RunningGateway } from '../support/gateway';
import { errorCode, rawRequest } from '../support/raw-request';
import { ADMIN, ADMIN_CREDENTIALS, LIST_KEYS, RANGE_BODY, codeOf, readText } from './fixtures';

/**
 * Virtual buckets in Azure Blob containers (Azurite), driven by aws-cli v2, boto3 and the JS SDK: S3
 * clients must not be able to tell. JS SDK uploads here use Buffer/string bodies. A stream body would be sent
 * aws-chunked, which the gateway decodes on the way for every backend type, so a store only ever receives
 * plain bytes (the decoding is specified in aws-chunked.test.ts).
 */
const SPECIAL_KEYS = [
  'special/star*', 'special/100%.txt', 'special/100%25.txt', 'special/hash#', 'special/question?', 'special/plus+sign',
  'special/eq=ual', 'special/sp ace', 'special/ünïcødé-日本', 'special/emoji-😀', 'special/tilde~', "special/quote'",
  'special/amp&and', 'special/[brackets]',
];
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

describe.each(RUNTIMES)('an Azure Blob backend through the gateway (%s runtime)', (runtime) => {
  // Fresh backends per runtime: the specifications write and count, so runtimes must not share state.
  beforeAll(async () => {
    azurite = await startAzurite();
    await azurite.createContainer('data');
    await azurite.createContainer('public', 'container');
    await Promise.all([
      ...LIST_KEYS.map((k) => azurite.putBlob('data', k, k)),
      azurite.putBlob('data', 'range.bin', RANGE_BODY, { 'x-ms-blob-content-type': 'application/octet-stream' }),
      azurite.putBlob('data', 'native-meta.txt', 'meta', { 'x-ms-meta-my_key': 'set in Azure' }),
      azurite.putBlob('data', 'tenant-a/doc1.txt', 'doc1'),
      azurite.putBlob('data', 'tenant-a/sub/doc2.txt', 'doc2'),
      azurite.putBlob('public', 'hello.txt', 'hello, world\n'),
    ]);
  }, 60_000);

  afterAll(() => azurite?.stop());

  let gw: RunningGateway;
  let s3: S3Client;
  let anonymous: S3Client;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config(), env: { AZURE_KEY: AZURITE_KEY } });
    s3 = jsClient(gw.endpoint, ADMIN);
    anonymous = jsClient(gw.endpoint);
  }, 60_000);

  afterAll(async () => {
    s3?.destroy();
    anonymous?.destroy();
    await gw?.stop();
  });

  describe('PutObject, GetObject, HeadObject, DeleteObject', () => {
    it('round-trips a JS SDK PUT with content headers and metadata through GET and HEAD', async () => {
      const put = await s3.send(
        new PutObjectCommand({
          Bucket: 'azure',
          Key: 'js/doc.txt',
          Body: Buffer.from('hello from the JS SDK'),
          ContentType: 'text/markdown',
          ContentDisposition: 'attachment; filename="doc.txt"',
          ContentLanguage: 'en',
          CacheControl: 'max-age=60',
          Metadata: { 'original-name': 'Doc One', plain: 'x' },
        }),
      );
      expect(put.ETag).toMatch(/^".+"$/);
      const head = await s3.send(new HeadObjectCommand({ Bucket: 'azure', Key: 'js/doc.txt' }));
      expect(head.ETag).toBe(put.ETag);
      expect(head.ContentLength).toBe(reportedLength(runtime, 21));
      expect(head.ContentType).toBe('text/markdown');
      expect(head.ContentDisposition).toBe('attachment; filename="doc.txt"');
      expect(head.ContentLanguage).toBe('en');
      expect(head.CacheControl).toBe(reportedCacheControl(runtime, 'max-age=60'));
      expect(head.Metadata).toEqual({ 'original-name': 'Doc One', plain: 'x' });
      expect(head.LastModified).toBeInstanceOf(Date);
      expect(await readText(s3, 'azure', 'js/doc.txt')).toBe('hello from the JS SDK');
      // Stored as an Azure block blob with Azure-legal metadata names.
      const direct = await azurite.request('HEAD', '/data/js/doc.txt');
      expect(direct.headers.get('x-ms-blob-type')).toBe('BlockBlob');
      expect(direct.headers.get('x-ms-meta-original_name')).toBe('Doc One');
    });

    it('reads metadata set natively in Azure with "_" as "-"', async () => {
      const head = await s3.send(new HeadObjectCommand({ Bucket: 'azure', Key: 'native-meta.txt' }));
      expect(head.Metadata).toEqual({ 'my-key': 'set in Azure' });
    });

    it('uploads and downloads with aws-cli v2, metadata included', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'azure-cli-'));
      try {
        writeFileSync(join(dir, 'up.txt'), 'uploaded by aws-cli\n');
        const up = await awsCli('v2', gw.endpoint, ADMIN, ['s3', 'cp', join(dir, 'up.txt'), 's3://azure/cli/up.txt', '--metadata', 'who=cli', '--content-type', 'text/plain']);
        expect(up.stderr).toBe('');
        expect(up.code).toBe(0);
        const down = await awsCli('v2', gw.endpoint, ADMIN, ['s3', 'cp', 's3://azure/cli/up.txt', join(dir, 'down.txt')]);
        expect(down).toMatchObject(expectedCliCopy(runtime));
        if (down.code === 0) expect(readFileSync(join(dir, 'down.txt'), 'utf8')).toBe('uploaded by aws-cli\n');
        const head = await awsCli('v2', gw.endpoint, ADMIN, ['s3api', 'head-object', '--bucket', 'azure', '--key', 'cli/up.txt']);
        expect(JSON.parse(head.stdout)).toMatchObject({ ContentType: 'text/plain', Metadata: { who: 'cli' } });
        expect(JSON.parse(head.stdout).ContentLength).toBe(reportedLength(runtime, 20));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('puts and gets with boto3 (Debian 1.26 writes, current boto3 reads)', async () => {
      await boto3('boto3-debian', gw.endpoint, ADMIN, "s3.put_object(Bucket='azure', Key='py/obj.bin', Body=b'from boto3', Metadata={'k': 'v'})");
      const read = await boto3(
        'boto3-new',
        gw.endpoint,
        ADMIN,
        "o = s3.get_object(Bucket='azure', Key='py/obj.bin')\nresult = [o['Body'].read().decode(), o['Metadata'], o.get('ContentLength')]",
      );
      expect(read).toEqual(['from boto3', { k: 'v' }, reportedLength(runtime, 10) ?? null]);
    });

    it('reads byte ranges, including suffix ranges Azure itself cannot express', async () => {
      const out = await s3.send(new GetObjectCommand({ Bucket: 'azure', Key: 'range.bin', Range: 'bytes=10-19' }));
      expect(out.ContentRange).toBe('bytes 10-19/1000');
      expect(Buffer.from(await out.Body!.transformToByteArray())).toEqual(RANGE_BODY.subarray(10, 20));
      const suffix = await s3.send(new GetObjectCommand({ Bucket: 'azure', Key: 'range.bin', Range: 'bytes=-5' }));
      expect(suffix.ContentRange).toBe('bytes 995-999/1000');
      expect(Buffer.from(await suffix.Body!.transformToByteArray())).toEqual(RANGE_BODY.subarray(995));
      const open = await boto3('boto3-new', gw.endpoint, ADMIN, "result = list(s3.get_object(Bucket='azure', Key='range.bin', Range='bytes=998-')['Body'].read())");
      expect(open).toEqual([230, 231]);
    });

    it('answers conditional reads with 304 and 412', async () => {
      const head = await s3.send(new HeadObjectCommand({ Bucket: 'azure', Key: 'range.bin' }));
      const notModified = await rawRequest(gw.endpoint, { method: 'GET', target: '/azure/range.bin', headers: { 'if-none-match': head.ETag ?? '' } }, ADMIN);
      expect(notModified.status).toBe(304);
      expect(notModified.headers['x-amz-request-id']).toBeTruthy();
      const failed = await rawRequest(gw.endpoint, { method: 'GET', target: '/azure/range.bin', headers: { 'if-match': '"0x0123"' } }, ADMIN);
      expect(failed.status).toBe(412);
      expect(errorCode(failed.body)).toBe('PreconditionFailed');
      expect(failed.body).not.toContain('ConditionNotMet');
      const matched = await s3.send(new GetObjectCommand({ Bucket: 'azure', Key: 'range.bin', IfMatch: head.ETag }));
      expect(matched.ContentLength).toBe(reportedLength(runtime, 1000));
      const since = await rawRequest(gw.endpoint, { method: 'GET', target: '/azure/range.bin', headers: { 'if-modified-since': new Date(Date.now() + 3600_000).toUTCString() } }, ADMIN);
      expect(since.status).toBe(304);
    });

    it('honours conditional writes: If-None-Match: * on an existing object and a stale If-Match are 412', async () => {
      const first = await s3.send(new PutObjectCommand({ Bucket: 'azure', Key: 'cond/once.txt', Body: 'first', IfNoneMatch: '*' }));
      expect(await codeOf(s3.send(new PutObjectCommand({ Bucket: 'azure', Key: 'cond/once.txt', Body: 'second', IfNoneMatch: '*' })))).toBe('PreconditionFailed');
      const raw = await rawRequest(gw.endpoint, { method: 'PUT', target: '/azure/cond/once.txt', headers: { 'if-none-match': '*' }, body: 'third' }, ADMIN);
      expect(raw.status).toBe(412);
      expect(errorCode(raw.body)).toBe('PreconditionFailed');
      expect(await codeOf(s3.send(new PutObjectCommand({ Bucket: 'azure', Key: 'cond/once.txt', Body: 'stale', IfMatch: '"0x0123"' })))).toBe('PreconditionFailed');
      expect(await readText(s3, 'azure', 'cond/once.txt')).toBe('first');
      await s3.send(new PutObjectCommand({ Bucket: 'azure', Key: 'cond/once.txt', Body: 'fresh', IfMatch: first.ETag }));
      expect(await readText(s3, 'azure', 'cond/once.txt')).toBe('fresh');
    });

    it('deletes with 204, also when the key is missing, and then reads NoSuchKey', async () => {
      await s3.send(new PutObjectCommand({ Bucket: 'azure', Key: 'del/me.txt', Body: 'x' }));
      const res = await rawRequest(gw.endpoint, { method: 'DELETE', target: '/azure/del/me.txt' }, ADMIN);
      expect(res.status).toBe(204);
      expect(await codeOf(s3.send(new GetObjectCommand({ Bucket: 'azure', Key: 'del/me.txt' })))).toBe('NoSuchKey');
      const again = await rawRequest(gw.endpoint, { method: 'DELETE', target: '/azure/del/me.txt' }, ADMIN);
      expect(again.status).toBe(204);
      await s3.send(new DeleteObjectCommand({ Bucket: 'azure', Key: 'del/never-existed' }));
      const cli = await awsCli('v2', gw.endpoint, ADMIN, ['s3', 'rm', 's3://azure/cli/up.txt']);
      expect(cli.code).toBe(0);
    });

    it('answers a missing key with NoSuchKey in S3 XML, and HEAD with a body-less 404', async () => {
      const missing = await rawRequest(gw.endpoint, { method: 'GET', target: '/azure/missing' }, ADMIN);
      expect(missing.status).toBe(404);
      expect(errorCode(missing.body)).toBe('NoSuchKey');
      expect(missing.body).not.toContain('BlobNotFound');
      const head = await rawRequest(gw.endpoint, { method: 'HEAD', target: '/azure/missing' }, ADMIN);
      expect(head.status).toBe(404);
      expect(head.body).toBe('');
    });

    it('answers a missing container with NoSuchBucket', async () => {
      expect(await codeOf(s3.send(new GetObjectCommand({ Bucket: 'azure-missing', Key: 'x' })))).toBe('NoSuchBucket');
      expect(await codeOf(s3.send(new ListObjectsV2Command({ Bucket: 'azure-missing' })))).toBe('NoSuchBucket');
    });

    it('stores and reads special-character keys byte for byte', async () => {
      for (const key of SPECIAL_KEYS) await s3.send(new PutObjectCommand({ Bucket: 'azure', Key: key, Body: `body of ${key}` }));
      for (const key of SPECIAL_KEYS) expect(await readText(s3, 'azure', key)).toBe(`body of ${key}`);
      const listed = await azurite.request('GET', '/data', { query: 'restype=container&comp=list&prefix=special%2F' });
      const names = [...(await listed.text()).matchAll(/<Name>([^<]*)<\/Name>/g)].map((m) => m[1].replace(/&amp;/g, '&').replace(/&apos;/g, "'"));
      expect(names.sort()).toEqual([...SPECIAL_KEYS].sort());
      const viaCli = await awsCli('v2', gw.endpoint, ADMIN, ['s3', 'cp', 's3://azure/special/100%25.txt', '-']);
      expect(viaCli).toMatchObject(expectedCliCopy(runtime, 'body of special/100%25.txt'));
      const py = await boto3('boto3-new', gw.endpoint, ADMIN, "result = s3.get_object(Bucket='azure', Key='special/100%.txt')['Body'].read().decode()");
      expect(py).toBe('body of special/100%.txt');
    });
  });

  describe('ListObjects', () => {
    it('paginates V2 across pages with continuation tokens (JS SDK)', async () => {
      const keys: string[] = [];
      let pages = 0;
      for await (const page of paginateListObjectsV2({ client: s3, pageSize: 10 }, { Bucket: 'azure', Prefix: 'list/' })) {
        pages++;
        keys.push(...(page.Contents ?? []).map((c) => c.Key ?? ''));
      }
      expect(keys).toEqual([...LIST_KEYS].sort());
      expect(pages).toBe(3);
    });

    it('paginates V1 with markers, including a plain key as marker (boto3 paginator)', async () => {
      const keys = await boto3(
        'boto3-new',
        gw.endpoint,
        ADMIN,
        `result = [c['Key'] for p in s3.get_paginator('list_objects').paginate(Bucket='azure', Prefix='list/', PaginationConfig={'PageSize': 7}) for c in p.get('Contents', [])]`,
      );
      expect(keys).toEqual([...LIST_KEYS].sort());
      const after = await s3.send(new ListObjectsCommand({ Bucket: 'azure', Prefix: 'list/', Marker: 'list/a-22', MaxKeys: 3 }));
      expect(after.Contents?.map((c) => c.Key)).toEqual(['list/a-23', 'list/a-24', 'list/dir1/x']);
      expect(after.IsTruncated).toBe(true);
    });

    it('groups by delimiter, and pages through common prefixes', async () => {
      const out = await s3.send(new ListObjectsV2Command({ Bucket: 'azure', Prefix: 'list/', Delimiter: '/' }));
      expect(out.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['list/dir1/', 'list/dir2/']);
      expect(out.Contents).toHaveLength(25);
      expect(out.KeyCount).toBe(27);
      const seen: string[] = [];
      for await (const page of paginateListObjectsV2({ client: s3, pageSize: 4 }, { Bucket: 'azure', Prefix: 'list/', Delimiter: '/' })) {
        seen.push(...(page.Contents ?? []).map((c) => c.Key ?? ''), ...(page.CommonPrefixes ?? []).map((p) => p.Prefix ?? ''));
      }
      expect(seen.sort()).toEqual([...LIST_KEYS.slice(0, 25), 'list/dir1/', 'list/dir2/'].sort());
      const cli = await awsCli('v2', gw.endpoint, ADMIN, ['s3', 'ls', 's3://azure/list/']);
      expect(cli.stdout).toMatch(/PRE dir1\//);
      expect(cli.stdout).toMatch(/a-24/);
    });

    it('starts after a key and lists entries in S3 shape', async () => {
      const out = await s3.send(new ListObjectsV2Command({ Bucket: 'azure', Prefix: 'list/', StartAfter: 'list/a-22' }));
      expect(out.Contents?.map((c) => c.Key)).toEqual(['list/a-23', 'list/a-24', 'list/dir1/x', 'list/dir2/y']);
      const entry = out.Contents?.[0];
      expect(entry?.ETag).toMatch(/^"0x[0-9A-F]+"$/);
      expect(entry?.Size).toBe(9);
      expect(entry?.StorageClass).toBe('STANDARD');
      expect(entry?.LastModified).toBeInstanceOf(Date);
    });

    it('refuses a continuation token from another listing', async () => {
      const first = await s3.send(new ListObjectsV2Command({ Bucket: 'azure', Prefix: 'list/', MaxKeys: 2 }));
      expect(await codeOf(s3.send(new ListObjectsV2Command({ Bucket: 'azure', Prefix: 'special/', ContinuationToken: first.NextContinuationToken })))).toBe('InvalidArgument');
    });

    it('lists special-character keys exactly, plain and url-encoded', async () => {
      const js = await s3.send(new ListObjectsV2Command({ Bucket: 'azure', Prefix: 'special/' }));
      expect(js.Contents?.map((c) => c.Key).sort()).toEqual([...SPECIAL_KEYS].sort());
      const py = await boto3('boto3-new', gw.endpoint, ADMIN, "result = [c['Key'] for c in s3.list_objects_v2(Bucket='azure', Prefix='special/')['Contents']]");
      expect((py as string[]).sort()).toEqual([...SPECIAL_KEYS].sort());
    });

    it('maps backend_prefix in and strips it out', async () => {
      const out = await s3.send(new ListObjectsV2Command({ Bucket: 'azure-tenant' }));
      expect(out.Contents?.map((c) => c.Key)).toEqual(['doc1.txt', 'sub/doc2.txt']);
      const delimited = await s3.send(new ListObjectsV2Command({ Bucket: 'azure-tenant', Delimiter: '/' }));
      expect(delimited.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['sub/']);
      expect(await readText(s3, 'azure-tenant', 'sub/doc2.txt')).toBe('doc2');
      await s3.send(new PutObjectCommand({ Bucket: 'azure-tenant', Key: 'new.txt', Body: 'n' }));
      expect((await azurite.request('HEAD', '/data/tenant-a/new.txt')).status).toBe(200);
    });
  });

  describe('failures S3 clients must see in S3 terms', () => {
    it('a wrong account key is a clean 403 AccessDenied, never Azure\'s XML', async () => {
      const res = await rawRequest(gw.endpoint, { method: 'GET', target: '/azure-wrong-key/range.bin' }, ADMIN);
      expect(res.status).toBe(403);
      expect(errorCode(res.body)).toBe('AccessDenied');
      expect(res.body).not.toMatch(/AuthorizationFailure|AuthenticationFailed|Signature/);
      expect(await codeOf(s3.send(new PutObjectCommand({ Bucket: 'azure-wrong-key', Key: 'x', Body: 'x' })))).toBe('AccessDenied');
      expect(await codeOf(s3.send(new ListObjectsV2Command({ Bucket: 'azure-wrong-key' })))).toBe('AccessDenied');
    });

    it('multipart uploads, CopyObject and DeleteObjects are 501 NotImplemented', async () => {
      for (const [method, target, headers] of [
        ['POST', '/azure/big.bin?uploads', {}],
        ['PUT', '/azure/big.bin?partNumber=1&uploadId=abc', {}],
        ['POST', '/azure/big.bin?uploadId=abc', {}],
        ['DELETE', '/azure/big.bin?uploadId=abc', {}],
        ['PUT', '/azure/copy.txt', { 'x-amz-copy-source': '/azure/range.bin' }],
        ['POST', '/azure?delete', {}],
      ] as const) {
        const res = await rawRequest(gw.endpoint, { method, target, headers: { ...headers } }, ADMIN);
        expect([method, target, res.status, errorCode(res.body)]).toEqual([method, target, 501, 'NotImplemented']);
      }
      const big = Buffer.alloc(9 * 1024 * 1024, 1);
      const dir = mkdtempSync(join(tmpdir(), 'azure-mp-'));
      try {
        writeFileSync(join(dir, 'big.bin'), big);
        const cli = await awsCli('v2', gw.endpoint, ADMIN, ['s3', 'cp', join(dir, 'big.bin'), 's3://azure/big.bin']);
        expect(cli.code).not.toBe(0);
        expect(cli.stderr).toMatch(/NotImplemented/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a version-scoped read is 501', async () => {
      const res = await rawRequest(gw.endpoint, { method: 'GET', target: '/azure/range.bin?versionId=abc' }, ADMIN);
      expect(res.status).toBe(501);
    });
  });

  describe('anonymous backend access', () => {
    it('reads and lists a public container without an account key', async () => {
      expect(await readText(anonymous, 'azure-public', 'hello.txt')).toBe('hello, world\n');
      const listed = await anonymous.send(new ListObjectsV2Command({ Bucket: 'azure-public' }));
      expect(listed.Contents?.map((c) => c.Key)).toEqual(['hello.txt']);
      const cli = await awsCli('v2', gw.endpoint, undefined, ['s3', 'cp', 's3://azure-public/hello.txt', '-']);
      expect(cli).toMatchObject(expectedCliCopy(runtime, 'hello, world\n'));
    });

    it('an unsigned write to Azure is refused by Azure and reported as AccessDenied', async () => {
      expect(await codeOf(s3.send(new PutObjectCommand({ Bucket: 'azure-public', Key: 'x.txt', Body: 'x' })))).toBe('AccessDenied');
    });
  });
});
