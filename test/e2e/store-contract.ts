import {
  DeleteObjectCommand,
  GetObjectAttributesCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type PutObjectCommandInput,
  type S3Client,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { awsCli, boto3, jsClient, s3cmd } from '../support/clients';
import { expectedCliCopy, reportedCacheControl, reportedLength, startGateway, type RunningGateway, type RuntimeName } from '../support/gateway';
import { errorCode, rawRequest } from '../support/raw-request';
import { ADMIN, LIST_KEYS, RANGE_BODY, codeOf, readText } from './fixtures';

/**
 * What every non-S3 store must show S3 clients, whatever it is underneath: the Azure and GCS suites run
 * these specs against their own emulator and add what only their store has. The data comes from
 * `seedStore`, the same objects the RGW read suite seeds.
 */

/** A store as the contract needs it: how to seed it directly and what it lists on its own side. */
export interface StoreUnderTest {
  readonly runtime: RuntimeName;
  /** The virtual bucket over the seeded container, and one over its `tenant-a/` prefix. */
  readonly bucket: string;
  readonly tenantBucket: string;
  /** The special-character keys this store's emulator keeps byte for byte. */
  readonly specialKeys: readonly string[];
  /** The shape of the store's ETags, and one that matches no object. */
  readonly etag: RegExp;
  readonly staleEtag: string;
  /** The names the store itself lists under `prefix` in the seeded container. */
  backendNames(prefix: string): Promise<string[]>;
  /** Whether the store itself holds `name` in the seeded container. */
  backendHas(name: string): Promise<boolean>;
}

/** The objects every read suite starts from, written straight to the store by `put`. */
export async function seedStore(put: (key: string, body: string | Uint8Array, contentType?: string) => Promise<unknown>): Promise<void> {
  await Promise.all([
    ...LIST_KEYS.map((k) => put(k, k)),
    put('range.bin', RANGE_BODY, 'application/octet-stream'),
    put('tenant-a/doc1.txt', 'doc1'),
    put('tenant-a/sub/doc2.txt', 'doc2'),
  ]);
}

/** The running gateway of a store suite and an ADMIN client for it, started before its specs. */
export interface StoreGateway {
  readonly gw: RunningGateway;
  readonly s3: S3Client;
}

export function useStoreGateway(runtime: RuntimeName, options: () => { config: string; env?: Record<string, string> }): StoreGateway {
  let running: StoreGateway | undefined;
  beforeAll(async () => {
    const gw = await startGateway(runtime, options());
    running = { gw, s3: jsClient(gw.endpoint, ADMIN) };
  }, 60_000);
  afterAll(async () => {
    running?.s3.destroy();
    await running?.gw.stop();
  });
  const started = (): StoreGateway => {
    if (running === undefined) throw new Error('the store gateway is used before its beforeAll ran');
    return running;
  };
  return {
    get gw() { return started().gw; },
    get s3() { return started().s3; },
  };
}

export function describeStoreContract(store: StoreUnderTest, fx: StoreGateway): void {
  describe('PutObject, GetObject, HeadObject, DeleteObject (the store contract)', () => objectSpecs(store, fx));
  describe('ListObjects (the store contract)', () => listingSpecs(store, fx));
  describe('DeleteObjects and CopyObject (the store contract)', () => copyDeleteSpecs(store, fx));
}

function objectSpecs(store: StoreUnderTest, fx: StoreGateway): void {
  const { runtime, bucket } = store;

  it('round-trips a JS SDK PUT with content headers and metadata through GET and HEAD', async () => {
    const put = await fx.s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'js/doc.txt',
        Body: Buffer.from('hello from the JS SDK'),
        ContentType: 'text/markdown',
        ContentDisposition: 'attachment; filename="doc.txt"',
        CacheControl: 'max-age=60',
        Metadata: { 'original-name': 'Doc One', plain: 'x' },
      }),
    );
    const head = await fx.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'js/doc.txt' }));
    expect(head.ETag).toBe(put.ETag);
    expect(head.ETag).toMatch(store.etag);
    expect(head.ContentLength).toBe(reportedLength(runtime, 21));
    expect(head.ContentType).toBe('text/markdown');
    expect(head.ContentDisposition).toBe('attachment; filename="doc.txt"');
    expect(head.CacheControl).toBe('max-age=60');
    expect(head.Metadata).toEqual({ 'original-name': 'Doc One', plain: 'x' });
    expect(head.LastModified).toBeInstanceOf(Date);
    const get = await fx.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'js/doc.txt' }));
    expect(await get.Body?.transformToString()).toBe('hello from the JS SDK');
    expect(get.Metadata).toEqual({ 'original-name': 'Doc One', plain: 'x' });
    // A text body, which Cloudflare would compress: its GET answer is marked on the edge.
    expect(get.CacheControl).toBe(reportedCacheControl(runtime, 'max-age=60', true));
  });

  it('uploads and downloads with aws-cli v2, metadata included', async () => {
    const dir = mkdtempSync(join(tmpdir(), `${bucket}-cli-`));
    try {
      writeFileSync(join(dir, 'up.txt'), 'uploaded by aws-cli\n');
      const up = await awsCli('v2', fx.gw.endpoint, ADMIN, ['s3', 'cp', join(dir, 'up.txt'), `s3://${bucket}/cli/up.txt`, '--metadata', 'who=cli', '--content-type', 'text/plain']);
      expect(up.stderr).toBe('');
      expect(up.code).toBe(0);
      const down = await awsCli('v2', fx.gw.endpoint, ADMIN, ['s3', 'cp', `s3://${bucket}/cli/up.txt`, join(dir, 'down.txt')]);
      expect(down).toMatchObject(expectedCliCopy(runtime));
      if (down.code === 0) expect(readFileSync(join(dir, 'down.txt'), 'utf8')).toBe('uploaded by aws-cli\n');
      const head = await awsCli('v2', fx.gw.endpoint, ADMIN, ['s3api', 'head-object', '--bucket', bucket, '--key', 'cli/up.txt']);
      expect(JSON.parse(head.stdout)).toMatchObject({ ContentType: 'text/plain', Metadata: { who: 'cli' } });
      expect(JSON.parse(head.stdout).ContentLength).toBe(reportedLength(runtime, 20));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('puts and gets with boto3 (Debian 1.26 writes, current boto3 reads), metadata and Cache-Control as stored on GET and HEAD', async () => {
    await boto3('boto3-debian', fx.gw.endpoint, ADMIN, `s3.put_object(Bucket='${bucket}', Key='py/obj.bin', Body=b'from boto3', Metadata={'k': 'v'}, CacheControl='max-age=60')`);
    const read = await boto3(
      'boto3-new',
      fx.gw.endpoint,
      ADMIN,
      `o = s3.get_object(Bucket='${bucket}', Key='py/obj.bin')\nh = s3.head_object(Bucket='${bucket}', Key='py/obj.bin')
result = [o['Body'].read().decode(), o['Metadata'], o.get('ContentLength'), o.get('CacheControl'), h['Metadata'], h.get('CacheControl')]`,
    );
    // A binary body (boto3 sends no type), which Cloudflare leaves alone: nothing is marked on any runtime.
    expect(read).toEqual(['from boto3', { k: 'v' }, reportedLength(runtime, 10) ?? null, 'max-age=60', { k: 'v' }, 'max-age=60']);
  });

  it('reads byte ranges, including suffix and open-ended ranges', async () => {
    const out = await fx.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'range.bin', Range: 'bytes=10-19' }));
    expect(out.ContentRange).toBe('bytes 10-19/1000');
    expect(Buffer.from(await out.Body!.transformToByteArray())).toEqual(RANGE_BODY.subarray(10, 20));
    const suffix = await fx.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'range.bin', Range: 'bytes=-5' }));
    expect(suffix.ContentRange).toBe('bytes 995-999/1000');
    expect(Buffer.from(await suffix.Body!.transformToByteArray())).toEqual(RANGE_BODY.subarray(995));
    const open = await boto3('boto3-new', fx.gw.endpoint, ADMIN, `result = list(s3.get_object(Bucket='${bucket}', Key='range.bin', Range='bytes=998-')['Body'].read())`);
    expect(open).toEqual([230, 231]);
  });

  it('answers conditional reads with 304 and 412', async () => {
    const head = await fx.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'range.bin' }));
    const get = (headers: Record<string, string>) => rawRequest(fx.gw.endpoint, { method: 'GET', target: `/${bucket}/range.bin`, headers }, ADMIN);
    const notModified = await get({ 'if-none-match': head.ETag ?? '' });
    expect(notModified.status).toBe(304);
    expect(notModified.headers['x-amz-request-id']).toBeTruthy();
    const failed = await get({ 'if-match': store.staleEtag });
    expect(failed.status).toBe(412);
    expect(errorCode(failed.body)).toBe('PreconditionFailed');
    const matched = await fx.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'range.bin', IfMatch: head.ETag }));
    expect(matched.ContentLength).toBe(reportedLength(runtime, 1000));
    const since = await get({ 'if-modified-since': new Date(Date.now() + 3600_000).toUTCString() });
    expect(since.status).toBe(304);
  });

  it('honours conditional writes: If-None-Match: * on an existing object and a stale If-Match are 412', async () => {
    const put = (Body: string, condition: { IfNoneMatch?: string; IfMatch?: string }) =>
      fx.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'cond/once.txt', Body, ...condition }));
    const first = await put('first', { IfNoneMatch: '*' });
    expect(await codeOf(put('second', { IfNoneMatch: '*' }))).toBe('PreconditionFailed');
    const raw = await rawRequest(fx.gw.endpoint, { method: 'PUT', target: `/${bucket}/cond/once.txt`, headers: { 'if-none-match': '*' }, body: 'third' }, ADMIN);
    expect(raw.status).toBe(412);
    expect(errorCode(raw.body)).toBe('PreconditionFailed');
    expect(await codeOf(put('stale', { IfMatch: store.staleEtag }))).toBe('PreconditionFailed');
    expect(await readText(fx.s3, bucket, 'cond/once.txt')).toBe('first');
    await put('fresh', { IfMatch: first.ETag });
    expect(await readText(fx.s3, bucket, 'cond/once.txt')).toBe('fresh');
  });

  it('deletes with 204, also when the key is missing, and then reads NoSuchKey', async () => {
    await fx.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'del/me.txt', Body: 'x' }));
    const del = () => rawRequest(fx.gw.endpoint, { method: 'DELETE', target: `/${bucket}/del/me.txt` }, ADMIN);
    expect((await del()).status).toBe(204);
    expect(await codeOf(fx.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'del/me.txt' })))).toBe('NoSuchKey');
    expect((await del()).status).toBe(204);
    await fx.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'del/never-existed' }));
    await fx.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'del/by-cli.txt', Body: 'x' }));
    const cli = await awsCli('v2', fx.gw.endpoint, ADMIN, ['s3', 'rm', `s3://${bucket}/del/by-cli.txt`]);
    expect(cli.code).toBe(0);
  });

  it('answers a missing key with NoSuchKey in S3 XML, and HEAD with a body-less 404', async () => {
    const missing = await rawRequest(fx.gw.endpoint, { method: 'GET', target: `/${bucket}/missing` }, ADMIN);
    expect(missing.status).toBe(404);
    expect(errorCode(missing.body)).toBe('NoSuchKey');
    const head = await rawRequest(fx.gw.endpoint, { method: 'HEAD', target: `/${bucket}/missing` }, ADMIN);
    expect(head.status).toBe(404);
    expect(head.body).toBe('');
  });

  it('tells an object\'s attributes from its HEAD (GetObjectAttributes), and NoSuchKey for a missing one', async () => {
    const ask = (Key: string) => fx.s3.send(new GetObjectAttributesCommand({ Bucket: bucket, Key, ObjectAttributes: ['ETag', 'ObjectParts', 'StorageClass', 'ObjectSize'] }));
    const head = await fx.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'range.bin' }));
    const out = await ask('range.bin');
    expect(out).toMatchObject({ ETag: head.ETag?.replace(/"/g, ''), ObjectSize: 1000, StorageClass: 'STANDARD', LastModified: head.LastModified });
    expect(out.ObjectParts).toBeUndefined();
    expect(await codeOf(ask('missing'))).toBe('NoSuchKey');
    // The SSE-C keys reach the store, which refuses them as it refuses them on a GET.
    const sseC = {
      'x-amz-object-attributes': 'ETag',
      'x-amz-server-side-encryption-customer-algorithm': 'AES256',
      'x-amz-server-side-encryption-customer-key': Buffer.alloc(32, 7).toString('base64'),
      'x-amz-server-side-encryption-customer-key-md5': createHash('md5').update(Buffer.alloc(32, 7)).digest('base64'),
    };
    const encrypted = await rawRequest(fx.gw.endpoint, { method: 'GET', target: `/${bucket}/range.bin?attributes`, headers: sseC }, ADMIN);
    expect([encrypted.status, errorCode(encrypted.body)]).toEqual([400, 'InvalidRequest']);
  });

  it('stores and reads special-character keys byte for byte', async () => {
    for (const key of store.specialKeys) await fx.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: `body of ${key}` }));
    for (const key of store.specialKeys) expect(await readText(fx.s3, bucket, key)).toBe(`body of ${key}`);
    expect((await store.backendNames('special/')).sort()).toEqual([...store.specialKeys].sort());
    const viaCli = await awsCli('v2', fx.gw.endpoint, ADMIN, ['s3', 'cp', `s3://${bucket}/special/100%25.txt`, '-']);
    expect(viaCli).toMatchObject(expectedCliCopy(runtime, 'body of special/100%25.txt'));
    const py = await boto3('boto3-new', fx.gw.endpoint, ADMIN, `result = s3.get_object(Bucket='${bucket}', Key='special/100%.txt')['Body'].read().decode()`);
    expect(py).toBe('body of special/100%.txt');
  });
}

