import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { startS3rver, type S3rver } from '../../scripts/s3rver';
import { jsClient } from '../support/clients';
import { copySource, readText } from '../e2e/fixtures';

/**
 * The s3rver that `npm start` and the suites run answers six things as S3 does that s3rver alone does
 * not (scripts/s3rver-fixes.cjs): delimiter listings over folders that hold only deeper folders, copies of
 * keys with the characters `decodeURI` leaves encoded, suffix ranges, part copies, batch deletes of keys
 * that share a folder, and conditional writes.
 */
let s3rver: S3rver;
let s3: S3Client;

beforeAll(async () => {
  s3rver = await startS3rver({ buckets: ['b'] });
  s3 = jsClient(s3rver.endpoint, s3rver);
  for (const key of ['top/only-deeper/x/f1.txt', 'top/only-deeper/y/f2.txt', 'top/direct/f3.txt', 'top/file.txt', 'top-level.txt']) {
    await s3.send(new PutObjectCommand({ Bucket: 'b', Key: key, Body: key }));
  }
}, 60_000);

afterAll(async () => {
  s3?.destroy();
  await s3rver?.stop();
});

describe('delimiter listings', () => {
  it('show a folder that holds only deeper folders as a common prefix, once (V2 and V1)', async () => {
    const v2 = await s3.send(new ListObjectsV2Command({ Bucket: 'b', Prefix: 'top/', Delimiter: '/' }));
    expect(v2.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['top/direct/', 'top/only-deeper/']);
    expect(v2.Contents?.map((c) => c.Key)).toEqual(['top/file.txt']);
    const v1 = await s3.send(new ListObjectsCommand({ Bucket: 'b', Prefix: 'top/only-deeper/', Delimiter: '/' }));
    expect(v1.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['top/only-deeper/x/', 'top/only-deeper/y/']);
  });

  it('fold with any delimiter, not only at folder boundaries', async () => {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: 'b', Delimiter: '-' }));
    expect(out.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['top-', 'top/only-']);
    expect(out.Contents?.map((c) => c.Key)).toEqual(['top/direct/f3.txt', 'top/file.txt']);
  });

  it('leave a listing without a delimiter as it was', async () => {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: 'b', Prefix: 'top/' }));
    expect(out.Contents?.map((c) => c.Key)).toEqual(['top/direct/f3.txt', 'top/file.txt', 'top/only-deeper/x/f1.txt', 'top/only-deeper/y/f2.txt']);
  });
});

describe('copies', () => {
  it('find a source key holding + # $ & , : ; = ? @, sent encoded as S3 expects', async () => {
    const key = 'special/a+b#c$d&e,f:g;h=i?j@k 100%.txt';
    await s3.send(new PutObjectCommand({ Bucket: 'b', Key: key, Body: 'special' }));
    await s3.send(new CopyObjectCommand({ Bucket: 'b', Key: 'special/copy.txt', CopySource: copySource('b', key) }));
    expect(await readText(s3, 'b', 'special/copy.txt')).toBe('special');
  });
});

describe('suffix ranges', () => {
  it('serve the last N bytes, all of a shorter object, and refuse the last 0', async () => {
    const get = (range: string) => s3.send(new GetObjectCommand({ Bucket: 'b', Key: 'top/file.txt', Range: range }));
    const last = await get('bytes=-4');
    expect([last.ContentRange, await last.Body?.transformToString()]).toEqual(['bytes 8-11/12', '.txt']);
    expect((await get('bytes=-100')).ContentRange).toBe('bytes 0-11/12');
    await expect(get('bytes=-0')).rejects.toMatchObject({ name: 'InvalidRange' });
  });
});

