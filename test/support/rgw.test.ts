/** Proves the Ceph RGW harness gives a real, strict S3 and cleans up after itself. */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  GetObjectCommand,
  ListBucketsCommand,
  ListObjectVersionsCommand,
  PutObjectCommand,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { createBucket, Rgw, rgwS3Client, startRgw } from './rgw';

/** PIDs of live processes started with this cluster's ceph.conf (zombies have an empty cmdline). */
async function daemonPids(dir: string): Promise<number[]> {
  const marker = join(dir, 'ceph.conf');
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').includes(marker)) pids.push(Number(entry));
  }
  return pids;
}

describe('Ceph RGW test harness', () => {
  let rgw: Rgw;

  beforeAll(async () => {
    rgw = await startRgw();
  });

  afterAll(async () => {
    await rgw?.stop(); // idempotent: also covers a failure before the stop test
  });

  it('exposes a loopback endpoint in us-east-1', () => {
    expect(rgw.endpoint).toBe(`http://127.0.0.1:${rgw.port}`);
    expect(rgw.region).toBe('us-east-1');
  });

  it('keeps every version of an object in a versioned bucket', async () => {
    const bucket = 'harness-versioned';
    await createBucket(rgw, bucket, { versioning: true });
    const s3 = rgwS3Client(rgw);
    try {
      const first = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'doc.txt', Body: 'first' }));
      const second = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'doc.txt', Body: 'second' }));
      expect(first.VersionId).toBeTruthy();
      expect(second.VersionId).not.toBe(first.VersionId);

      const listed = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'doc.txt' }));
      const versions = listed.Versions ?? [];
      expect(versions.map((v) => v.VersionId).sort()).toEqual([first.VersionId, second.VersionId].sort());
      expect(versions.find((v) => v.IsLatest)?.VersionId).toBe(second.VersionId);

      const old = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'doc.txt', VersionId: first.VersionId }));
      expect(await old.Body?.transformToString()).toBe('first');
    } finally {
      s3.destroy();
    }
  });

  it('rejects a request signed with the wrong secret with 403 SignatureDoesNotMatch', async () => {
    const s3 = rgwS3Client(rgw, {
      credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: `${rgw.secretAccessKey.slice(0, -1)}X` },
      maxAttempts: 1,
    });
    try {
      const error = await s3.send(new ListBucketsCommand({})).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(S3ServiceException);
      const s3Error = error as S3ServiceException;
      expect(s3Error.name).toBe('SignatureDoesNotMatch');
      expect(s3Error.$metadata.httpStatusCode).toBe(403);
    } finally {
      s3.destroy();
    }
  });

  it('answers radosgw-admin through admin()', async () => {
    const info = JSON.parse(await rgw.admin(['user', 'info', '--uid', 'tester'])) as {
      keys: { access_key: string }[];
    };
    expect(info.keys.map((k) => k.access_key)).toContain(rgw.accessKeyId);
  });

  it('stops every daemon and removes its temp dir', async () => {
    expect((await daemonPids(rgw.dir)).length).toBe(3); // mon, osd, radosgw
    await rgw.stop();
    expect(await daemonPids(rgw.dir)).toEqual([]);
    expect(existsSync(rgw.dir)).toBe(false);
  });
});
