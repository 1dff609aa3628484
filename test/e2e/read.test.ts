import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetBucketVersioningCommand,
  GetObjectAttributesCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  paginateListBuckets,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { awsCli, boto3, jsClient, type Keys } from '../support/clients';
import { RUNTIME_LIMITS, RUNTIMES, TRANSPORT_RUNTIMES, expectedCliCopy, reportedLength, startGateway, type RunningGateway } from '../support/gateway';
import { errorCode, rawRequest } from '../support/raw-request';
import { ADMIN, DISABLED, LIST_KEYS, RANGE_BODY, SCOPED, SPECIAL_KEYS, codeOf, gatewayConfig, gatewayEnv, putDirect, startBackends, type Backends } from './fixtures';

/** The virtual buckets of the suite's configuration, as ListBuckets names them. */
const BUCKET_NAMES = ['private', 'public', 'strict', 'tenant', 'versioned'];
/** Names whose percent signs a store that does not URL-encode its listings sends as they are. */
const PERCENT_KEYS = ['percent/100%.txt', 'percent/100%25.txt', 'percent/a%2Fb', 'percent/%E2%82%AC'];

let backends: Backends;
let versions: { v1?: string; v2?: string } = {};

beforeAll(async () => {
  backends = await startBackends();
  const rgw = backends.direct.rgw;
  await Promise.all([
    ...LIST_KEYS.map((k) => putDirect(rgw, 'data', k, k)),
    ...SPECIAL_KEYS.map((k) => putDirect(rgw, 'data', k, `body of ${k}`)),
    putDirect(rgw, 'data', 'range.bin', RANGE_BODY, 'application/octet-stream'),
    putDirect(rgw, 'data', 'reports/q1.csv', 'q1'),
    putDirect(rgw, 'data', 'reports/2024/q2.csv', 'q2'),
    putDirect(rgw, 'data', 'reportsx/hidden', 'hidden'),
    putDirect(rgw, 'data', 'reports-other', 'other'),
    putDirect(rgw, 'data', 'tenant-a/doc1.txt', 'doc1'),
    putDirect(rgw, 'data', 'tenant-a/sub/doc2.txt', 'doc2'),
    putDirect(backends.direct.s3rver, 'public', 'hello.txt', 'hello, world\n'),
    putDirect(backends.direct.s3rver, 'private', 'secret.txt', 'secret\n'),
    ...PERCENT_KEYS.map((k) => putDirect(backends.direct.s3rver, 'private', k, k)),
  ]);
  await putInParts(rgw, 'data', 'parts/two.bin', [PART_SIZE, 1]);
  versions.v1 = await putDirect(rgw, 'versioned', 'doc.txt', 'one');
  versions.v2 = await putDirect(rgw, 'versioned', 'doc.txt', 'two');
  await putDirect(rgw, 'versioned', 'gone.txt', 'gone');
  await rgw.send(new DeleteObjectCommand({ Bucket: 'versioned', Key: 'gone.txt' }));
}, 120_000);

afterAll(() => backends?.stop());

/** RGW's smallest part but the last: 5 MiB. */
const PART_SIZE = 5 * 1024 * 1024;

/** An object uploaded in parts of `sizes` bytes, straight to the store (a Function URL takes no 5 MiB body). */
async function putInParts(client: S3Client, bucket: string, key: string, sizes: readonly number[]): Promise<void> {
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  const parts = [];
  for (const [i, size] of sizes.entries()) {
    const { ETag } = await client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: i + 1, Body: new Uint8Array(size) }));
    parts.push({ ETag, PartNumber: i + 1 });
  }
  await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }));
}

async function text(client: S3Client, bucket: string, key: string, extra: Partial<ConstructorParameters<typeof GetObjectCommand>[0]> = {}): Promise<string> {
  const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, ...extra }));
  return (await out.Body?.transformToString()) ?? '';
}