describe('part copies (UploadPartCopy)', () => {
  it('copy ranges of a source into the parts of an upload, as aws-cli copies a large object', async () => {
    const source = 'parts/source+1.bin';
    const body = Buffer.alloc(6 << 20, 7);
    body.write('the end', body.length - 7);
    await s3.send(new PutObjectCommand({ Bucket: 'b', Key: source, Body: body }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'b', Key: 'parts/copy.bin' }));
    const ranges = [`bytes=0-${(5 << 20) - 1}`, `bytes=${5 << 20}-${body.length - 1}`];
    const parts = [];
    for (const [i, range] of ranges.entries()) {
      const out = await s3.send(new UploadPartCopyCommand({ Bucket: 'b', Key: 'parts/copy.bin', UploadId, PartNumber: i + 1, CopySource: copySource('b', source), CopySourceRange: range }));
      expect(out.CopyPartResult?.ETag).toMatch(/^"[0-9a-f]{32}"$/);
      parts.push({ PartNumber: i + 1, ETag: out.CopyPartResult?.ETag });
    }
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: 'b', Key: 'parts/copy.bin', UploadId, MultipartUpload: { Parts: parts } }));
    const copied = Buffer.from(await (await s3.send(new GetObjectCommand({ Bucket: 'b', Key: 'parts/copy.bin' }))).Body!.transformToByteArray());
    expect(copied.equals(body)).toBe(true);
  });

  it('answer NoSuchKey for a source that does not exist', async () => {
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'b', Key: 'parts/none.bin' }));
    await expect(s3.send(new UploadPartCopyCommand({ Bucket: 'b', Key: 'parts/none.bin', UploadId, PartNumber: 1, CopySource: 'b/parts/missing.bin' }))).rejects.toMatchObject({ name: 'NoSuchKey' });
  });
});

describe('batch deletes (DeleteObjects)', () => {
  it('delete many keys of one folder in one request, the first time', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `batch/dir/k${i}`);
    for (const key of keys) await s3.send(new PutObjectCommand({ Bucket: 'b', Key: key, Body: 'x' }));
    const out = await s3.send(new DeleteObjectsCommand({ Bucket: 'b', Delete: { Objects: keys.map((Key) => ({ Key })) } }));
    expect(out.Deleted).toHaveLength(30);
    expect((await s3.send(new ListObjectsV2Command({ Bucket: 'b', Prefix: 'batch/' }))).KeyCount).toBe(0);
  });
});

describe('conditional writes (If-None-Match, If-Match)', () => {
  const put = (Key: string, Body: string, conditions: { IfNoneMatch?: string; IfMatch?: string } = {}) =>
    s3.send(new PutObjectCommand({ Bucket: 'b', Key, Body, ...conditions }));

  it('create a key with If-None-Match: * only while it does not exist', async () => {
    await put('cond/lock', 'first', { IfNoneMatch: '*' });
    await expect(put('cond/lock', 'second', { IfNoneMatch: '*' })).rejects.toMatchObject({ name: 'PreconditionFailed', $metadata: { httpStatusCode: 412 } });
    expect(await readText(s3, 'b', 'cond/lock')).toBe('first');
  });

  it('let exactly one of two writers racing for a free key with If-None-Match: * win', async () => {
    const outcomes = await Promise.allSettled(['a', 'b', 'c'].map((body) => put('cond/race', body, { IfNoneMatch: '*' })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.name)).toEqual(['PreconditionFailed', 'PreconditionFailed']);
  });

  it('replace a key with If-Match only when its ETag matches, and answer NoSuchKey for a missing one', async () => {
    const { ETag } = await put('cond/doc', 'v1');
    await expect(put('cond/doc', 'v2', { IfMatch: '"0123456789abcdef0123456789abcdef"' })).rejects.toMatchObject({ name: 'PreconditionFailed' });
    await put('cond/doc', 'v2', { IfMatch: ETag });
    expect(await readText(s3, 'b', 'cond/doc')).toBe('v2');
    await expect(put('cond/missing', 'x', { IfMatch: ETag })).rejects.toMatchObject({ name: 'NoSuchKey' });
  });

  it('refuse an If-None-Match other than * with 501, as S3 does', async () => {
    await expect(put('cond/etag', 'x', { IfNoneMatch: '"abc"' })).rejects.toMatchObject({ name: 'NotImplemented', $metadata: { httpStatusCode: 501 } });
  });

  it('hold CompleteMultipartUpload to If-None-Match: * as well', async () => {
    await put('cond/multi', 'exists');
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'b', Key: 'cond/multi' }));
    const { ETag } = await s3.send(new UploadPartCommand({ Bucket: 'b', Key: 'cond/multi', UploadId, PartNumber: 1, Body: 'part' }));
    const complete = new CompleteMultipartUploadCommand({ Bucket: 'b', Key: 'cond/multi', UploadId, IfNoneMatch: '*', MultipartUpload: { Parts: [{ PartNumber: 1, ETag }] } });
    await expect(s3.send(complete)).rejects.toMatchObject({ name: 'PreconditionFailed' });
    expect(await readText(s3, 'b', 'cond/multi')).toBe('exists');
  });
});

