import { GetObjectTaggingCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildChunkedUpload, sendUpload } from '../support/aws-chunked';
import { AWS_CLIS, PYTHONS, awsCli, boto3 } from '../support/clients';
import { RUNTIMES, TRANSPORT_RUNTIMES, startGateway, type RunningGateway } from '../support/gateway';
import { errorCode, rawRequest } from '../support/raw-request';
import { ADMIN, codeOf, gatewayEnv, putDirect, readText, startBackends, type Backends } from './fixtures';
import { WRITER, exists, readBytes, useWriteGateway, writeConfig } from './write-fixtures';

/**
 * PutObject and DeleteObject through the gateway with the real clients, against Ceph RGW (strict: checks
 * signatures and payload hashes itself) and s3rver (stores whatever it is sent, so it proves what the
 * gateway sent). Every refused write is followed by a look at the backend: nothing was committed.
 */
let backends: Backends;
let dir: string;
const KIB = Buffer.from(Array.from({ length: 1024 }, (_, i) => (i * 7) % 256));

/** The two S3 implementations, as virtual bucket and backend bucket with a direct client. */
const TARGETS = [
  { bucket: 'strict', backendBucket: 'data', backend: 'rgw' },
  { bucket: 'private', backendBucket: 'private', backend: 's3rver' },
] as const;

const direct = (backend: 'rgw' | 's3rver'): S3Client => backends.direct[backend];
const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

beforeAll(async () => {
  backends = await startBackends();
  dir = mkdtempSync(join(tmpdir(), 'write-'));
  writeFileSync(join(dir, 'empty.bin'), Buffer.alloc(0));
  writeFileSync(join(dir, 'kib.bin'), KIB);
  mkdirSync(join(dir, 'small'));
  writeFileSync(join(dir, 'small', 'empty.bin'), Buffer.alloc(0));
  writeFileSync(join(dir, 'small', 'kib.bin'), KIB);
}, 120_000);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await backends?.stop();
});

