import {
  CreateMultipartUploadCommand,
  GetBucketVersioningCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  ListObjectVersionsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rclone } from '../support/clients';
import { RUNTIMES, RUNTIME_LIMITS, type RuntimeName } from '../support/gateway';
import { rawRequest, errorCode } from '../support/raw-request';
import { ADMIN, putDirect, readText } from './fixtures';
import { startOpsBackends, startOpsGateway, type OpsBackends, type OpsGateway } from './s3-ops-fixtures';
import { exists, readBytes } from './write-fixtures';

/**
 * rclone with its default settings (issue 20): before it writes, it sends CreateBucket (`no_check_bucket`
 * is off), which the gateway answers as S3 answers a bucket's owner, 409 BucketAlreadyOwnedByYou; rclone
 * takes that as success and uploads, streams `rcat`, copies server-side, runs `settier`, and finds and
 * aborts the uploads left behind (`backend list-multipart-uploads`, `backend cleanup`).
 *
 * CI time: the upload cutoff and chunk size are lowered to 5 MiB (`--s3-upload-cutoff 5M --s3-chunk-size 5M`)
 * so a 12 MiB file goes up in three parts instead of a file above rclone's 200 MiB default cutoff, and the
 * server-side copy cutoff to 5 MiB so a 12 MiB object is copied in parts (UploadPartCopy): the same
 * requests as with the defaults, at a fraction of the time. On the Lambda Function URL, 5 MiB parts exceed
 * the platform's request limit (RUNTIME_LIMITS): there the multipart upload shows the front's 413 instead.
 * The Function URL also renames the Content-Length of HEAD answers (`remapsContentLength`), so rclone's size
 * check after each write reads 0 and fails: there the writes run with `--s3-no-head --ignore-size`, and the
 * defaults' failure is shown once.
 */
const MiB = 1024 * 1024;
const SMALL_PARTS = ['--s3-upload-cutoff', '5M', '--s3-chunk-size', '5M'];
let backends: OpsBackends;
let dir: string;
let big: Buffer;
const rgw = (): S3Client => backends.direct;
const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** What a CreateBucket could change on RGW: its buckets, and the versioning and object versions of `copies`. */
async function backendState(): Promise<unknown> {
  const [buckets, versioning, versions] = await Promise.all([
    rgw().send(new ListBucketsCommand({})),
    rgw().send(new GetBucketVersioningCommand({ Bucket: 'copies' })),
    rgw().send(new ListObjectVersionsCommand({ Bucket: 'copies' })),
  ]);
  return {
    buckets: buckets.Buckets?.map((b) => b.Name).sort(),
    versioning: versioning.Status,
    versions: [...(versions.Versions ?? []), ...(versions.DeleteMarkers ?? [])].map((v) => `${v.Key}@${v.VersionId}`).sort(),
  };
}

beforeAll(async () => {
  backends = await startOpsBackends();
  dir = mkdtempSync(join(tmpdir(), 'rclone-'));
  big = randomBytes(12 * MiB);
  mkdirSync(join(dir, 'up'));
  writeFileSync(join(dir, 'up', 'big.bin'), big);
  writeFileSync(join(dir, 'up', 'small.txt'), 'small file');
  await putDirect(rgw(), 'vers', 'rclone-src/big.bin', big, 'application/octet-stream');
}, 120_000);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await backends?.stop();
});