function listingSpecs(store: StoreUnderTest, fx: StoreGateway): void {
  const { bucket } = store;
  const keysOf = (contents: { Key?: string }[] | undefined) => (contents ?? []).map((c) => c.Key ?? '');

  it('paginates V2 across pages with continuation tokens (JS SDK)', async () => {
    const keys: string[] = [];
    let pages = 0;
    for await (const page of paginateListObjectsV2({ client: fx.s3, pageSize: 10 }, { Bucket: bucket, Prefix: 'list/' })) {
      pages++;
      keys.push(...keysOf(page.Contents));
    }
    expect(keys).toEqual([...LIST_KEYS].sort());
    expect(pages).toBe(3);
  });

  it('paginates V1 with markers, including a plain key as marker (boto3 paginator)', async () => {
    const keys = await boto3(
      'boto3-new',
      fx.gw.endpoint,
      ADMIN,
      `result = [c['Key'] for p in s3.get_paginator('list_objects').paginate(Bucket='${bucket}', Prefix='list/', PaginationConfig={'PageSize': 7}) for c in p.get('Contents', [])]`,
    );
    expect(keys).toEqual([...LIST_KEYS].sort());
    const after = await fx.s3.send(new ListObjectsCommand({ Bucket: bucket, Prefix: 'list/', Marker: 'list/a-22', MaxKeys: 3 }));
    expect(keysOf(after.Contents)).toEqual(['list/a-23', 'list/a-24', 'list/dir1/x']);
    expect(after.IsTruncated).toBe(true);
  });

  it('groups by delimiter, and pages through common prefixes without repeating one', async () => {
    const out = await fx.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'list/', Delimiter: '/' }));
    expect(out.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['list/dir1/', 'list/dir2/']);
    expect(out.Contents).toHaveLength(25);
    expect(out.KeyCount).toBe(27);
    const seen: string[] = [];
    for await (const page of paginateListObjectsV2({ client: fx.s3, pageSize: 4 }, { Bucket: bucket, Prefix: 'list/', Delimiter: '/' })) {
      seen.push(...keysOf(page.Contents), ...(page.CommonPrefixes ?? []).map((p) => p.Prefix ?? ''));
    }
    expect(seen.sort()).toEqual([...LIST_KEYS.slice(0, 25), 'list/dir1/', 'list/dir2/'].sort());
    const cli = await awsCli('v2', fx.gw.endpoint, ADMIN, ['s3', 'ls', `s3://${bucket}/list/`]);
    expect(cli.stdout).toMatch(/PRE dir1\//);
    expect(cli.stdout).toMatch(/a-24/);
  });

  it('starts after a key and lists entries in S3 shape', async () => {
    const out = await fx.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'list/', StartAfter: 'list/a-22' }));
    expect(keysOf(out.Contents)).toEqual(['list/a-23', 'list/a-24', 'list/dir1/x', 'list/dir2/y']);
    const entry = out.Contents?.[0];
    expect(entry?.ETag).toMatch(store.etag);
    expect(entry?.Size).toBe(9);
    expect(entry?.StorageClass).toBe('STANDARD');
    expect(entry?.LastModified).toBeInstanceOf(Date);
  });

  it('refuses a continuation token from another listing', async () => {
    const first = await fx.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'list/', MaxKeys: 2 }));
    const other = fx.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'special/', ContinuationToken: first.NextContinuationToken }));
    expect(await codeOf(other)).toBe('InvalidArgument');
  });

  it('lists special-character keys exactly, plain and url-encoded', async () => {
    const js = await fx.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'special/' }));
    expect(keysOf(js.Contents).sort()).toEqual([...store.specialKeys].sort());
    const py = await boto3('boto3-new', fx.gw.endpoint, ADMIN, `result = [c['Key'] for c in s3.list_objects_v2(Bucket='${bucket}', Prefix='special/')['Contents']]`);
    expect((py as string[]).sort()).toEqual([...store.specialKeys].sort());
  });

  it('maps backend_prefix in and strips it out', async () => {
    const tenant = store.tenantBucket;
    const out = await fx.s3.send(new ListObjectsV2Command({ Bucket: tenant }));
    expect(keysOf(out.Contents)).toEqual(['doc1.txt', 'sub/doc2.txt']);
    const delimited = await fx.s3.send(new ListObjectsV2Command({ Bucket: tenant, Delimiter: '/' }));
    expect(keysOf(delimited.Contents)).toEqual(['doc1.txt']);
    expect(delimited.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['sub/']);
    expect(await readText(fx.s3, tenant, 'sub/doc2.txt')).toBe('doc2');
    await fx.s3.send(new PutObjectCommand({ Bucket: tenant, Key: 'new.txt', Body: 'n' }));
    expect(await store.backendHas('tenant-a/new.txt')).toBe(true);
  });
}

