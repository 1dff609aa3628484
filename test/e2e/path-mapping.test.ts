import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { awsCli, boto3, type Keys } from '../support/clients';
import { MULTIPART_ACTIONS, bucketToml, credentialToml, everywhere, s3Options, tableToml } from '../support/config-toml';
import { expectedCliCopy, startGateway, TRANSPORT_RUNTIMES, type RunningGateway } from '../support/gateway';
import { errorCode, rawRequest } from '../support/raw-request';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';
import { ADMIN, putDirect } from './fixtures';

/**
 * A path-mapped deployment (`[path_mapping] segments = 2`): `/{account}/{repo}/{key}` is served from the
 * virtual bucket `account:repo`. Every mapped bucket lives in one RGW bucket under its own backend_prefix, so
 * what the clients see can be compared with where RGW stored it. aws-cli and boto3 drive every level.
 * Runtimes share the backend: the listings read the seeded `acme` account, writes and copies go to `work`.
 */
const WIDGETS_ONLY: Keys = { accessKeyId: 'WIDGETSKEY0000000000', secretAccessKey: 'widgets/secret/key/00000000000000000000' };

const SEEDED: Record<string, string> = {
  'acme/widgets/readme.txt': 'widgets readme',
  'acme/widgets/src/main.ts': 'main',
  'acme/widgets/src/util.ts': 'util',
  'acme/gadgets/readme.txt': 'gadgets readme',
  'acme/private/secret.txt': 'secret',
  'other/public/hello.txt': 'hello, world',
};

let rgw: Rgw;
let direct: S3Client;

beforeAll(async () => {
  rgw = await startRgw();
  await createBucket(rgw, 'mapped');
  direct = rgwS3Client(rgw);
  await Promise.all(Object.entries(SEEDED).map(([key, body]) => putDirect(direct, 'mapped', key, body)));
}, 120_000);

afterAll(async () => {
  direct?.destroy();
  await rgw?.stop();
});

function config(): string {
  const mapped = (name: string, anonymous = false): string =>
    bucketToml(
      { name, backend_type: 's3', anonymous_access: anonymous },
      s3Options(rgw.endpoint, 'mapped', rgw, { region: 'us-east-1', backend_prefix: `${name.replace(':', '/')}/` }),
    );
  return [
    tableToml('[path_mapping]', { segments: 2, separator: ':' }),
    ...['acme:widgets', 'acme:gadgets', 'acme:private'].map((name) => mapped(name)),
    mapped('other:public', true),
    ...['work:in', 'work:out'].map((name) => mapped(name)),
    credentialToml(ADMIN, {}, [
      everywhere(['get_object', 'head_object', 'put_object', 'delete_object', 'list_bucket', ...MULTIPART_ACTIONS]),
    ]),
    credentialToml(WIDGETS_ONLY, {}, [{ bucket: 'acme:widgets', actions: ['get_object', 'head_object', 'put_object', 'list_bucket'] }]),
  ].join('\n');
}

async function stored(key: string): Promise<string | undefined> {
  try {
    const out = await direct.send(new GetObjectCommand({ Bucket: 'mapped', Key: key }));
    return await out.Body?.transformToString();
  } catch {
    return undefined;
  }
}