describe.each(TRANSPORT_RUNTIMES)('writing through the gateway (%s runtime)', (runtime) => {
  const fx = useWriteGateway(runtime, () => backends);

  describe('PutObject', () => {
    it.each(Object.keys(AWS_CLIS) as Array<keyof typeof AWS_CLIS>)('aws-cli %s uploads 0 B and 1 KiB files byte for byte', async (cli) => {
      for (const t of TARGETS) {
        // One run per target uploads both files (a PutObject each): every aws-cli start costs a second.
        const run = await awsCli(cli, fx.gw.endpoint, ADMIN, ['s3', 'cp', '--recursive', join(dir, 'small'), `s3://${t.bucket}/cli-${cli}/${runtime}/`]);
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        for (const [file, bytes] of [['empty.bin', Buffer.alloc(0)], ['kib.bin', KIB]] as const) {
          const key = `cli-${cli}/${runtime}/${file}`;
          // Read from the backend itself: s3rver would have kept any framing the gateway passed on.
          expect((await readBytes(direct(t.backend), t.backendBucket, key)).equals(bytes)).toBe(true);
          expect((await readBytes(fx.admin, t.bucket, key)).equals(bytes)).toBe(true);
        }
      }
    });

    it('aws s3 cp --metadata, --content-type and --cache-control round-trip (signed on the backend request)', async () => {
      for (const t of TARGETS) {
        for (const cli of Object.keys(AWS_CLIS) as Array<keyof typeof AWS_CLIS>) {
          const key = `meta/${runtime}/${cli}.csv`;
          const run = await awsCli(cli, fx.gw.endpoint, ADMIN, [
            's3', 'cp', join(dir, 'kib.bin'), `s3://${t.bucket}/${key}`,
            '--metadata', 'owner=alice,purpose=round trip', '--content-type', 'text/csv', '--cache-control', 'max-age=60',
          ]);
          expect(run.code).toBe(0);
          const head = await fx.admin.send(new HeadObjectCommand({ Bucket: t.bucket, Key: key }));
          expect(head.Metadata).toEqual({ owner: 'alice', purpose: 'round trip' });
          expect(head.ContentType).toBe('text/csv');
          expect(head.CacheControl).toBe('max-age=60');
        }
      }
    });

    it.each(Object.keys(PYTHONS) as Array<keyof typeof PYTHONS>)('%s put_object with disposition, language, tagging and metadata', async (python) => {
      const key = `boto/${runtime}/${python}.txt`;
      const out = await boto3(python, fx.gw.endpoint, ADMIN, `
s3.put_object(Bucket='strict', Key='${key}', Body=b'from boto3', ContentDisposition='attachment; filename="x.txt"',
              ContentLanguage='de', Tagging='team=storage&tier=hot', Metadata={'k': 'v'})
h = s3.head_object(Bucket='strict', Key='${key}')
result = [s3.get_object(Bucket='strict', Key='${key}')['Body'].read().decode(), h['ContentDisposition'], h['ContentLanguage'], h['Metadata']]`);
      expect(out).toEqual(['from boto3', 'attachment; filename="x.txt"', 'de', { k: 'v' }]);
      const tags = await direct('rgw').send(new GetObjectTaggingCommand({ Bucket: 'data', Key: key }));
      expect(tags.TagSet?.map((t) => `${t.Key}=${t.Value}`).sort()).toEqual(['team=storage', 'tier=hot']);
    });

    it('JS SDK PutObject with a string body (signed SHA-256 and a CRC32 header) on both backends', async () => {
      for (const t of TARGETS) {
        const key = `js/${runtime}/string.txt`;
        await fx.admin.send(new PutObjectCommand({ Bucket: t.bucket, Key: key, Body: 'a string body', ContentType: 'text/plain' }));
        expect(await readText(direct(t.backend), t.backendBucket, key)).toBe('a string body');
      }
    });

    it('a body that does not match its signed x-amz-content-sha256 is XAmzContentSHA256Mismatch; nothing is written', async () => {
      for (const t of TARGETS) {
        const key = `bad-sha/${runtime}.txt`;
        const res = await rawRequest(fx.gw.endpoint, { method: 'PUT', target: `/${t.bucket}/${key}`, headers: { 'x-amz-content-sha256': sha256('what was signed') }, body: 'what was sent!!' }, ADMIN);
        expect(res.status).toBe(400);
        expect(errorCode(res.body)).toBe('XAmzContentSHA256Mismatch');
        expect(await exists(direct(t.backend), t.backendBucket, key)).toBe(false);
      }
    });

    it('a wrong x-amz-checksum-crc32 header is BadDigest; nothing is written', async () => {
      for (const t of TARGETS) {
        const key = `bad-crc/${runtime}.txt`;
        const res = await rawRequest(fx.gw.endpoint, { method: 'PUT', target: `/${t.bucket}/${key}`, headers: { 'x-amz-checksum-crc32': 'AAAAAA==' }, body: 'hello' }, ADMIN);
        expect(res.status).toBe(400);
        expect(errorCode(res.body)).toBe('BadDigest');
        expect(await exists(direct(t.backend), t.backendBucket, key)).toBe(false);
      }
    });

    it('a body with Transfer-Encoding: chunked and no length is 411 MissingContentLength, as on S3', async () => {
      const res = await rawRequest(fx.gw.endpoint, { method: 'PUT', target: '/strict/uploads/te.txt', headers: { 'transfer-encoding': 'chunked' }, body: 'no length' }, ADMIN);
      expect(res.status).toBe(411);
      expect(errorCode(res.body)).toBe('MissingContentLength');
      expect(await exists(direct('rgw'), 'data', 'uploads/te.txt')).toBe(false);
    });

    it('scopes: a write outside the granted prefix is AccessDenied, inside it works', async () => {
      expect(await codeOf(fx.writer.send(new PutObjectCommand({ Bucket: 'strict', Key: 'elsewhere.txt', Body: 'x' })))).toBe('AccessDenied');
      await fx.writer.send(new PutObjectCommand({ Bucket: 'strict', Key: `uploads/${runtime}/ok.txt`, Body: 'ok' }));
      expect(await readText(direct('rgw'), 'data', `uploads/${runtime}/ok.txt`)).toBe('ok');
    });

    it('a presigned PUT (boto3) streams the body untouched', async () => {
      const url = (await boto3('boto3-new', fx.gw.endpoint, ADMIN, `
s3 = boto3.client('s3', endpoint_url=s3.meta.endpoint_url, region_name='us-east-1', config=Config(signature_version='s3v4', s3={'addressing_style': 'path'}))
result = s3.generate_presigned_url('put_object', Params={'Bucket': 'strict', 'Key': 'presigned/${runtime}.bin'}, ExpiresIn=300)`)) as string;
      const res = await fetch(url, { method: 'PUT', body: KIB });
      expect(res.status).toBe(200);
      expect((await readBytes(direct('rgw'), 'data', `presigned/${runtime}.bin`)).equals(KIB)).toBe(true);
    });

    it('maps keys under backend_prefix', async () => {
      await fx.admin.send(new PutObjectCommand({ Bucket: 'tenant', Key: `${runtime}/in-tenant.txt`, Body: 'tenant data' }));
      expect(await readText(direct('rgw'), 'data', `tenant-a/${runtime}/in-tenant.txt`)).toBe('tenant data');
    });
  });

  describe('conditional writes pass the backend\'s 412 through (RGW; s3rver has none)', () => {
    const key = `conditional/${runtime}.txt`;
    beforeAll(() => putDirect(direct('rgw'), 'data', key, 'original'));

    it('If-None-Match: * on an existing key', async () => {
      const res = await rawRequest(fx.gw.endpoint, { method: 'PUT', target: `/strict/${key}`, headers: { 'if-none-match': '*' }, body: 'replaced' }, ADMIN);
      expect(res.status).toBe(412);
      expect(errorCode(res.body)).toBe('PreconditionFailed');
      expect(await readText(direct('rgw'), 'data', key)).toBe('original');
    });

    it('a stale If-Match', async () => {
      const res = await rawRequest(fx.gw.endpoint, { method: 'PUT', target: `/strict/${key}`, headers: { 'if-match': '"00000000000000000000000000000000"' }, body: 'replaced' }, ADMIN);
      expect(res.status).toBe(412);
      expect(await readText(direct('rgw'), 'data', key)).toBe('original');
    });

    it('If-Match with the ETag the client was given, quoted as S3 gives it (RGW 16 matches only the bare one), writes', async () => {
      const etag = (await direct('rgw').send(new HeadObjectCommand({ Bucket: 'data', Key: key }))).ETag ?? '';
      expect(etag).toMatch(/^".+"$/);
      const res = await rawRequest(fx.gw.endpoint, { method: 'PUT', target: `/strict/${key}`, headers: { 'if-match': etag }, body: 'original' }, ADMIN);
      expect(res.status).toBe(200);
    });

    it('If-None-Match: * on a new key succeeds', async () => {
      const res = await rawRequest(fx.gw.endpoint, { method: 'PUT', target: `/strict/${key}.new`, headers: { 'if-none-match': '*' }, body: 'fresh' }, ADMIN);
      expect(res.status).toBe(200);
      expect(await readText(direct('rgw'), 'data', `${key}.new`)).toBe('fresh');
    });
  });

  describe('DeleteObject', () => {
    it('deletes and answers the backend\'s 204 (a versionId names a version: versions.test.ts)', async () => {
      for (const t of TARGETS) {
        const key = `delete-me/${runtime}.txt`;
        await putDirect(direct(t.backend), t.backendBucket, key, 'x');
        const res = await rawRequest(fx.gw.endpoint, { method: 'DELETE', target: `/${t.bucket}/${key}` }, ADMIN);
        expect(res.status).toBe(204);
        expect(await exists(direct(t.backend), t.backendBucket, key)).toBe(false);
      }
    });

    it('is authorized per key', async () => {
      await putDirect(direct('rgw'), 'data', 'readable/keep.txt', 'keep');
      const res = await rawRequest(fx.gw.endpoint, { method: 'DELETE', target: '/strict/readable/keep.txt' }, WRITER);
      expect(res.status).toBe(403);
      expect(await exists(direct('rgw'), 'data', 'readable/keep.txt')).toBe(true);
    });
  });

  describe('aws s3 sync and rm --recursive', () => {
    it.each(Object.keys(AWS_CLIS) as Array<keyof typeof AWS_CLIS>)('aws-cli %s syncs a directory up and removes it again', async (cli) => {
      const prefix = `sync-${cli}/${runtime}/`;
      const sync = await awsCli(cli, fx.gw.endpoint, ADMIN, ['s3', 'sync', dir, `s3://strict/${prefix}`]);
      expect(sync.code).toBe(0);
      expect(await readBytes(direct('rgw'), 'data', `${prefix}kib.bin`)).toEqual(KIB);
      const again = await awsCli(cli, fx.gw.endpoint, ADMIN, ['s3', 'sync', dir, `s3://strict/${prefix}`]);
      expect(again.stdout).toBe(''); // nothing changed, nothing uploaded
      const rm = await awsCli(cli, fx.gw.endpoint, ADMIN, ['s3', 'rm', '--recursive', `s3://strict/${prefix}`]);
      expect(rm.code).toBe(0);
      expect(await exists(direct('rgw'), 'data', `${prefix}kib.bin`)).toBe(false);
      expect(await exists(direct('rgw'), 'data', `${prefix}empty.bin`)).toBe(false);
    });
  });
});

