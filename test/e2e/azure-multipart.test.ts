import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAzurite, type Azurite } from '../support/azurite';
import { azuriteOptions, bucketToml } from '../support/config-toml';
import { awsCli, boto3, rclone, s3cmd } from '../support/clients';
import { TRANSPORT_RUNTIMES } from '../support/gateway';
import { errorCode, rawRequest } from '../support/raw-request';
import { ADMIN, ADMIN_CREDENTIALS, codeOf } from './fixtures';
import { useStoreGateway } from './store-contract';

/**
 * S3 multipart uploads onto Azure block blobs (Azurite), driven by the tools that switch to multipart for
 * large files: aws-cli, boto3's transfer manager, the JS SDK's Upload and rclone. Parts are blocks, the upload
 * id is the gateway's sealed token, and Complete is one Put Block List (docs/backends.md#multipart-uploads-on-azure).
 */
const MiB = 1024 * 1024;
let azurite: Azurite;
let dir: string;
let big: Buffer;
const sha = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');
const md5 = (data: Uint8Array): Buffer => createHash('md5').update(data).digest();

/** S3's ETag of an object uploaded in parts of `partSize`. */
function multipartETag(data: Buffer, partSize: number): string {
  const md5s: Buffer[] = [];
  for (let at = 0; at < data.length; at += partSize) md5s.push(md5(data.subarray(at, at + partSize)));
  return `"${md5(Buffer.concat(md5s)).toString('hex')}-${md5s.length}"`;
}