describe.each(TRANSPORT_RUNTIMES)('a path-mapped deployment (%s runtime)', (runtime) => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config() });
  }, 60_000);

  afterAll(() => gw?.stop());

  const cli = (keys: Keys | undefined, args: readonly string[]): ReturnType<typeof awsCli> => awsCli('v1', gw.endpoint, keys, args);
  const py = (keys: Keys | undefined, snippet: string): Promise<unknown> => boto3('boto3-new', gw.endpoint, keys, snippet);

  describe('listing at each depth', () => {
    it('/ lists the first segments as buckets (aws-cli, boto3)', async () => {
      const out = await cli(ADMIN, ['s3', 'ls']);
      expect(out.code).toBe(0);
      expect(out.stdout.trim().split('\n').map((line) => line.split(/\s+/).pop())).toEqual(['acme', 'other', 'work']);
      expect(await py(ADMIN, "result = [b['Name'] for b in s3.list_buckets()['Buckets']]")).toEqual(['acme', 'other', 'work']);
    });

    it('/{account} lists its mapped buckets as folders, and everything under it recursively', async () => {
      const folders = await cli(ADMIN, ['s3', 'ls', 's3://acme/']);
      expect(folders.stdout).toMatch(/PRE gadgets\/\n\s+PRE private\/\n\s+PRE widgets\//);
      expect(await py(ADMIN, "result = [p['Prefix'] for p in s3.list_objects_v2(Bucket='acme', Delimiter='/')['CommonPrefixes']]")).toEqual(['gadgets/', 'private/', 'widgets/']);
      const recursive = await cli(ADMIN, ['s3', 'ls', '--recursive', 's3://acme/']);
      expect(recursive.stdout.trim().split('\n').map((line) => line.split(/\s+/).pop())).toEqual([
        'gadgets/readme.txt', 'private/secret.txt', 'widgets/readme.txt', 'widgets/src/main.ts', 'widgets/src/util.ts',
      ]);
    });

    it('/{account} pages across mapped buckets: V2 continuation tokens and V1 markers (boto3 paginators)', async () => {
      const all = ['gadgets/readme.txt', 'private/secret.txt', 'widgets/readme.txt', 'widgets/src/main.ts', 'widgets/src/util.ts'];
      expect(await py(ADMIN, "result = [c['Key'] for p in s3.get_paginator('list_objects_v2').paginate(Bucket='acme', PaginationConfig={'PageSize': 2}) for c in p.get('Contents', [])]")).toEqual(all);
      expect(await py(ADMIN, "result = [c['Key'] for p in s3.get_paginator('list_objects').paginate(Bucket='acme', PaginationConfig={'PageSize': 2}) for c in p.get('Contents', [])]")).toEqual(all);
    });

    it('/{account}/{repo}/ lists the keys of one mapped bucket in the client space', async () => {
      const out = await cli(ADMIN, ['s3', 'ls', 's3://acme/widgets/']);
      expect(out.stdout).toMatch(/PRE src\/\n.*readme\.txt/);
      const listed = await py(ADMIN, "r = s3.list_objects_v2(Bucket='acme', Prefix='widgets/src/', StartAfter='widgets/src/main.ts')\nresult = [r['Name'], r['Prefix'], [c['Key'] for c in r['Contents']]]");
      expect(listed).toEqual(['acme', 'widgets/src/', ['widgets/src/util.ts']]);
    });

    it('shows a scoped caller only the mapped buckets it may list, and refuses a prefix inside another', async () => {
      expect(await py(WIDGETS_ONLY, "result = [p['Prefix'] for p in s3.list_objects_v2(Bucket='acme', Delimiter='/')['CommonPrefixes']]")).toEqual(['widgets/']);
      expect(await py(WIDGETS_ONLY, "result = error_code(lambda: s3.list_objects_v2(Bucket='acme', Prefix='gadgets/'))")).toBe('AccessDenied');
      expect(await py(WIDGETS_ONLY, "result = error_code(lambda: s3.list_objects_v2(Bucket='other'))")).toBe('AccessDenied');
    });

    it('lets anonymous callers list and read an anonymous mapped bucket only', async () => {
      const out = await cli(undefined, ['s3', 'ls', 's3://other/public/']);
      expect(out.stdout).toContain('hello.txt');
      expect(await cli(undefined, ['s3', 'cp', 's3://other/public/hello.txt', '-'])).toMatchObject(expectedCliCopy(runtime, 'hello, world'));
      expect((await rawRequest(gw.endpoint, { method: 'GET', target: '/acme?list-type=2' })).status).toBe(403);
    });
  });

  describe('reading and writing', () => {
    it('reads through the mapped path (aws-cli, boto3; GetObjectAttributes too)', async () => {
      expect(await cli(ADMIN, ['s3', 'cp', 's3://acme/widgets/readme.txt', '-'])).toMatchObject(expectedCliCopy(runtime, 'widgets readme'));
      expect(await py(ADMIN, "result = s3.get_object(Bucket='acme', Key='widgets/src/main.ts')['Body'].read().decode()")).toBe('main');
      expect(await py(ADMIN, "result = s3.get_object_attributes(Bucket='acme', Key='widgets/src/main.ts', ObjectAttributes=['ObjectSize'])['ObjectSize']")).toBe(4);
    });

    it('writes into the mapped bucket: the object lands under its backend prefix', async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'path-mapping-')), 'upload.txt');
      writeFileSync(file, 'from aws-cli');
      const put = await cli(ADMIN, ['s3', 'cp', file, `s3://work/in/uploads/${runtime}-cli.txt`]);
      expect(put.code).toBe(0);
      await py(ADMIN, `s3.put_object(Bucket='work', Key='out/uploads/${runtime}-py.txt', Body=b'from boto3')`);
      expect(await stored(`work/in/uploads/${runtime}-cli.txt`)).toBe('from aws-cli');
      expect(await stored(`work/out/uploads/${runtime}-py.txt`)).toBe('from boto3');
    });

    it('refuses the internal bucket name as a path, and a key that stops at the mapped bucket', async () => {
      const internal = await rawRequest(gw.endpoint, { method: 'GET', target: '/acme:widgets/readme.txt' }, ADMIN);
      expect([internal.status, errorCode(internal.body)]).toEqual([404, 'NoSuchBucket']);
      const short = await rawRequest(gw.endpoint, { method: 'GET', target: '/acme/widgets' }, ADMIN);
      expect([short.status, errorCode(short.body)]).toEqual([400, 'InvalidRequest']);
    });
  });

  describe('CopyObject', () => {
    it('copies between two mapped buckets (aws-cli server-side copy, boto3 copy_object)', async () => {
      const copied = await cli(ADMIN, ['s3', 'cp', 's3://acme/widgets/readme.txt', `s3://work/out/copies/${runtime}-cli.txt`]);
      expect(copied).toMatchObject(expectedCliCopy(runtime));
      if (copied.code === 0) {
        expect(copied.stdout).toContain('copy:');
        expect(await stored(`work/out/copies/${runtime}-cli.txt`)).toBe('widgets readme');
      }
      await py(ADMIN, `s3.copy_object(CopySource={'Bucket': 'acme', 'Key': 'widgets/readme.txt'}, Bucket='work', Key='in/copies/${runtime}-py.txt')`);
      expect(await stored(`work/in/copies/${runtime}-py.txt`)).toBe('widgets readme');
    });

    it('answers a copy from an unmapped source with 404 NoSuchBucket: the internal name, an unknown repo, an unknown account', async () => {
      for (const source of ["'acme:widgets/readme.txt'", "{'Bucket': 'acme', 'Key': 'unknown/readme.txt'}", "{'Bucket': 'nobody', 'Key': 'widgets/readme.txt'}"]) {
        expect(await py(ADMIN, `result = error_code(lambda: s3.copy_object(CopySource=${source}, Bucket='work', Key='out/never.txt'))`)).toBe('NoSuchBucket');
      }
      expect(await stored('work/out/never.txt')).toBeUndefined();
    });

    it('accepts a client that signs x-amz-copy-source as it sent it (client path), verifying the signature over that header', async () => {
      const res = await rawRequest(
        gw.endpoint,
        { method: 'PUT', target: `/work/out/copies/${runtime}-signed.txt`, headers: { 'x-amz-copy-source': '/acme/widgets/readme.txt' } },
        ADMIN,
      );
      expect(res.status).toBe(200);
      expect(res.body).toContain('<CopyObjectResult');
      expect(await stored(`work/out/copies/${runtime}-signed.txt`)).toBe('widgets readme');
    });
  });
});
