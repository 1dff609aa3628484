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
import { awsCli, boto3, jsClient } from '../support/clients';
import { RUNTIMES, expectedCliCopy, reportedCacheControl, reportedLength, startGateway, type RunningGateway } from '../support/gateway';
import { startGcsEmulator, type GcsEmulator } from '../support/gcs-emulator';
import { errorCode, rawRequest } from '../support/raw-request';
import { ADMIN, ADMIN_CREDENTIALS, LIST_KEYS, RANGE_BODY, codeOf, readText } from './fixtures';

/**
 * Virtual buckets in Cloud Storage, through the firebase-tools storage emulator (JSON API, `api = "json"`),
 * for every operation it supports. The emulator checks no auth and has no preconditions: those checks
 * here are the gateway's own (docs/backends.md lists what only real GCS can show).
 */
const SPECIAL_KEYS = [
  'special/star*', 'special/100%.txt', 'special/100%25.txt', 'special/hash#', 'special/question?', 'special/plus+sign',
  'special/eq=ual', 'special/sp ace', 'special/ünïcødé-日本', 'special/emoji-😀', 'special/tilde~', 'special/amp&and',
];

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

describe.each(RUNTIMES)('a GCS backend (storage emulator, JSON API) through the gateway (%s runtime)', (runtime) => {
  // Fresh backends per runtime: the specifications write and count, so runtimes must not share state.
  beforeAll(async () => {
    emulator = await startGcsEmulator();
    for (const key of LIST_KEYS) await emulator.upload('data', key, key);
    await emulator.upload('data', 'range.bin', RANGE_BODY, 'application/octet-stream');
    await emulator.upload('data', 'tenant-a/doc1.txt', 'doc1');
    await emulator.upload('data', 'tenant-a/sub/doc2.txt', 'doc2');
  }, 60_000);

  afterAll(() => emulator?.stop());

  let gw: RunningGateway;
  let s3: S3Client;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config() });
    s3 = jsClient(gw.endpoint, ADMIN);
  }, 60_000);

  afterAll(async () => {
    s3?.destroy();
    await gw?.stop();
  });

  describe('PutObject, GetObject, HeadObject, DeleteObject', () => {
    it('round-trips a JS SDK PUT with content headers and metadata through GET and HEAD', async () => {
      await s3.send(
        new PutObjectCommand({
          Bucket: 'gcs',
          Key: 'js/doc.txt',
          Body: Buffer.from('hello from the JS SDK'),
          ContentType: 'text/markdown',
          ContentDisposition: 'attachment; filename="doc.txt"',
          CacheControl: 'max-age=60',
          Metadata: { 'original-name': 'Doc One' },
        }),
      );
      const head = await s3.send(new HeadObjectCommand({ Bucket: 'gcs', Key: 'js/doc.txt' }));
      expect(head.ETag).toMatch(/^"[0-9a-f]{32}"$/);
      expect(head.ContentLength).toBe(reportedLength(runtime, 21));
      expect(head.ContentType).toBe('text/markdown');
      expect(head.ContentDisposition).toBe('attachment; filename="doc.txt"');
      expect(head.CacheControl).toBe(reportedCacheControl(runtime, 'max-age=60'));
      expect(head.Metadata).toEqual({ 'original-name': 'Doc One' });
      expect(head.LastModified).toBeInstanceOf(Date);
      expect(await readText(s3, 'gcs', 'js/doc.txt')).toBe('hello from the JS SDK');
    });

    it('uploads and downloads with aws-cli v2, and boto3 reads what boto3 wrote', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'gcs-cli-'));
      try {
        writeFileSync(join(dir, 'up.txt'), 'uploaded by aws-cli\n');
        const up = await awsCli('v2', gw.endpoint, ADMIN, ['s3', 'cp', join(dir, 'up.txt'), 's3://gcs/cli/up.txt', '--metadata', 'who=cli']);
        expect(up.code).toBe(0);
        const down = await awsCli('v2', gw.endpoint, ADMIN, ['s3', 'cp', 's3://gcs/cli/up.txt', join(dir, 'down.txt')]);
        expect(down).toMatchObject(expectedCliCopy(runtime));
        if (down.code === 0) expect(readFileSync(join(dir, 'down.txt'), 'utf8')).toBe('uploaded by aws-cli\n');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      await boto3('boto3-debian', gw.endpoint, ADMIN, "s3.put_object(Bucket='gcs', Key='py/obj.bin', Body=b'from boto3', Metadata={'k': 'v'})");
      const read = await boto3('boto3-new', gw.endpoint, ADMIN, "o = s3.get_object(Bucket='gcs', Key='py/obj.bin')\nresult = [o['Body'].read().decode(), o['Metadata']]");
      expect(read).toEqual(['from boto3', { k: 'v' }]);
    });

    it('reads byte ranges, including suffix ranges', async () => {
      const out = await s3.send(new GetObjectCommand({ Bucket: 'gcs', Key: 'range.bin', Range: 'bytes=10-19' }));
      expect(out.ContentRange).toBe('bytes 10-19/1000');
      expect(Buffer.from(await out.Body!.transformToByteArray())).toEqual(RANGE_BODY.subarray(10, 20));
      const suffix = await s3.send(new GetObjectCommand({ Bucket: 'gcs', Key: 'range.bin', Range: 'bytes=-5' }));
      expect(Buffer.from(await suffix.Body!.transformToByteArray())).toEqual(RANGE_BODY.subarray(995));
    });

    it('answers conditional reads with 304 and 412', async () => {
      const head = await s3.send(new HeadObjectCommand({ Bucket: 'gcs', Key: 'range.bin' }));
      const notModified = await rawRequest(gw.endpoint, { method: 'GET', target: '/gcs/range.bin', headers: { 'if-none-match': head.ETag ?? '' } }, ADMIN);
      expect(notModified.status).toBe(304);
      const failed = await rawRequest(gw.endpoint, { method: 'GET', target: '/gcs/range.bin', headers: { 'if-match': '"0123"' } }, ADMIN);
      expect(failed.status).toBe(412);
      expect(errorCode(failed.body)).toBe('PreconditionFailed');
      const matched = await s3.send(new GetObjectCommand({ Bucket: 'gcs', Key: 'range.bin', IfMatch: head.ETag }));
      expect(matched.ContentLength).toBe(reportedLength(runtime, 1000));
    });

    it('honours conditional writes: If-None-Match: * on an existing object and a stale If-Match are 412', async () => {
      await s3.send(new PutObjectCommand({ Bucket: 'gcs', Key: 'cond/once.txt', Body: 'first', IfNoneMatch: '*' }));
      expect(await codeOf(s3.send(new PutObjectCommand({ Bucket: 'gcs', Key: 'cond/once.txt', Body: 'second', IfNoneMatch: '*' })))).toBe('PreconditionFailed');
      expect(await codeOf(s3.send(new PutObjectCommand({ Bucket: 'gcs', Key: 'cond/once.txt', Body: 'stale', IfMatch: '"0123"' })))).toBe('PreconditionFailed');
      expect(await readText(s3, 'gcs', 'cond/once.txt')).toBe('first');
      const head = await s3.send(new HeadObjectCommand({ Bucket: 'gcs', Key: 'cond/once.txt' }));
      await s3.send(new PutObjectCommand({ Bucket: 'gcs', Key: 'cond/once.txt', Body: 'fresh', IfMatch: head.ETag }));
      expect(await readText(s3, 'gcs', 'cond/once.txt')).toBe('fresh');
    });

    it('deletes with 204, also when the key is missing; a missing key reads NoSuchKey', async () => {
      await s3.send(new PutObjectCommand({ Bucket: 'gcs', Key: 'del/me.txt', Body: 'x' }));
      expect((await rawRequest(gw.endpoint, { method: 'DELETE', target: '/gcs/del/me.txt' }, ADMIN)).status).toBe(204);
      expect(await codeOf(s3.send(new GetObjectCommand({ Bucket: 'gcs', Key: 'del/me.txt' })))).toBe('NoSuchKey');
      expect((await rawRequest(gw.endpoint, { method: 'DELETE', target: '/gcs/del/me.txt' }, ADMIN)).status).toBe(204);
      await s3.send(new DeleteObjectCommand({ Bucket: 'gcs', Key: 'del/never-existed' }));
      const head = await rawRequest(gw.endpoint, { method: 'HEAD', target: '/gcs/missing' }, ADMIN);
      expect(head.status).toBe(404);
      expect(head.body).toBe('');
    });

    it('stores and reads special-character keys byte for byte', async () => {
      for (const key of SPECIAL_KEYS) await s3.send(new PutObjectCommand({ Bucket: 'gcs', Key: key, Body: `body of ${key}` }));
      for (const key of SPECIAL_KEYS) expect(await readText(s3, 'gcs', key)).toBe(`body of ${key}`);
      const direct = (await (await fetch(`${emulator.endpoint}/storage/v1/b/data/o?prefix=special%2F`)).json()) as { items: { name: string }[] };
      expect(direct.items.map((i) => i.name).sort()).toEqual([...SPECIAL_KEYS].sort());
      const viaCli = await awsCli('v2', gw.endpoint, ADMIN, ['s3', 'cp', 's3://gcs/special/100%25.txt', '-']);
      expect(viaCli).toMatchObject(expectedCliCopy(runtime, 'body of special/100%25.txt'));
    });
  });

  describe('ListObjects', () => {
    it('paginates V2 with continuation tokens and V1 with markers', async () => {
      const keys: string[] = [];
      for await (const page of paginateListObjectsV2({ client: s3, pageSize: 10 }, { Bucket: 'gcs', Prefix: 'list/' })) {
        keys.push(...(page.Contents ?? []).map((c) => c.Key ?? ''));
      }
      expect(keys).toEqual([...LIST_KEYS].sort());
      const v1 = await boto3(
        'boto3-new',
        gw.endpoint,
        ADMIN,
        `result = [c['Key'] for p in s3.get_paginator('list_objects').paginate(Bucket='gcs', Prefix='list/', PaginationConfig={'PageSize': 7}) for c in p.get('Contents', [])]`,
      );
      expect(v1).toEqual([...LIST_KEYS].sort());
      const after = await s3.send(new ListObjectsCommand({ Bucket: 'gcs', Prefix: 'list/', Marker: 'list/a-22', MaxKeys: 3 }));
      expect(after.Contents?.map((c) => c.Key)).toEqual(['list/a-23', 'list/a-24', 'list/dir1/x']);
    });

    it('groups by delimiter without the emulator\'s repeated prefixes, across pages', async () => {
      const out = await s3.send(new ListObjectsV2Command({ Bucket: 'gcs', Prefix: 'list/', Delimiter: '/' }));
      expect(out.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['list/dir1/', 'list/dir2/']);
      expect(out.Contents).toHaveLength(25);
      const seen: string[] = [];
      for await (const page of paginateListObjectsV2({ client: s3, pageSize: 4 }, { Bucket: 'gcs', Prefix: 'list/', Delimiter: '/' })) {
        seen.push(...(page.Contents ?? []).map((c) => c.Key ?? ''), ...(page.CommonPrefixes ?? []).map((p) => p.Prefix ?? ''));
      }
      expect(seen).toEqual([...LIST_KEYS.slice(0, 25), 'list/dir1/', 'list/dir2/']);
      const cli = await awsCli('v2', gw.endpoint, ADMIN, ['s3', 'ls', 's3://gcs/list/']);
      expect(cli.stdout).toMatch(/PRE dir1\//);
    });

    it('starts after a key and lists entries in S3 shape', async () => {
      const out = await s3.send(new ListObjectsV2Command({ Bucket: 'gcs', Prefix: 'list/', StartAfter: 'list/a-22' }));
      expect(out.Contents?.map((c) => c.Key)).toEqual(['list/a-23', 'list/a-24', 'list/dir1/x', 'list/dir2/y']);
      expect(out.Contents?.[0].ETag).toMatch(/^"[0-9a-f]{32}"$/);
      expect(out.Contents?.[0].Size).toBe(9);
    });

    it('lists special-character keys exactly and maps backend_prefix', async () => {
      const js = await s3.send(new ListObjectsV2Command({ Bucket: 'gcs', Prefix: 'special/' }));
      expect(js.Contents?.map((c) => c.Key).sort()).toEqual([...SPECIAL_KEYS].sort());
      const tenant = await s3.send(new ListObjectsV2Command({ Bucket: 'gcs-tenant', Delimiter: '/' }));
      expect(tenant.Contents?.map((c) => c.Key)).toEqual(['doc1.txt']);
      expect(tenant.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['sub/']);
      expect(await readText(s3, 'gcs-tenant', 'sub/doc2.txt')).toBe('doc2');
    });
  });

  it('multipart uploads, CopyObject, DeleteObjects and version-scoped reads are 501 NotImplemented', async () => {
    for (const [method, target, headers] of [
      ['POST', '/gcs/big.bin?uploads', {}],
      ['PUT', '/gcs/big.bin?partNumber=1&uploadId=abc', {}],
      ['PUT', '/gcs/copy.txt', { 'x-amz-copy-source': '/gcs/range.bin' }],
      ['POST', '/gcs?delete', {}],
      ['GET', '/gcs/range.bin?versionId=1', {}],
    ] as const) {
      const res = await rawRequest(gw.endpoint, { method, target, headers: { ...headers } }, ADMIN);
      expect([method, target, res.status, errorCode(res.body)]).toEqual([method, target, 501, 'NotImplemented']);
    }
  });
});