/**
 * What tools send to empty, mirror, move and copy: aws-cli's `rm --recursive` and `sync --delete` delete key
 * by key, s3cmd's `del --recursive` and the SDKs' batch deletes send DeleteObjects, `mv` and bucket-to-bucket
 * `cp` send CopyObject, which these stores serve key by key and with their own copies (docs/backends.md).
 */
function copyDeleteSpecs(store: StoreUnderTest, fx: StoreGateway): void {
  const { bucket, tenantBucket } = store;
  const put = (Key: string, Body: string, extra: Partial<PutObjectCommandInput> = {}) => fx.s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body, ...extra }));
  const cli = (args: readonly string[]) => awsCli('v2', fx.gw.endpoint, ADMIN, args);
  const deleteBody = (objects: string, quiet = false): { body: string; headers: Record<string, string> } => {
    const body = `<Delete>${quiet ? '<Quiet>true</Quiet>' : ''}${objects}</Delete>`;
    return { body, headers: { 'content-md5': createHash('md5').update(body).digest('base64') } };
  };

  it('GIVEN a small tree WHEN aws-cli removes it recursively THEN none of it is left, and the rest is', async () => {
    const keys = ['rm/a.txt', 'rm/b/c.txt', 'rm/b/d e&f.txt', ...Array.from({ length: 12 }, (_, i) => `rm/many/${i}.txt`)];
    await Promise.all([...keys, 'rm-kept.txt'].map((key) => put(key, `body of ${key}`)));
    const removed = await cli(['s3', 'rm', '--recursive', `s3://${bucket}/rm/`]);
    expect([removed.code, removed.stderr]).toEqual([0, '']);
    expect(await store.backendNames('rm')).toEqual(['rm-kept.txt']);
  });

  it('GIVEN a small tree WHEN s3cmd deletes it recursively (one DeleteObjects) THEN none of it is left, and the rest is', async () => {
    const keys = ['s3cmd-rm/a.txt', 's3cmd-rm/b/c.txt', 's3cmd-rm/b/d e&f.txt'];
    await Promise.all([...keys, 's3cmd-rm-kept.txt'].map((key) => put(key, `body of ${key}`)));
    const removed = await s3cmd(fx.gw.endpoint, ADMIN, ['del', '--recursive', `s3://${bucket}/s3cmd-rm/`]);
    expect([removed.code, removed.stderr]).toEqual([0, '']);
    expect(removed.stdout.match(/delete: /g)).toHaveLength(3);
    expect(await store.backendNames('s3cmd-rm')).toEqual(['s3cmd-rm-kept.txt']);
  });

  it('GIVEN a bucket holding what a folder lacks WHEN aws-cli syncs it with --delete THEN the bucket holds the folder', async () => {
    await put('sync/old.txt', 'old');
    await put('sync/sub/older.txt', 'older');
    const dir = mkdtempSync(join(tmpdir(), `${bucket}-sync-`));
    try {
      mkdirSync(join(dir, 'sub'));
      writeFileSync(join(dir, 'new.txt'), 'new');
      writeFileSync(join(dir, 'sub', 'newer.txt'), 'newer');
      const synced = await cli(['s3', 'sync', '--delete', dir, `s3://${bucket}/sync/`]);
      expect([synced.code, synced.stderr]).toEqual([0, '']);
      expect((await store.backendNames('sync/')).sort()).toEqual(['sync/new.txt', 'sync/sub/newer.txt']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('GIVEN an object WHEN aws-cli moves it and copies it to another bucket THEN body, type and metadata go with it', async () => {
    await put('mv/src.txt', 'moving body', { ContentType: 'text/x-moved', Metadata: { who: 'mover' } });
    const moved = await cli(['s3', 'mv', `s3://${bucket}/mv/src.txt`, `s3://${bucket}/mv/dst.txt`]);
    expect([moved.code, moved.stderr]).toEqual([0, '']);
    expect(await store.backendNames('mv/')).toEqual(['mv/dst.txt']);
    const copied = await cli(['s3', 'cp', `s3://${bucket}/mv/dst.txt`, `s3://${tenantBucket}/copied.txt`]);
    expect([copied.code, copied.stderr]).toEqual([0, '']);
    expect(await store.backendHas('tenant-a/copied.txt')).toBe(true);
    const head = await fx.s3.send(new HeadObjectCommand({ Bucket: tenantBucket, Key: 'copied.txt' }));
    expect([head.ContentType, head.Metadata]).toEqual(['text/x-moved', { who: 'mover' }]);
    expect(await readText(fx.s3, tenantBucket, 'copied.txt')).toBe('moving body');
  });

  it('GIVEN an object WHEN boto3 copies it (COPY, then REPLACE) THEN the result names the ETag HEAD gives, and the metadata follows the directive', async () => {
    await put('py/copy-src.txt', 'copied by boto3', { ContentType: 'text/x-src', Metadata: { old: 'kept' } });
    const out = (await boto3(
      'boto3-new',
      fx.gw.endpoint,
      ADMIN,
      `src = {'Bucket': '${bucket}', 'Key': 'py/copy-src.txt'}
kept = s3.copy_object(Bucket='${bucket}', Key='py/copy-kept.txt', CopySource=src)['CopyObjectResult']
h1 = s3.head_object(Bucket='${bucket}', Key='py/copy-kept.txt')
new = s3.copy_object(Bucket='${bucket}', Key='py/copy-new.txt', CopySource=src, MetadataDirective='REPLACE', Metadata={'new': 'yes'}, ContentType='text/x-new')['CopyObjectResult']
h2 = s3.head_object(Bucket='${bucket}', Key='py/copy-new.txt')
body = s3.get_object(Bucket='${bucket}', Key='py/copy-new.txt')['Body'].read().decode()
result = [kept['ETag'] == h1['ETag'], h1['Metadata'], h1['ContentType'], new['ETag'] == h2['ETag'], h2['Metadata'], h2['ContentType'], body, 'LastModified' in new]`,
    )) as unknown[];
    expect(out).toEqual([true, { old: 'kept' }, 'text/x-src', true, { new: 'yes' }, 'text/x-new', 'copied by boto3', true]);
  });

  it('GIVEN copy-source conditions, a missing source, an unknown directive or a copy onto itself THEN S3\'s errors', async () => {
    const { ETag } = await put('cond-copy/src.txt', 'conditional');
    const copy = (headers: Record<string, string>) =>
      rawRequest(fx.gw.endpoint, { method: 'PUT', target: `/${bucket}/cond-copy/dst.txt`, headers: { 'x-amz-copy-source': `/${bucket}/cond-copy/src.txt`, ...headers } }, ADMIN);
    const answers = async (cases: Record<string, string>[]) => Promise.all(cases.map(async (headers) => { const res = await copy(headers); return [res.status, errorCode(res.body) ?? '']; }));
    expect(await answers([
      { 'x-amz-copy-source-if-match': store.staleEtag },
      { 'x-amz-copy-source-if-none-match': ETag ?? '' },
      { 'x-amz-copy-source-if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' },
      { 'x-amz-copy-source-if-modified-since': new Date(Date.now() + 3600_000).toUTCString() },
      { 'x-amz-copy-source': `/${bucket}/cond-copy/missing.txt` },
      { 'x-amz-metadata-directive': 'MERGE' },
    ])).toEqual([
      [412, 'PreconditionFailed'], [412, 'PreconditionFailed'], [412, 'PreconditionFailed'], [412, 'PreconditionFailed'],
      [404, 'NoSuchKey'], [400, 'InvalidArgument'],
    ]);
    expect(await store.backendHas('cond-copy/dst.txt')).toBe(false);
    const matched = await copy({ 'x-amz-copy-source-if-match': ETag ?? '' });
    expect(matched.status).toBe(200);
    expect(matched.body).toMatch(/<CopyObjectResult xmlns="http:\/\/s3.amazonaws.com\/doc\/2006-03-01\/"><LastModified>\d{4}-.+Z<\/LastModified><ETag>&quot;.+&quot;<\/ETag><\/CopyObjectResult>/);
    const itself = await rawRequest(fx.gw.endpoint, { method: 'PUT', target: `/${bucket}/cond-copy/src.txt`, headers: { 'x-amz-copy-source': `/${bucket}/cond-copy/src.txt` } }, ADMIN);
    expect([itself.status, errorCode(itself.body)]).toEqual([400, 'InvalidRequest']);
  });

  it('GIVEN keys to delete WHEN boto3 deletes them in one request THEN each is reported, a missing one as deleted', async () => {
    await Promise.all(['py/del-1.txt', 'py/del-2.txt'].map((key) => put(key, key)));
    const out = await boto3(
      'boto3-new',
      fx.gw.endpoint,
      ADMIN,
      `r = s3.delete_objects(Bucket='${bucket}', Delete={'Objects': [{'Key': 'py/del-1.txt'}, {'Key': 'py/del-2.txt'}, {'Key': 'py/never.txt'}]})
result = [sorted(d['Key'] for d in r.get('Deleted', [])), r.get('Errors', [])]`,
    );
    expect(out).toEqual([['py/del-1.txt', 'py/del-2.txt', 'py/never.txt'], []]);
    expect(await store.backendNames('py/del-')).toEqual([]);
  });

  it('GIVEN entries with an ETag in Quiet mode THEN each key gets DeleteObject\'s answer on this store, and only errors are reported', async () => {
    const { ETag } = await put('cond-del/right.txt', 'right');
    await put('cond-del/stale.txt', 'stale');
    const { body, headers } = deleteBody(
      `<Object><Key>cond-del/right.txt</Key><ETag>${ETag}</ETag></Object>` +
        `<Object><Key>cond-del/stale.txt</Key><ETag>${store.staleEtag}</ETag></Object>` +
        '<Object><Key>cond-del/gone.txt</Key><ETag>"abc"</ETag></Object>',
      true,
    );
    const res = await rawRequest(fx.gw.endpoint, { method: 'POST', target: `/${bucket}?delete`, headers, body }, ADMIN);
    expect(res.status).toBe(200);
    expect(res.body).not.toContain('<Deleted>');
    const errors = [...res.body.matchAll(/<Error><Key>([^<]*)<\/Key><Code>([^<]*)<\/Code>/g)].map((m) => [m[1], m[2]]);
    expect(errors).toEqual([['cond-del/stale.txt', 'PreconditionFailed'], ['cond-del/gone.txt', 'NoSuchKey']]);
    expect(await store.backendNames('cond-del/')).toEqual(['cond-del/stale.txt']);
  });
}
