import { CopyObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { AWS_CLIS, awsCli, boto3 } from '../support/clients';
import { expectedCliCopy, TRANSPORT_RUNTIMES } from '../support/gateway';
import { errorCode, rawRequest } from '../support/raw-request';
import { ADMIN, codeOf, copySource, putDirect, readText, startBackends, type Backends } from './fixtures';
import { exists, useWriteGateway } from './write-fixtures';

/**
 * CopyObject (spec rules 4-6): the source is read-authorized, the destination write-authorized, and the
 * destination's backend copies from the source rewritten into the backend's bucket and key space.
 */
let backends: Backends;
let versions: { v1: string; v2: string };
const rgw = (): S3Client => backends.direct.rgw;
const SPECIAL = 'special/sp ace+plus%25~*#?[x]&ünï😀.txt';
/** Every character s3rver's own `decodeURI` of a copy source leaves encoded (scripts/s3rver-fixes.cjs). */
const S3RVER_SPECIAL = 'special/a+b#c$d&e,f:g;h=i?j@k 100%.txt';
/** Over aws-cli's 8 MiB multipart threshold: it copies this with UploadPartCopy. */
const LARGE = Buffer.alloc(9 << 20, 'large');

beforeAll(async () => {
  backends = await startBackends();
  await Promise.all([
    putDirect(rgw(), 'data', 'source/doc.txt', 'the source'),
    putDirect(rgw(), 'data', 'secret/doc.txt', 'not for the writer'),
    putDirect(rgw(), 'data', 'readable/doc.txt', 'readable by the writer'),
    putDirect(rgw(), 'data', 'tenant-a/inside.txt', 'inside the tenant'),
    putDirect(rgw(), 'data', SPECIAL, 'special source'),
    putDirect(backends.direct.s3rver, 'private', 'source.txt', 's3rver source'),
    putDirect(backends.direct.s3rver, 'private', S3RVER_SPECIAL, 's3rver special source'),
    putDirect(backends.direct.s3rver, 'private', 'large.bin', LARGE, 'application/octet-stream'),
  ]);
  versions = {
    v1: (await putDirect(rgw(), 'versioned', 'doc.txt', 'one')) ?? '',
    v2: (await putDirect(rgw(), 'versioned', 'doc.txt', 'two')) ?? '',
  };
}, 120_000);

afterAll(() => backends?.stop());

describe.each(TRANSPORT_RUNTIMES)('CopyObject (%s runtime)', (runtime) => {
  const fx = useWriteGateway(runtime, () => backends);

  const copy = (client: S3Client, bucket: string, key: string, source: string, extra: Partial<ConstructorParameters<typeof CopyObjectCommand>[0]> = {}) =>
    client.send(new CopyObjectCommand({ Bucket: bucket, Key: key, CopySource: source, ...extra }));

  describe('within one endpoint', () => {
    it('copies within a bucket and answers the backend\'s CopyObjectResult', async () => {
      const out = await copy(fx.admin, 'strict', `copies/${runtime}/within.txt`, 'strict/source/doc.txt');
      expect(out.CopyObjectResult?.ETag).toBeTruthy();
      expect(await readText(rgw(), 'data', `copies/${runtime}/within.txt`)).toBe('the source');
    });

    it('copies within an s3rver bucket', async () => {
      await copy(fx.admin, 'private', `copies/${runtime}.txt`, '/private/source.txt');
      expect(await readText(backends.direct.s3rver, 'private', `copies/${runtime}.txt`)).toBe('s3rver source');
    });

    it('copies an s3rver key holding + # $ & , : ; = ? @ (`aws s3 mv` of such a key on the local default)', async () => {
      const dest = `copies/${runtime}/a+b&c.txt`;
      await copy(fx.admin, 'private', dest, copySource('private', S3RVER_SPECIAL));
      expect(await readText(backends.direct.s3rver, 'private', dest)).toBe('s3rver special source');
    });

    it('aws-cli copies an object over its multipart threshold within an s3rver bucket (part copies)', async () => {
      // (Without `--copy-props none` aws-cli v2 also copies the tags, which ADMIN may not read.)
      const run = await awsCli('v2', fx.gw.endpoint, ADMIN, ['s3', 'cp', '--copy-props', 'none', 's3://private/large.bin', `s3://private/copies/${runtime}/large.bin`]);
      expect(run).toMatchObject(expectedCliCopy(runtime));
      if (run.code === 0) expect(await readText(backends.direct.s3rver, 'private', `copies/${runtime}/large.bin`)).toBe(LARGE.toString());
    });

    it('copies across virtual buckets, mapping backend_prefix on either side', async () => {
      await copy(fx.admin, 'tenant', `copies/${runtime}/from-strict.txt`, 'strict/source/doc.txt');
      expect(await readText(rgw(), 'data', `tenant-a/copies/${runtime}/from-strict.txt`)).toBe('the source');
      await copy(fx.admin, 'strict', `copies/${runtime}/from-tenant.txt`, 'tenant/inside.txt');
      expect(await readText(rgw(), 'data', `copies/${runtime}/from-tenant.txt`)).toBe('inside the tenant');
    });

    it('encodes a special-character source key with the one key encoder', async () => {
      await copy(fx.admin, 'strict', `copies/${runtime}/special.txt`, copySource('strict', SPECIAL));
      expect(await readText(rgw(), 'data', `copies/${runtime}/special.txt`)).toBe('special source');
    });

    it('copies a version named by ?versionId=', async () => {
      // (RGW does not answer x-amz-copy-source-version-id; the content shows which version was copied.)
      await copy(fx.admin, 'strict', `copies/${runtime}/v1.txt`, `versioned/doc.txt?versionId=${versions.v1}`);
      expect(await readText(rgw(), 'data', `copies/${runtime}/v1.txt`)).toBe('one');
    });

    it('signs the copy headers: REPLACE metadata, content type and tagging (boto3)', async () => {
      const key = `copies/${runtime}/replaced.txt`;
      const out = await boto3('boto3-new', fx.gw.endpoint, ADMIN, `
s3.copy_object(Bucket='strict', Key='${key}', CopySource={'Bucket': 'strict', 'Key': 'source/doc.txt'},
               MetadataDirective='REPLACE', Metadata={'copied': 'yes'}, ContentType='text/x-copied',
               TaggingDirective='REPLACE', Tagging='copied=true')
h = s3.head_object(Bucket='strict', Key='${key}')
result = [h['Metadata'], h['ContentType']]`);
      expect(out).toEqual([{ copied: 'yes' }, 'text/x-copied']);
    });

    it.each(Object.keys(AWS_CLIS) as Array<keyof typeof AWS_CLIS>)('aws-cli %s s3 cp between buckets', async (cli) => {
      const run = await awsCli(cli, fx.gw.endpoint, ADMIN, ['s3', 'cp', 's3://strict/source/doc.txt', `s3://tenant/copies/${runtime}/cli-${cli}.txt`]);
      expect(run).toMatchObject(expectedCliCopy(runtime));
      if (run.code === 0) expect(await readText(rgw(), 'data', `tenant-a/copies/${runtime}/cli-${cli}.txt`)).toBe('the source');
    });
  });

  describe('authorization', () => {
    it('the source is a read: a source outside the caller\'s read scopes is AccessDenied', async () => {
      expect(await codeOf(copy(fx.writer, 'strict', `uploads/${runtime}/stolen.txt`, 'strict/secret/doc.txt'))).toBe('AccessDenied');
      expect(await exists(rgw(), 'data', `uploads/${runtime}/stolen.txt`)).toBe(false);
      await copy(fx.writer, 'strict', `uploads/${runtime}/allowed.txt`, 'strict/readable/doc.txt');
      expect(await readText(rgw(), 'data', `uploads/${runtime}/allowed.txt`)).toBe('readable by the writer');
    });

    it('a versioned source needs get_object_version; get_object is not enough', async () => {
      expect(await codeOf(copy(fx.writer, 'versioned', `copies/${runtime}.txt`, `versioned/doc.txt?versionId=${versions.v1}`))).toBe('AccessDenied');
      await copy(fx.writer, 'versioned', `copies/${runtime}.txt`, 'versioned/doc.txt');
      expect(await readText(rgw(), 'versioned', `copies/${runtime}.txt`)).toBe('two');
    });

    it('the destination is a write', async () => {
      expect(await codeOf(copy(fx.writer, 'strict', `readable/${runtime}.txt`, 'strict/readable/doc.txt'))).toBe('AccessDenied');
    });

    it('anonymous callers never copy', async () => {
      const res = await rawRequest(fx.gw.endpoint, { method: 'PUT', target: '/public/copy.txt', headers: { 'x-amz-copy-source': '/public/hello.txt' } });
      expect(res.status).toBe(403);
    });
  });

  describe('what is refused', () => {
    it.each([
      ['across endpoints (s3rver to RGW)', 'private/source.txt'],
      ['across regions on one endpoint', 'elsewhere/source/doc.txt'],
      ['from a backend without bucket_name', 'nobucket/source/doc.txt'],
    ])('%s is 501 NotImplemented', async (_, source) => {
      expect(await codeOf(copy(fx.admin, 'strict', `copies/${runtime}/refused.txt`, source))).toBe('NotImplemented');
      expect(await exists(rgw(), 'data', `copies/${runtime}/refused.txt`)).toBe(false);
    });

    it('to a backend without bucket_name is 501 NotImplemented', async () => {
      expect(await codeOf(copy(fx.admin, 'nobucket', 'x.txt', 'strict/source/doc.txt'))).toBe('NotImplemented');
    });

    it('an unknown source bucket is 404 NoSuchBucket', async () => {
      expect(await codeOf(copy(fx.admin, 'strict', `copies/${runtime}/x.txt`, 'no-such-bucket/doc.txt'))).toBe('NoSuchBucket');
    });

    it('a missing source key is the backend\'s NoSuchKey, passed through', async () => {
      expect(await codeOf(copy(fx.admin, 'strict', `copies/${runtime}/x.txt`, 'strict/source/missing.txt'))).toBe('NoSuchKey');
    });

    it('a malformed copy source is InvalidArgument, an invalid key InvalidRequest', async () => {
      expect(await codeOf(copy(fx.admin, 'strict', `copies/${runtime}/x.txt`, 'strict'))).toBe('InvalidArgument');
      expect(await codeOf(copy(fx.admin, 'strict', `copies/${runtime}/x.txt`, 'strict/a/../b'))).toBe('InvalidRequest');
    });

    it('UploadPartCopy into an upload that does not exist is the backend\'s NoSuchUpload (part copies: part-copy.test.ts)', async () => {
      const res = await rawRequest(fx.gw.endpoint, {
        method: 'PUT',
        target: '/strict/copies/part?partNumber=1&uploadId=abc',
        headers: { 'x-amz-copy-source': '/strict/source/doc.txt' },
      }, ADMIN);
      expect(res.status).toBe(404);
      expect(errorCode(res.body)).toBe('NoSuchUpload');
    });

    it('left the destination untouched after refusals', async () => {
      expect(await codeOf(fx.admin.send(new HeadObjectCommand({ Bucket: 'strict', Key: `copies/${runtime}/x.txt` })))).toBe('NotFound');
    });
  });
});