describe.each(RUNTIMES)('upload limits: MAX_UPLOAD_BYTES=1024 (%s runtime)', (runtime) => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: writeConfig(backends), env: { ...gatewayEnv(backends), MAX_UPLOAD_BYTES: '1024' } });
  }, 60_000);

  afterAll(() => gw?.stop());

  it('PutObject with a declared Content-Length above the limit is EntityTooLarge; nothing reaches the backend', async () => {
    const res = await rawRequest(gw.endpoint, { method: 'PUT', target: '/strict/limits/too-big.bin', body: Buffer.alloc(1025) }, ADMIN);
    expect(res.status).toBe(400);
    expect(errorCode(res.body)).toBe('EntityTooLarge');
    expect(await exists(direct('rgw'), 'data', 'limits/too-big.bin')).toBe(false);
    const fits = await rawRequest(gw.endpoint, { method: 'PUT', target: `/strict/limits/${runtime}-fits.bin`, body: Buffer.alloc(1024) }, ADMIN);
    expect(fits.status).toBe(200);
  });

  it('an aws-chunked PutObject is measured by its x-amz-decoded-content-length', async () => {
    const upload = await buildChunkedUpload(gw.endpoint, ADMIN, {
      target: '/strict/limits/chunked.bin',
      payload: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      data: Buffer.alloc(2048, 1),
      checksum: { algorithm: 'crc32' },
      transferEncodingChunked: true,
    });
    const res = await sendUpload(gw.endpoint, upload);
    expect(res.status).toBe(400);
    expect(errorCode(res.body)).toBe('EntityTooLarge');
    expect(await exists(direct('rgw'), 'data', 'limits/chunked.bin')).toBe(false);
  });

  it('UploadPart and DeleteObjects are limited too', async () => {
    const part = await rawRequest(gw.endpoint, { method: 'PUT', target: '/strict/limits/mp.bin?partNumber=1&uploadId=whatever', body: Buffer.alloc(2000) }, ADMIN);
    expect(part.status).toBe(400);
    expect(errorCode(part.body)).toBe('EntityTooLarge');
    const keys = Array.from({ length: 40 }, (_, i) => `<Object><Key>limits/key-${i}</Key></Object>`).join('');
    const del = await rawRequest(gw.endpoint, { method: 'POST', target: '/strict?delete', body: `<Delete>${keys}</Delete>` }, ADMIN);
    expect(del.status).toBe(400);
    expect(errorCode(del.body)).toBe('EntityTooLarge');
  });
});