/** The blob as Azurite holds it, read past the gateway. */
async function blob(name: string): Promise<Buffer> {
  const res = await azurite.request('GET', `/data/${name}`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

function config(): string {
  return [
    bucketToml({ name: 'azure', backend_type: 'azure' }, azuriteOptions(azurite.endpoint, 'data')),
    bucketToml({ name: 'azure-tenant', backend_type: 'azure' }, { ...azuriteOptions(azurite.endpoint, 'data'), backend_prefix: 'tenant-a/' }),
    ADMIN_CREDENTIALS,
  ].join('\n');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'azure-multipart-'));
  big = randomBytes(40 * MiB);
  writeFileSync(join(dir, '40mib.bin'), big);
  writeFileSync(join(dir, '12mib.bin'), big.subarray(0, 12 * MiB));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(TRANSPORT_RUNTIMES)('multipart uploads onto an Azure Blob backend (%s runtime)', (runtime) => {
  beforeAll(async () => {
    azurite = await startAzurite();
    await azurite.createContainer('data');
  }, 60_000);
  afterAll(() => azurite?.stop());

  const fx = useStoreGateway(runtime, () => ({ config: config() }));
  const s3 = (): S3Client => fx.s3;

  /** Create, then the parts in order; the upload id and each part's ETag. */
  async function upload(key: string, parts: readonly Buffer[], bucket = 'azure'): Promise<{ uploadId: string; etags: string[] }> {
    const created = await s3().send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
    const uploadId = created.UploadId as string;
    const etags: string[] = [];
    for (const [i, body] of parts.entries()) {
      etags.push((await s3().send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: i + 1, Body: body }))).ETag as string);
    }
    return { uploadId, etags };
  }
  const complete = (key: string, uploadId: string, parts: ReadonlyArray<readonly [number, string]>, bucket = 'azure') =>
    s3().send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts.map(([PartNumber, ETag]) => ({ PartNumber, ETag })) } }));

  describe('the tools', () => {
    it('GIVEN a 40 MiB file WHEN aws-cli v2 copies it up (8 MiB parts) THEN Azure holds it byte for byte, with its metadata and S3\'s multipart ETag', async () => {
      const run = await awsCli('v2', fx.gw.endpoint, ADMIN, ['s3', 'cp', join(dir, '40mib.bin'), 's3://azure/cli/40mib.bin', '--content-type', 'application/x-test', '--metadata', 'origin=cli']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(sha(await blob('cli/40mib.bin'))).toBe(sha(big));
      const head = await s3().send(new HeadObjectCommand({ Bucket: 'azure', Key: 'cli/40mib.bin' }));
      expect(head).toMatchObject({ ContentLength: big.length, ContentType: 'application/x-test', Metadata: { origin: 'cli' }, ETag: multipartETag(big, 8 * MiB) });
      const listed = await s3().send(new ListObjectsV2Command({ Bucket: 'azure', Prefix: 'cli/' }));
      expect(listed.Contents?.map((c) => [c.Key, c.Size, c.ETag])).toEqual([['cli/40mib.bin', big.length, head.ETag]]);
      const down = await awsCli('v2', fx.gw.endpoint, ADMIN, ['s3', 'cp', 's3://azure/cli/40mib.bin', join(dir, `down-${runtime}.bin`)]);
      expect(down.code).toBe(0);
    }, 300_000);

    it('GIVEN a 12 MiB file WHEN boto3 upload_file sends it in 5 MiB parts THEN it is stored whole with a 3-part ETag', async () => {
      const out = await boto3('boto3-new', fx.gw.endpoint, ADMIN, `
from boto3.s3.transfer import TransferConfig
cfg = TransferConfig(multipart_threshold=5*1024*1024, multipart_chunksize=5*1024*1024, max_concurrency=3)
s3.upload_file(${JSON.stringify(join(dir, '12mib.bin'))}, 'azure', 'boto3/12mib.bin', Config=cfg)
result = s3.head_object(Bucket='azure', Key='boto3/12mib.bin')['ETag']`);
      expect(out).toBe(multipartETag(big.subarray(0, 12 * MiB), 5 * MiB));
      expect(sha(await blob('boto3/12mib.bin'))).toBe(sha(big.subarray(0, 12 * MiB)));
    }, 120_000);

    it('GIVEN the JS SDK\'s Upload with its default checksums WHEN it sends 11 MiB in 5 MiB parts THEN the object reads back byte for byte', async () => {
      const body = big.subarray(MiB, 12 * MiB);
      await new Upload({ client: s3(), params: { Bucket: 'azure', Key: 'js/upload.bin', Body: body }, partSize: 5 * MiB, queueSize: 2 }).done();
      expect(sha(await blob('js/upload.bin'))).toBe(sha(body));
      const got = await s3().send(new GetObjectCommand({ Bucket: 'azure', Key: 'js/upload.bin' }));
      expect(got.ETag).toBe(multipartETag(body, 5 * MiB));
      expect(sha(await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray())).toBe(sha(body));
    }, 120_000);

    it('GIVEN rclone with a 5 MiB upload cutoff WHEN it copies a 12 MiB file THEN Azure holds it byte for byte', async () => {
      const run = await rclone(fx.gw.endpoint, ADMIN, ['copyto', '--s3-upload-cutoff', '5M', '--s3-chunk-size', '5M', join(dir, '12mib.bin'), 'gw:azure/rclone/12mib.bin']);
      expect(run.stderr).not.toMatch(/ERROR/);
      expect(run.code).toBe(0);
      expect(sha(await blob('rclone/12mib.bin'))).toBe(sha(big.subarray(0, 12 * MiB)));
    }, 120_000);

    it('GIVEN a 40 MiB file WHEN s3cmd puts it (15 MiB parts) THEN Azure holds it byte for byte and s3cmd gets it back', async () => {
      const put = await s3cmd(fx.gw.endpoint, ADMIN, ['put', join(dir, '40mib.bin'), 's3://azure/s3cmd/40mib.bin']);
      expect(put.stderr).not.toMatch(/ERROR|WARNING/);
      expect(put.code).toBe(0);
      expect(sha(await blob('s3cmd/40mib.bin'))).toBe(sha(big));
      const got = await s3cmd(fx.gw.endpoint, ADMIN, ['get', '--force', 's3://azure/s3cmd/40mib.bin', join(dir, `s3cmd-${runtime}.bin`)]);
      expect(got.stderr).not.toMatch(/ERROR|WARNING/);
      expect(got.code).toBe(0);
    }, 120_000);
  });

  describe('the operations', () => {
    const five = (): Buffer => big.subarray(0, 5 * MiB);

    it('GIVEN two parts WHEN ListParts and Complete THEN the parts show with their MD5 ETags and sizes, and the object is their concatenation in the virtual key space', async () => {
      const tail = Buffer.from('the last part');
      const { uploadId, etags } = await upload('ops/two.bin', [five(), tail], 'azure-tenant');
      expect(etags).toEqual([`"${md5(five()).toString('hex')}"`, `"${md5(tail).toString('hex')}"`]);
      const parts = await s3().send(new ListPartsCommand({ Bucket: 'azure-tenant', Key: 'ops/two.bin', UploadId: uploadId }));
      expect(parts).toMatchObject({ Bucket: 'azure-tenant', Key: 'ops/two.bin', UploadId: uploadId, IsTruncated: false });
      expect(parts.Parts?.map((p) => [p.PartNumber, p.ETag, p.Size])).toEqual([[1, etags[0], 5 * MiB], [2, etags[1], tail.length]]);
      const page = await s3().send(new ListPartsCommand({ Bucket: 'azure-tenant', Key: 'ops/two.bin', UploadId: uploadId, MaxParts: 1 }));
      expect([page.Parts?.length, page.IsTruncated, page.NextPartNumberMarker]).toEqual([1, true, '1']);
      const done = await complete('ops/two.bin', uploadId, [[1, etags[0]], [2, etags[1]]], 'azure-tenant');
      expect(done).toMatchObject({ Bucket: 'azure-tenant', Key: 'ops/two.bin', ETag: multipartETag(Buffer.concat([five(), tail]), 5 * MiB) });
      expect(sha(await blob('tenant-a/ops/two.bin'))).toBe(sha(Buffer.concat([five(), tail])));
    }, 60_000);

    it('GIVEN a part uploaded twice WHEN Complete names the second ETag THEN the second body is committed', async () => {
      const { uploadId } = await upload('ops/retry.bin', [Buffer.from('first')]);
      const again = await s3().send(new UploadPartCommand({ Bucket: 'azure', Key: 'ops/retry.bin', UploadId: uploadId, PartNumber: 1, Body: 'second' }));
      const parts = await s3().send(new ListPartsCommand({ Bucket: 'azure', Key: 'ops/retry.bin', UploadId: uploadId }));
      expect(parts.Parts?.map((p) => p.ETag)).toEqual([again.ETag]);
      await complete('ops/retry.bin', uploadId, [[1, again.ETag as string]]);
      expect((await blob('ops/retry.bin')).toString()).toBe('second');
    });

    it('GIVEN bad part lists WHEN Complete THEN S3\'s InvalidPart, InvalidPartOrder and EntityTooSmall, and nothing is committed', async () => {
      const { uploadId, etags } = await upload('ops/bad.bin', [Buffer.from('small'), Buffer.from('parts')]);
      expect(await codeOf(complete('ops/bad.bin', uploadId, [[1, etags[0]], [2, '"0123456789abcdef0123456789abcdef"']]))).toBe('InvalidPart');
      expect(await codeOf(complete('ops/bad.bin', uploadId, [[1, etags[0]], [3, etags[1]]]))).toBe('InvalidPart');
      expect(await codeOf(complete('ops/bad.bin', uploadId, [[2, etags[1]], [1, etags[0]]]))).toBe('InvalidPartOrder');
      expect(await codeOf(complete('ops/bad.bin', uploadId, [[1, etags[0]], [2, etags[1]]]))).toBe('EntityTooSmall');
      expect((await azurite.request('HEAD', '/data/ops/bad.bin')).status).toBe(404);
      // The last part alone may be small.
      await complete('ops/bad.bin', uploadId, [[2, etags[1]]]);
      expect((await blob('ops/bad.bin')).toString()).toBe('parts');
    });

    it('GIVEN a forged, altered or foreign upload id WHEN any multipart call uses it THEN 404 NoSuchUpload', async () => {
      const { uploadId, etags } = await upload('ops/mine.bin', [Buffer.from('x')]);
      const altered = (uploadId[0] === 'A' ? 'B' : 'A') + uploadId.slice(1);
      for (const [key, id] of [['ops/mine.bin', 'forged'], ['ops/mine.bin', altered], ['ops/other.bin', uploadId]] as const) {
        expect(await codeOf(s3().send(new UploadPartCommand({ Bucket: 'azure', Key: key, UploadId: id, PartNumber: 1, Body: 'x' })))).toBe('NoSuchUpload');
        expect(await codeOf(s3().send(new ListPartsCommand({ Bucket: 'azure', Key: key, UploadId: id })))).toBe('NoSuchUpload');
        expect(await codeOf(complete(key, id, [[1, etags[0]]]))).toBe('NoSuchUpload');
        expect(await codeOf(s3().send(new AbortMultipartUploadCommand({ Bucket: 'azure', Key: key, UploadId: id })))).toBe('NoSuchUpload');
      }
      // Another bucket, even on the same container and key.
      expect(await codeOf(s3().send(new ListPartsCommand({ Bucket: 'azure-tenant', Key: 'ops/mine.bin', UploadId: uploadId })))).toBe('NoSuchUpload');
      const raw = await rawRequest(fx.gw.endpoint, { method: 'GET', target: `/azure/ops/mine.bin?uploadId=${encodeURIComponent(altered)}` }, ADMIN);
      expect([raw.status, errorCode(raw.body)]).toEqual([404, 'NoSuchUpload']);
    });

    it('GIVEN an upload WHEN it is aborted THEN the answer is 204 and no object is visible; ListMultipartUploads is an empty listing', async () => {
      const { uploadId } = await upload('ops/aborted.bin', [Buffer.from('x')]);
      const listed = await s3().send(new ListMultipartUploadsCommand({ Bucket: 'azure' }));
      expect(listed.Uploads ?? []).toEqual([]);
      const raw = await rawRequest(fx.gw.endpoint, { method: 'DELETE', target: `/azure/ops/aborted.bin?uploadId=${encodeURIComponent(uploadId)}` }, ADMIN);
      expect(raw.status).toBe(204);
      expect(await codeOf(s3().send(new HeadObjectCommand({ Bucket: 'azure', Key: 'ops/aborted.bin' })))).toBe('NotFound');
      const objects = await s3().send(new ListObjectsV2Command({ Bucket: 'azure', Prefix: 'ops/aborted' }));
      expect(objects.KeyCount).toBe(0);
    });

    it('GIVEN two uploads to one key WHEN the first completes THEN its parts alone are committed, and the other\'s Complete is InvalidPart', async () => {
      const a = await upload('ops/race.bin', [Buffer.from('from a')]);
      const b = await upload('ops/race.bin', [Buffer.from('from b')]);
      const parts = await s3().send(new ListPartsCommand({ Bucket: 'azure', Key: 'ops/race.bin', UploadId: b.uploadId }));
      expect(parts.Parts?.map((p) => p.ETag)).toEqual(b.etags);
      await complete('ops/race.bin', a.uploadId, [[1, a.etags[0]]]);
      expect((await blob('ops/race.bin')).toString()).toBe('from a');
      expect(await codeOf(complete('ops/race.bin', b.uploadId, [[1, b.etags[0]]]))).toBe('InvalidPart');
      expect((await blob('ops/race.bin')).toString()).toBe('from a');
    });

    it('GIVEN conditions WHEN Complete THEN If-None-Match: * on an existing key and a stale If-Match are 412; the multipart ETag matches', async () => {
      await s3().send(new PutObjectCommand({ Bucket: 'azure', Key: 'ops/cond.bin', Body: 'old' }));
      const first = await upload('ops/cond.bin', [Buffer.from('new')]);
      const completeWith = (headers: Record<string, string>) =>
        rawRequest(fx.gw.endpoint, {
          method: 'POST',
          target: `/azure/ops/cond.bin?uploadId=${encodeURIComponent(first.uploadId)}`,
          headers,
          body: `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${first.etags[0]}</ETag></Part></CompleteMultipartUpload>`,
        }, ADMIN);
      for (const headers of [{ 'if-none-match': '*' }, { 'if-match': '"0123"' }] as Record<string, string>[]) {
        const res = await completeWith(headers);
        expect([res.status, errorCode(res.body)]).toEqual([412, 'PreconditionFailed']);
      }
      const done = await completeWith({});
      expect(done.status).toBe(200);
      const etag = multipartETag(Buffer.from('new'), 5 * MiB);
      const next = await upload('ops/cond.bin', [Buffer.from('newer')]);
      const res = await rawRequest(fx.gw.endpoint, {
        method: 'POST',
        target: `/azure/ops/cond.bin?uploadId=${encodeURIComponent(next.uploadId)}`,
        headers: { 'if-match': etag },
        body: `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${next.etags[0]}</ETag></Part></CompleteMultipartUpload>`,
      }, ADMIN);
      expect(res.status).toBe(200);
      expect((await blob('ops/cond.bin')).toString()).toBe('newer');
    });
  });

  describe('part copies (UploadPartCopy: a ranged read of the source written as a part)', () => {
    const twenty = (): Buffer => big.subarray(0, 20 * MiB);
    beforeAll(async () => {
      const put = await azurite.putBlob('data', 'pc/big.bin', twenty(), { 'x-ms-blob-content-type': 'application/x-test', 'x-ms-meta-origin': 'azurite' });
      expect(put.status).toBe(201);
    }, 60_000);

    // aws-cli v2's default `--copy-props` also reads the source's tags (GetObjectTagging), which ADMIN may
    // not: metadata-directive copies the content headers and metadata, as v1 does.
    it('GIVEN a 20 MiB object WHEN aws-cli v2 copies it with s3 cp (8 MiB part copies), then moves the copy with s3 mv THEN Azure holds the bytes and metadata, and the moved copy is gone', async () => {
      const props = ['--copy-props', 'metadata-directive'];
      const cp = await awsCli('v2', fx.gw.endpoint, ADMIN, ['s3', 'cp', ...props, 's3://azure/pc/big.bin', 's3://azure/pc/cli-copy.bin']);
      expect([cp.code, cp.stderr]).toEqual([0, '']);
      expect(sha(await blob('pc/cli-copy.bin'))).toBe(sha(twenty()));
      const head = await s3().send(new HeadObjectCommand({ Bucket: 'azure', Key: 'pc/cli-copy.bin' }));
      expect(head).toMatchObject({ ETag: multipartETag(twenty(), 8 * MiB), ContentType: 'application/x-test', Metadata: { origin: 'azurite' } });
      const mv = await awsCli('v2', fx.gw.endpoint, ADMIN, ['s3', 'mv', ...props, 's3://azure/pc/cli-copy.bin', 's3://azure/pc/cli-moved.bin']);
      expect([mv.code, mv.stderr]).toEqual([0, '']);
      expect(sha(await blob('pc/cli-moved.bin'))).toBe(sha(twenty()));
      expect((await azurite.request('HEAD', '/data/pc/cli-copy.bin')).status).toBe(404);
    }, 300_000);

    it('GIVEN a 20 MiB object WHEN boto3\'s managed copy() copies it into another key space (8 MiB part copies) THEN Azure holds the bytes', async () => {
      const out = await boto3('boto3-new', fx.gw.endpoint, ADMIN, `
s3.copy({'Bucket': 'azure', 'Key': 'pc/big.bin'}, 'azure-tenant', 'pc/boto3.bin')
result = s3.head_object(Bucket='azure-tenant', Key='pc/boto3.bin')['ETag']`);
      expect(out).toBe(multipartETag(twenty(), 8 * MiB));
      expect(sha(await blob('tenant-a/pc/boto3.bin'))).toBe(sha(twenty()));
    }, 300_000);

    it('GIVEN UploadPartCopy with ranges (JS SDK) THEN each part\'s CopyPartResult is its MD5, Complete commits the ranges, and a range past the end is 416 InvalidRange', async () => {
      const key = 'pc/ranges.bin';
      const { UploadId } = await s3().send(new CreateMultipartUploadCommand({ Bucket: 'azure', Key: key }));
      const copyPart = (PartNumber: number, CopySourceRange: string) =>
        s3().send(new UploadPartCopyCommand({ Bucket: 'azure', Key: key, UploadId, PartNumber, CopySource: 'azure/pc/big.bin', CopySourceRange }));
      const first = twenty().subarray(3 * MiB, 9 * MiB);
      const second = twenty().subarray(20 * MiB - 10, 20 * MiB);
      const one = await copyPart(1, `bytes=${3 * MiB}-${9 * MiB - 1}`);
      const two = await copyPart(2, `bytes=${20 * MiB - 10}-${20 * MiB - 1}`);
      expect([one.CopyPartResult?.ETag, two.CopyPartResult?.ETag]).toEqual([`"${md5(first).toString('hex')}"`, `"${md5(second).toString('hex')}"`]);
      expect(one.CopyPartResult?.LastModified).toBeInstanceOf(Date);
      expect(await codeOf(copyPart(3, `bytes=0-${20 * MiB}`))).toBe('InvalidRange');
      const done = await complete(key, UploadId as string, [[1, one.CopyPartResult?.ETag as string], [2, two.CopyPartResult?.ETag as string]]);
      expect(done.ETag).toBe(multipartETag(Buffer.concat([first, second]), 6 * MiB));
      expect(sha(await blob(key))).toBe(sha(Buffer.concat([first, second])));
    }, 120_000);
  });
});