describe.each(RUNTIMES)('reading through the gateway (%s runtime)', (runtime) => {
  let gw: RunningGateway;
  let admin: S3Client;
  let scoped: S3Client;
  let anonymous: S3Client;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: gatewayConfig(backends), env: gatewayEnv(backends) });
    admin = jsClient(gw.endpoint, ADMIN);
    scoped = jsClient(gw.endpoint, SCOPED);
    anonymous = jsClient(gw.endpoint);
  }, 60_000);

  afterAll(async () => {
    for (const c of [admin, scoped, anonymous]) c?.destroy();
    await gw?.stop();
  });

  describe('ListBuckets', () => {
    it('lists every virtual bucket (JS SDK)', async () => {
      const js = await admin.send(new ListBucketsCommand({}));
      expect(js.Buckets?.map((b) => b.Name)).toEqual(BUCKET_NAMES);
    });

    it('refuses anonymous callers', async () => {
      expect(await codeOf(anonymous.send(new ListBucketsCommand({})))).toBe('AccessDenied');
    });
  });

  describe('ListObjects', () => {
    it('paginates V2 with max-keys and continuation tokens across the whole prefix', async () => {
      const keys: string[] = [];
      let pages = 0;
      for await (const page of paginateListObjectsV2({ client: admin, pageSize: 10 }, { Bucket: 'strict', Prefix: 'list/' })) {
        pages++;
        keys.push(...(page.Contents ?? []).map((c) => c.Key ?? ''));
      }
      expect(keys).toEqual([...LIST_KEYS].sort());
      expect(pages).toBe(3);
    });

    it('lists an unknown bucket as NoSuchBucket', async () => {
      expect(await codeOf(admin.send(new ListObjectsV2Command({ Bucket: 'nope' })))).toBe('NoSuchBucket');
    });
  });

  // What the core decides with a listing and how each client reads it: one runtime per backend transport
  // (CONTRIBUTING), as the other store suites; every runtime lists above, through its own adapter.
  if (TRANSPORT_RUNTIMES.includes(runtime)) {
    describe('listings as the clients read them', () => {
      it('lists every virtual bucket to boto3 and aws-cli too', async () => {
        expect(await boto3('boto3-new', gw.endpoint, ADMIN, "result = [b['Name'] for b in s3.list_buckets()['Buckets']]")).toEqual(BUCKET_NAMES);
        const cli = await awsCli('v1', gw.endpoint, ADMIN, ['s3', 'ls']);
        expect(cli.code).toBe(0);
        for (const name of BUCKET_NAMES) expect(cli.stdout).toContain(name);
      });

      it('narrows and pages ListBuckets as aws-cli, boto3 and the JS SDK ask', async () => {
        const cli = await awsCli('v1', gw.endpoint, ADMIN, ['s3', 'ls', '--bucket-name-prefix', 'p']);
        expect(cli.code).toBe(0);
        expect(cli.stdout.trim().split('\n').map((line) => line.split(' ').pop())).toEqual(['private', 'public']);
        const paged = `result = [[b['Name'] for b in p['Buckets']] for p in s3.get_paginator('list_buckets').paginate(PaginationConfig={'PageSize': 2})]`;
        expect(await boto3('boto3-new', gw.endpoint, ADMIN, paged)).toEqual([['private', 'public'], ['strict', 'tenant'], ['versioned']]);
        const js: string[] = [];
        for await (const page of paginateListBuckets({ client: admin, pageSize: 1 }, { Prefix: 't' })) js.push(...(page.Buckets ?? []).map((b) => b.Name ?? ''));
        expect(js).toEqual(['tenant']);
      });

      it('paginates V1 with markers (boto3 paginator)', async () => {
        const keys = await boto3(
          'boto3-new',
          gw.endpoint,
          ADMIN,
          `result = [c['Key'] for p in s3.get_paginator('list_objects').paginate(Bucket='strict', Prefix='list/', PaginationConfig={'PageSize': 7}) for c in p.get('Contents', [])]`,
        );
        expect(keys).toEqual([...LIST_KEYS].sort());
      });

      it('groups by delimiter into common prefixes', async () => {
        const out = await admin.send(new ListObjectsV2Command({ Bucket: 'strict', Prefix: 'list/', Delimiter: '/' }));
        expect(out.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['list/dir1/', 'list/dir2/']);
        expect(out.Contents).toHaveLength(25);
        expect(out.Name).toBe('strict');
        const cli = await awsCli('v1', gw.endpoint, ADMIN, ['s3', 'ls', 's3://strict/list/']);
        expect(cli.stdout).toMatch(/PRE dir1\//);
      });

      it('starts after a key', async () => {
        const out = await admin.send(new ListObjectsV2Command({ Bucket: 'strict', Prefix: 'list/', StartAfter: 'list/a-22' }));
        expect(out.Contents?.map((c) => c.Key)).toEqual(['list/a-23', 'list/a-24', 'list/dir1/x', 'list/dir2/y']);
      });

      it('returns special-character and unicode keys exactly, plain and url-encoded (boto3 asks for encoding-type=url)', async () => {
        const js = await admin.send(new ListObjectsV2Command({ Bucket: 'strict', Prefix: 'special/' }));
        expect(js.Contents?.map((c) => c.Key).sort()).toEqual([...SPECIAL_KEYS].sort());
        const py = await boto3('boto3-new', gw.endpoint, ADMIN, "result = [c['Key'] for c in s3.list_objects_v2(Bucket='strict', Prefix='special/')['Contents']]");
        expect((py as string[]).sort()).toEqual([...SPECIAL_KEYS].sort());
        const v1 = await boto3('boto3-debian', gw.endpoint, ADMIN, "result = [c['Key'] for c in s3.list_objects(Bucket='strict', Prefix='special/')['Contents']]");
        expect((v1 as string[]).sort()).toEqual([...SPECIAL_KEYS].sort());
      });

      it('lists names as sent by a store that ignores encoding-type (s3rver): percent signs stay as they are', async () => {
        const listed = await admin.send(new ListObjectsV2Command({ Bucket: 'private', Prefix: 'percent/' }));
        expect(listed.Contents?.map((c) => c.Key).sort()).toEqual([...PERCENT_KEYS].sort());
      });

      it('maps backend_prefix in and strips it out, naming the virtual bucket', async () => {
        const out = await admin.send(new ListObjectsV2Command({ Bucket: 'tenant' }));
        expect(out.Name).toBe('tenant');
        expect(out.Contents?.map((c) => c.Key)).toEqual(['doc1.txt', 'sub/doc2.txt']);
        const delimited = await admin.send(new ListObjectsV2Command({ Bucket: 'tenant', Delimiter: '/' }));
        expect(delimited.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['sub/']);
        expect(await text(admin, 'tenant', 'sub/doc2.txt')).toBe('doc2');
      });

      it('includes owners only when V2 asks with fetch-owner', async () => {
        const without = await admin.send(new ListObjectsV2Command({ Bucket: 'strict', Prefix: 'reports/' }));
        expect(without.Contents?.[0].Owner).toBeUndefined();
        const withOwner = await admin.send(new ListObjectsV2Command({ Bucket: 'strict', Prefix: 'reports/', FetchOwner: true }));
        expect(withOwner.Contents?.[0].Owner?.ID).toBeTruthy();
      });
    });
  }

  describe('GetObject and HeadObject', () => {
    it('reads byte ranges, including suffix ranges', async () => {
      const out = await admin.send(new GetObjectCommand({ Bucket: 'strict', Key: 'range.bin', Range: 'bytes=10-19' }));
      expect(out.ContentRange).toBe('bytes 10-19/1000');
      expect(Buffer.from(await out.Body!.transformToByteArray())).toEqual(RANGE_BODY.subarray(10, 20));
      const suffix = await admin.send(new GetObjectCommand({ Bucket: 'strict', Key: 'range.bin', Range: 'bytes=-5' }));
      expect(Buffer.from(await suffix.Body!.transformToByteArray())).toEqual(RANGE_BODY.subarray(995));
    });

    it('answers conditional reads with 304 and 412 from the backend', async () => {
      const head = await admin.send(new HeadObjectCommand({ Bucket: 'strict', Key: 'range.bin' }));
      const notModified = await rawRequest(gw.endpoint, { method: 'GET', target: '/strict/range.bin', headers: { 'if-none-match': head.ETag ?? '' } }, ADMIN);
      expect(notModified.status).toBe(304);
      expect(notModified.headers['x-amz-request-id']).toBeTruthy();
      const failed = await rawRequest(gw.endpoint, { method: 'GET', target: '/strict/range.bin', headers: { 'if-match': '"0123"' } }, ADMIN);
      expect(failed.status).toBe(412);
      expect(errorCode(failed.body)).toBe('PreconditionFailed');
    });

    it('HEAD carries the object headers and a missing key is a body-less 404', async () => {
      const head = await admin.send(new HeadObjectCommand({ Bucket: 'strict', Key: 'range.bin' }));
      expect(head.ContentLength).toBe(reportedLength(runtime, 1000));
      expect(head.ContentType).toBe('application/octet-stream');
      const missing = await rawRequest(gw.endpoint, { method: 'HEAD', target: '/strict/missing' }, ADMIN);
      expect(missing.status).toBe(404);
      expect(missing.body).toBe('');
      expect(await codeOf(admin.send(new GetObjectCommand({ Bucket: 'strict', Key: 'missing' })))).toBe('NoSuchKey');
    });

    it('reads every special key byte-faithfully (written directly to the backend)', async () => {
      for (const key of SPECIAL_KEYS) expect(await text(admin, 'strict', key)).toBe(`body of ${key}`);
      const viaCli = await awsCli('v1', gw.endpoint, ADMIN, ['s3', 'cp', 's3://strict/special/100%25.txt', '-']);
      expect(viaCli).toMatchObject(expectedCliCopy(runtime, 'body of special/100%25.txt'));
    });

    it('reads an older version with get_object_version and denies it without', async () => {
      expect(await text(admin, 'versioned', 'doc.txt', { VersionId: versions.v1 })).toBe('one');
      expect(await text(admin, 'versioned', 'doc.txt')).toBe('two');
      expect(await codeOf(scoped.send(new GetObjectCommand({ Bucket: 'versioned', Key: 'doc.txt', VersionId: versions.v1 })))).toBe('AccessDenied');
      expect(await text(scoped, 'versioned', 'doc.txt')).toBe('two');
      const emptyVersion = await rawRequest(gw.endpoint, { method: 'GET', target: '/versioned/doc.txt?versionId=' }, SCOPED);
      expect(emptyVersion.body).toBe('two');
    });
  });

  describe('GetObjectAttributes', () => {
    const attributes = (client: S3Client, Bucket: string, Key: string, VersionId?: string) =>
      client.send(new GetObjectAttributesCommand({ Bucket, Key, VersionId, ObjectAttributes: ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'] }));

    it('tells what a HEAD tells: the ETag without quotes, size, storage class and modification time (JS SDK)', async () => {
      const head = await admin.send(new HeadObjectCommand({ Bucket: 'strict', Key: 'range.bin' }));
      const out = await attributes(admin, 'strict', 'range.bin');
      expect(out).toMatchObject({ ETag: head.ETag?.replace(/"/g, ''), ObjectSize: 1000, StorageClass: 'STANDARD', LastModified: head.LastModified });
      expect(out.ObjectParts).toBeUndefined();
      expect(out.Checksum).toBeUndefined();
    });

    it('counts the parts of an object uploaded in parts, to boto3 and aws-cli as well', async () => {
      const out = await attributes(admin, 'strict', 'parts/two.bin');
      expect(out.ObjectParts?.TotalPartsCount).toBe(2);
      expect(out.ObjectSize).toBe(PART_SIZE + 1);
      expect(out.ETag).toMatch(/^[0-9a-f]{32}-2$/);
      const viaBoto3 = await boto3(
        'boto3-new',
        gw.endpoint,
        ADMIN,
        "r = s3.get_object_attributes(Bucket='strict', Key='parts/two.bin', ObjectAttributes=['ObjectParts', 'ObjectSize'])\nresult = [r['ObjectParts']['TotalPartsCount'], r['ObjectSize'], 'ETag' in r]",
      );
      expect(viaBoto3).toEqual([2, PART_SIZE + 1, false]);
      const cli = await awsCli('v1', gw.endpoint, ADMIN, ['s3api', 'get-object-attributes', '--bucket', 'tenant', '--key', 'doc1.txt', '--object-attributes', 'ObjectSize', 'StorageClass']);
      expect(cli.code).toBe(0);
      expect(JSON.parse(cli.stdout)).toMatchObject({ ObjectSize: 4, StorageClass: 'STANDARD' });
    });

    it('reads a version with get_object_version and denies it without', async () => {
      const old = await attributes(admin, 'versioned', 'doc.txt', versions.v1);
      expect(old).toMatchObject({ ObjectSize: 3, VersionId: versions.v1 });
      expect(await codeOf(attributes(scoped, 'versioned', 'doc.txt', versions.v1))).toBe('AccessDenied');
      expect((await attributes(scoped, 'versioned', 'doc.txt')).VersionId).toBe(versions.v2);
    });

    it('answers a version that does not exist with NoSuchVersion, and a deleted key with NoSuchKey', async () => {
      expect(await codeOf(attributes(admin, 'versioned', 'doc.txt', 'not-a-version-of-it'))).toBe('NoSuchVersion');
      expect(await codeOf(attributes(admin, 'versioned', 'gone.txt'))).toBe('NoSuchKey');
    });

    it('is authorized as HeadObject: within the caller\'s prefixes, anonymously only on a public bucket', async () => {
      expect((await attributes(scoped, 'strict', 'reports/q1.csv')).ObjectSize).toBe(2);
      expect(await codeOf(attributes(scoped, 'strict', 'range.bin'))).toBe('AccessDenied');
      expect((await attributes(anonymous, 'public', 'hello.txt')).ObjectSize).toBe(13);
      expect(await codeOf(attributes(anonymous, 'private', 'secret.txt'))).toBe('AccessDenied');
    });

    it('answers a missing key with NoSuchKey, and a missing or unknown attribute name with InvalidArgument', async () => {
      const request = (headers: Record<string, string>) => rawRequest(gw.endpoint, { method: 'GET', target: '/strict/missing?attributes', headers }, ADMIN);
      const missing = await request({ 'x-amz-object-attributes': 'ETag' });
      expect([missing.status, errorCode(missing.body)]).toEqual([404, 'NoSuchKey']);
      const none = await request({});
      expect([none.status, errorCode(none.body)]).toEqual([400, 'InvalidArgument']);
      const unknown = await request({ 'x-amz-object-attributes': 'ETag,Colour' });
      expect([unknown.status, errorCode(unknown.body)]).toEqual([400, 'InvalidArgument']);
    });
  });

  describe('presigned URLs', () => {
    const presign = (expires: number, version = 's3v4'): Promise<unknown> =>
      boto3(
        'boto3-new',
        gw.endpoint,
        ADMIN,
        `s3 = boto3.client('s3', endpoint_url=s3.meta.endpoint_url, region_name='us-east-1', config=Config(signature_version='${version}', s3={'addressing_style': 'path'}))
result = s3.generate_presigned_url('get_object', Params={'Bucket': 'strict', 'Key': 'reports/q1.csv'}, ExpiresIn=${expires})`,
      );

    it('serves a valid presigned GET', async () => {
      const res = await fetch((await presign(300)) as string);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('q1');
    });

    it('refuses a tampered presigned URL with SignatureDoesNotMatch', async () => {
      const url = ((await presign(300)) as string).replace('q1.csv', 'q2.csv');
      const res = await fetch(url);
      expect(res.status).toBe(403);
      expect(errorCode(await res.text())).toBe('SignatureDoesNotMatch');
    });

    it('refuses an expired presigned URL', async () => {
      // Signed a minute ago for one second: expired without waiting for it.
      const url = await getSignedUrl(admin, new GetObjectCommand({ Bucket: 'strict', Key: 'reports/q1.csv' }), { expiresIn: 1, signingDate: new Date(Date.now() - 60_000) });
      const res = await fetch(url);
      expect(res.status).toBe(403);
      expect(await res.text()).toMatch(/<Code>AccessDenied<\/Code><Message>Request has expired/);
    });

    it('serves a SigV2 presigned GET (boto3\'s default for custom endpoints)', async () => {
      const res = await fetch((await presign(300, 's3')) as string);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('q1');
    });

    it('refuses an expiry beyond seven days', async () => {
      const res = await fetch((await presign(604801)) as string);
      expect(res.status).toBe(400);
      expect(errorCode(await res.text())).toBe('AuthorizationQueryParametersError');
    });
  });

  describe('authentication failures', () => {
    const bad = (keys: Keys): S3Client => jsClient(gw.endpoint, keys);

    it('wrong secret: SignatureDoesNotMatch', async () => {
      const c = bad({ accessKeyId: ADMIN.accessKeyId, secretAccessKey: 'wrong' });
      expect(await codeOf(c.send(new GetObjectCommand({ Bucket: 'strict', Key: 'reports/q1.csv' })))).toBe('SignatureDoesNotMatch');
      c.destroy();
    });

    it('unknown and disabled keys: InvalidAccessKeyId', async () => {
      for (const keys of [{ accessKeyId: 'UNKNOWNKEY', secretAccessKey: 'x' }, DISABLED]) {
        const c = bad(keys);
        expect(await codeOf(c.send(new ListObjectsV2Command({ Bucket: 'strict' })))).toBe('InvalidAccessKeyId');
        c.destroy();
      }
    });

    it('a clock 20 minutes off: RequestTimeTooSkewed', async () => {
      const res = await rawRequest(gw.endpoint, { method: 'GET', target: '/strict/reports/q1.csv' }, ADMIN, new Date(Date.now() - 20 * 60_000));
      expect(res.status).toBe(403);
      expect(errorCode(res.body)).toBe('RequestTimeTooSkewed');
    });

    it('a malformed Authorization header: AuthorizationHeaderMalformed', async () => {
      const res = await rawRequest(gw.endpoint, {
        method: 'GET',
        target: '/strict/reports/q1.csv',
        headers: { authorization: 'AWS4-HMAC-SHA256 Credential=garbage', 'x-amz-date': '20260101T000000Z', 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      });
      expect(res.status).toBe(400);
      expect(errorCode(res.body)).toBe('AuthorizationHeaderMalformed');
    });
  });

  describe('anonymous access', () => {
    it('reads and lists a public bucket (JS SDK, aws-cli --no-sign-request, plain HTTP)', async () => {
      expect(await text(anonymous, 'public', 'hello.txt')).toBe('hello, world\n');
      const cli = await awsCli('v1', gw.endpoint, undefined, ['s3', 'cp', 's3://public/hello.txt', '-']);
      expect(cli).toMatchObject(expectedCliCopy(runtime, 'hello, world\n'));
      const listed = await anonymous.send(new ListObjectsV2Command({ Bucket: 'public' }));
      expect(listed.Contents?.map((c) => c.Key)).toContain('hello.txt');
      expect((await fetch(`${gw.endpoint}/public/hello.txt`)).status).toBe(200);
    });

    it('cannot read a private bucket', async () => {
      expect(await codeOf(anonymous.send(new GetObjectCommand({ Bucket: 'private', Key: 'secret.txt' })))).toBe('AccessDenied');
    });

    it('cannot write, even to a public bucket', async () => {
      expect(await codeOf(anonymous.send(new PutObjectCommand({ Bucket: 'public', Key: 'new.txt', Body: 'x' })))).toBe('AccessDenied');
      const res = await rawRequest(gw.endpoint, { method: 'DELETE', target: '/public/hello.txt' });
      expect(res.status).toBe(403);
    });
  });

  describe('scopes', () => {
    it('allows reads under the granted prefix only', async () => {
      expect(await text(scoped, 'strict', 'reports/q1.csv')).toBe('q1');
      expect(await text(scoped, 'strict', 'reports/2024/q2.csv')).toBe('q2');
      expect(await codeOf(scoped.send(new GetObjectCommand({ Bucket: 'strict', Key: 'reportsx/hidden' })))).toBe('AccessDenied');
      expect(await codeOf(scoped.send(new GetObjectCommand({ Bucket: 'strict', Key: 'list/a-00' })))).toBe('AccessDenied');
    });

    it('lists only inside the grant, never a sibling that shares the prefix text', async () => {
      expect(await codeOf(scoped.send(new ListObjectsV2Command({ Bucket: 'strict' })))).toBe('AccessDenied');
      const listed = await scoped.send(new ListObjectsV2Command({ Bucket: 'strict', Prefix: 'reports' }));
      expect(listed.Contents?.map((c) => c.Key)).toEqual(['reports/2024/q2.csv', 'reports/q1.csv']);
    });

    it('refuses buckets and actions outside the grant', async () => {
      expect(await codeOf(scoped.send(new GetObjectCommand({ Bucket: 'private', Key: 'secret.txt' })))).toBe('AccessDenied');
      expect(await codeOf(scoped.send(new PutObjectCommand({ Bucket: 'strict', Key: 'reports/new.csv', Body: 'x' })))).toBe('AccessDenied');
    });
  });

  describe('invalid keys', () => {
    const DOT_SEGMENTS = ['/public/a/../hello.txt', '/public/a/%2e%2e/hello.txt', '/public/./hello.txt'];
    const resolved = RUNTIME_LIMITS[runtime].resolvesDotSegments === true;

    it.each([...(resolved ? [] : DOT_SEGMENTS), '/public/a//b', '/public//hello.txt', '/public/dir/', '/public/a%01b'])(
      '%s is 400 InvalidRequest',
      async (target) => {
        const res = await rawRequest(gw.endpoint, { method: 'GET', target });
        expect(res.status).toBe(400);
        expect(errorCode(res.body)).toBe('InvalidRequest');
      },
    );

    if (resolved) {
      // Declared in RUNTIME_LIMITS: the platform resolves dot segments before the gateway sees the path.
      it.each(DOT_SEGMENTS)('%s arrives resolved: anonymous, it reads the resolved key as the resolved path authorizes', async (target) => {
        const res = await rawRequest(gw.endpoint, { method: 'GET', target });
        expect(res.status).toBe(200);
        expect(res.body).toBe('hello, world\n');
        const outside = await rawRequest(gw.endpoint, { method: 'GET', target: target.replace('/public/', '/public/../private/').replace('hello.txt', 'secret.txt') });
        expect(errorCode(outside.body)).toBe('AccessDenied');
      });
    }

    it('a key over 1,024 bytes is 400 KeyTooLongError, as S3 answers, never the store\'s own failure', async () => {
      const res = await rawRequest(gw.endpoint, { method: 'GET', target: `/public/${'k'.repeat(1025)}` });
      expect(res.status).toBe(400);
      expect(errorCode(res.body)).toBe('KeyTooLongError');
    });

    it.each(DOT_SEGMENTS)('%s signed is refused, never served under a signature for another path', async (target) => {
      const res = await rawRequest(gw.endpoint, { method: 'GET', target }, ADMIN);
      expect(res.status).toBe(resolved ? 403 : 400);
      expect(errorCode(res.body)).toBe(resolved ? 'SignatureDoesNotMatch' : 'InvalidRequest');
    });
  });

  describe('bucket sub-resources are never misrouted', () => {
    it.each([
      ['GET', '/strict?policy'],
      ['GET', '/strict?acl'],
      ['PUT', '/strict?versioning'],
      ['DELETE', '/strict'],
      ['POST', '/strict/reports/q1.csv'],
      ['PUT', '/strict/reports/q1.csv?acl'],
    ])('%s %s is 501 NotImplemented', async (method, target) => {
      const res = await rawRequest(gw.endpoint, { method, target }, ADMIN);
      expect(res.status).toBe(501);
      expect(errorCode(res.body)).toBe('NotImplemented');
    });

    it('GET ?versioning answers whether the bucket keeps versions, as its backend bucket does', async () => {
      const status = async (bucket: string) => {
        const cli = await awsCli('v1', gw.endpoint, ADMIN, ['s3api', 'get-bucket-versioning', '--bucket', bucket]);
        expect({ bucket, code: cli.code, stderr: cli.stderr }).toEqual({ bucket, code: 0, stderr: '' });
        return cli.stdout.trim() === '' ? {} : JSON.parse(cli.stdout);
      };
      // RGW also states MfaDelete, which the gateway passes on.
      expect(await status('versioned')).toEqual({ Status: 'Enabled', MFADelete: 'Disabled' });
      expect(await status('strict')).toEqual({});
      expect(await status('public')).toEqual({});
      const res = await rawRequest(gw.endpoint, { method: 'GET', target: '/versioned?versioning' }, ADMIN);
      expect(res.body).toMatch(/<VersioningConfiguration xmlns="http:\/\/s3.amazonaws.com\/doc\/2006-03-01\/"><Status>Enabled<\/Status><MfaDelete>Disabled<\/MfaDelete><\/VersioningConfiguration>$/);
      expect(await codeOf(anonymous.send(new GetBucketVersioningCommand({ Bucket: 'public' })))).toBe('AccessDenied');
    });

    it('GET ?location answers the location, not a listing', async () => {
      const res = await rawRequest(gw.endpoint, { method: 'GET', target: '/strict?location' }, ADMIN);
      expect(res.body).toContain('<LocationConstraint');
      expect(res.body).not.toContain('ListBucketResult');
    });

    it('left the backend bucket and its objects untouched', async () => {
      expect(await text(backends.direct.rgw, 'data', 'reports/q1.csv')).toBe('q1');
    });
  });
});