describe.each(RUNTIMES)('rclone with its default settings (%s runtime)', (runtime: RuntimeName) => {
  let ops: OpsGateway;
  const limit = RUNTIME_LIMITS[runtime].maxRequestBodyBytes;
  const partsFit = limit === undefined || 5 * MiB <= limit;
  const remapsLength = RUNTIME_LIMITS[runtime].remapsContentLength === true;
  /** Where a HEAD answer carries no Content-Length, rclone must not check sizes with one. */
  const noHead = remapsLength ? ['--s3-no-head', '--ignore-size'] : [];
  const base = `rclone/${runtime}`;

  beforeAll(async () => {
    ops = await startOpsGateway(runtime, backends);
  }, 60_000);

  afterAll(() => ops?.stop());

  it('its CreateBucket on an existing virtual bucket is 409 BucketAlreadyOwnedByYou, and nothing else changes', async () => {
    const before = await backendState();
    const res = await rawRequest(ops.gw.endpoint, { method: 'PUT', target: '/copies' }, ADMIN);
    expect([res.status, errorCode(res.body)]).toEqual([409, 'BucketAlreadyOwnedByYou']);
    // Answered by the gateway alone: its access-log line names no backend answer, and RGW is as it was.
    const requestId = String(res.headers['x-amz-request-id']);
    expect(await ops.gw.logged(new RegExp(`"requestId":"${requestId}"`))).toBe(true);
    const line: unknown = JSON.parse(ops.gw.logs().split('\n').find((l) => l.includes(`"requestId":"${requestId}"`)) ?? '{}');
    expect(line).toMatchObject({ method: 'PUT', path: '/copies', status: 409, errorCode: 'BucketAlreadyOwnedByYou' });
    expect(line).not.toHaveProperty('backendStatus');
    expect(await backendState()).toEqual(before);
  });

  if (partsFit) {
    it('copies a directory up, its 12 MiB file in 5 MiB parts', async () => {
      const run = await rclone(ops.gw.endpoint, ADMIN, ['copy', join(dir, 'up'), `gw:vers/${base}/up`, ...SMALL_PARTS, ...noHead]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(sha(await readBytes(rgw(), 'vers', `${base}/up/big.bin`))).toBe(sha(big));
      expect(await readText(rgw(), 'vers', `${base}/up/small.txt`)).toBe('small file');
    });
  } else {
    it('copies a directory up: the small file arrives; the 5 MiB parts get the front\'s 413 and the large file never appears', async () => {
      const run = await rclone(ops.gw.endpoint, ADMIN, ['copy', join(dir, 'up'), `gw:vers/${base}/up`, ...SMALL_PARTS, ...noHead]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/413|Request Entity Too Large/);
      expect(await readText(rgw(), 'vers', `${base}/up/small.txt`)).toBe('small file');
      expect(await exists(rgw(), 'vers', `${base}/up/big.bin`)).toBe(false);
    });
  }

  it('rcat streams its input to an object, after its CreateBucket', async () => {
    const run = await rclone(ops.gw.endpoint, ADMIN, ['rcat', `gw:vers/${base}/rcat.txt`, ...noHead], 'streamed by rcat\n');
    expect(run.stderr).toBe('');
    expect(await ops.gw.logged(/"method":"PUT","path":"\/vers","status":409/)).toBe(true);
    expect(await readText(rgw(), 'vers', `${base}/rcat.txt`)).toBe('streamed by rcat\n');
  });

  it('copies server-side between two virtual buckets, a 12 MiB object in parts', async () => {
    const run = await rclone(ops.gw.endpoint, ADMIN, ['copy', 'gw:vers/rclone-src', `gw:copies/${base}`, '--s3-copy-cutoff', '5M', ...noHead]);
    expect(run.stderr).toBe('');
    expect(sha(await readBytes(rgw(), 'copies', `${base}/big.bin`))).toBe(sha(big));
  });

  if (remapsLength) {
    it('with its defaults, rclone\'s size check after a write fails: the platform renamed the Content-Length of the HEAD answer', async () => {
      const run = await rclone(ops.gw.endpoint, ADMIN, ['rcat', `gw:vers/${base}/rcat-defaults.txt`], 'checked by HEAD\n');
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/sizes differ \d+ vs 0/);
    });
  }

  it('backend list-multipart-uploads shows an upload left behind, and backend cleanup aborts it', async () => {
    const key = `${base}/left/behind.bin`;
    const { UploadId } = await rgw().send(new CreateMultipartUploadCommand({ Bucket: 'vers', Key: key }));
    const listed = await rclone(ops.gw.endpoint, ADMIN, ['backend', 'list-multipart-uploads', 'gw:vers']);
    expect(listed.code).toBe(0);
    const uploads = (JSON.parse(listed.stdout) as { vers: { Key: string; UploadId: string }[] }).vers;
    expect(uploads.map((u) => [u.Key, u.UploadId])).toEqual([[key, UploadId]]);
    const cleanup = await rclone(ops.gw.endpoint, ADMIN, ['backend', 'cleanup', 'gw:vers', '-o', 'max-age=0s']);
    expect(cleanup.code).toBe(0);
    expect((await rgw().send(new ListMultipartUploadsCommand({ Bucket: 'vers', Prefix: base }))).Uploads).toBeUndefined();
  });

  it('settier copies each object onto itself in another storage class', async () => {
    await putDirect(rgw(), 'copies', `${base}/tier/a.txt`, 'tiered');
    const run = await rclone(ops.gw.endpoint, ADMIN, ['settier', 'STANDARD_IA', `gw:copies/${base}/tier`]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const head = await rgw().send(new HeadObjectCommand({ Bucket: 'copies', Key: `${base}/tier/a.txt` }));
    expect(head.StorageClass).toBe('STANDARD_IA');
    expect(await readText(rgw(), 'copies', `${base}/tier/a.txt`)).toBe('tiered');
  });
});
