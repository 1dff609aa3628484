import { CreateMultipartUploadCommand, type S3Client } from '@aws-sdk/client-s3';
import { startAzurite, type Azurite } from '../support/azurite';
import { awsCli, boto3, jsClient, type Keys } from '../support/clients';
import { azuriteOptions, bucketToml, credentialToml, everywhere, gcsEmulatorOptions, s3Options, type TomlFields } from '../support/config-toml';
import { startGcsEmulator, type GcsEmulator } from '../support/gcs-emulator';
import { startGateway, TRANSPORT_RUNTIMES, type RunningGateway } from '../support/gateway';
import { errorCode, rawRequest, type RawResponse } from '../support/raw-request';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';
import { putDirect } from './fixtures';

/**
 * Issue 18, finding 6: a listing shows nothing outside the caller's scopes, in its entries, its markers or
 * its tokens; `backend_prefix` never shows; nor do the backend's bucket name and owner, in listings or in
 * the errors the backend answers. One RGW bucket (named so that a leak is unmistakable) holds every key:
 *
 * - `priv` is the whole backend bucket; LISTER may list it under `data` only. It may also list `database/`
 *   in the bucket `other` and read (not list) `database/` in `priv`: neither widens a listing of `priv`.
 * - `tenant` is the same backend bucket under `tenant-a/`; TENANT may list all of it.
 * - `azure-tenant` and `gcs-tenant` put Azure's and GCS's own markers behind the same kind of prefix.
 */
const BACKEND_BUCKET = 'backend-vault-7f3';
const LISTER: Keys = { accessKeyId: 'LISTERKEY00000000000', secretAccessKey: 'lister/secret/key/0000000000000000000000' };
const TENANT: Keys = { accessKeyId: 'TENANTKEY00000000000', secretAccessKey: 'tenant/secret/key/0000000000000000000000' };

/** What LISTER may list in `priv` under `data`, in S3 order. */
const VISIBLE = ['data', 'data/a.txt', 'data/b.txt', 'data/sub/c.txt'];
const HIDDEN = ['data!x.txt', 'database/x.txt', 'database/y.txt', 'dataz.txt', 'tenant-b/secret.txt'];
const TENANT_KEYS = ['a.txt', 'b.txt', 'c.txt', 'sub/d.txt'];
/**
 * Uploads in progress; LISTER sees those of `data` and under `data/`. (RGW lists them by `key.uploadId`, so
 * `data-x.bin` comes before the uploads of `data` itself.)
 */
const UPLOADS = ['data', 'data-x.bin', 'data/u1.bin', 'data/u2.bin', 'database/u3.bin', 'dataz-u4.bin'];
const VISIBLE_UPLOADS = ['data', 'data/u1.bin', 'data/u2.bin'];

/** Anything a client must not learn: out-of-scope names, the backend bucket, its owner (RGW's user), the prefix. */
const OUT_OF_SCOPE = /database|dataz|data!x|data-x|tenant-|backend-vault|tester/;
const BACKEND_SIDE = /tenant-a|backend-vault|tester|devstoreaccount1/;

let rgw: Rgw;
let azurite: Azurite;
let gcs: GcsEmulator;

beforeAll(async () => {
  [rgw, azurite, gcs] = await Promise.all([startRgw(), startAzurite(), startGcsEmulator()]);
  await createBucket(rgw, BACKEND_BUCKET);
  const direct = rgwS3Client(rgw);
  await Promise.all([
    ...[...VISIBLE, ...HIDDEN].map((k) => putDirect(direct, BACKEND_BUCKET, k, k)),
    ...TENANT_KEYS.map((k) => putDirect(direct, BACKEND_BUCKET, `tenant-a/${k}`, k)),
  ]);
  for (const key of UPLOADS) await direct.send(new CreateMultipartUploadCommand({ Bucket: BACKEND_BUCKET, Key: key }));
  direct.destroy();
  await azurite.createContainer('vault');
  for (const k of TENANT_KEYS) await azurite.putBlob('vault', `tenant-a/${k}`, k);
  for (const k of TENANT_KEYS) await gcs.upload('vault', `tenant-a/${k}`, k);
}, 120_000);

afterAll(async () => {
  await Promise.all([rgw?.stop(), azurite?.stop(), gcs?.stop()]);
});

function config(): string {
  const rgwBucket = (name: string, extra: TomlFields = {}): string =>
    bucketToml({ name, backend_type: 's3' }, s3Options(rgw.endpoint, BACKEND_BUCKET, rgw, { region: 'us-east-1', ...extra }));
  const tenant = { backend_prefix: 'tenant-a/' };
  return [
    rgwBucket('priv'),
    rgwBucket('other'),
    rgwBucket('tenant', tenant),
    bucketToml({ name: 'azure-tenant', backend_type: 'azure' }, { ...azuriteOptions(azurite.endpoint, 'vault'), ...tenant }),
    bucketToml({ name: 'gcs-tenant', backend_type: 'gcs' }, { ...gcsEmulatorOptions(gcs.endpoint, 'vault'), ...tenant }),
    credentialToml(LISTER, { principal_name: 'lister' }, [
      { bucket: 'priv', prefixes: ['data'], actions: ['list_bucket', 'get_object', 'put_object', 'create_multipart_upload', 'abort_multipart_upload'] },
      { bucket: 'other', prefixes: ['database/'], actions: ['list_bucket'] },
      { bucket: 'priv', prefixes: ['database/'], actions: ['get_object'] },
    ]),
    credentialToml(TENANT, { principal_name: 'tenant' }, [everywhere(['list_bucket', 'get_object'])]),
  ].join('\n');
}

/**
 * Everything a response tells a client, as a client could read it: the body, and every element value
 * decoded as base64url (tokens are opaque, not secret).
 */
function readable(body: string): string {
  const decoded = [...body.matchAll(/>([A-Za-z0-9_.=-]{8,})</g)].map((m) => Buffer.from(m[1].replace(/^gw1\./, ''), 'base64url').toString('latin1'));
  return [body, ...decoded].join('\n');
}

const element = (xml: string, name: string): string | undefined => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
const elements = (xml: string, name: string): string[] => [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1]);
const commonPrefixes = (xml: string): string[] => [...xml.matchAll(/<CommonPrefixes><Prefix>([^<]*)<\/Prefix><\/CommonPrefixes>/g)].map((m) => m[1]);
const q = (value: string): string => encodeURIComponent(value);

describe.each(TRANSPORT_RUNTIMES)('listings show nothing outside the caller\'s scopes (%s runtime)', (runtime) => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config() });
  }, 60_000);

  afterAll(() => gw?.stop());

  const get = (target: string, keys: Keys): Promise<RawResponse> => rawRequest(gw.endpoint, { method: 'GET', target }, keys);

  /** Follows a listing page by page through `next` (the page's own marker or token); every page's body. */
  async function chain(first: string, next: (body: string) => string | undefined, keys: Keys): Promise<string[]> {
    const bodies: string[] = [];
    let target: string | undefined = first;
    for (let page = 0; target !== undefined && page < 30; page++) {
      const res = await get(target, keys);
      expect(res.status).toBe(200);
      bodies.push(res.body);
      target = element(res.body, 'IsTruncated') === 'true' ? next(res.body) : undefined;
    }
    expect(target).toBeUndefined();
    return bodies;
  }

  describe('ListObjects', () => {
    it('GIVEN a grant on "data" and another bucket\'s "database/" WHEN V2 lists prefix=data with "/" THEN the only common prefix is "data/"', async () => {
      const res = await get('/priv?list-type=2&prefix=data&delimiter=%2F', LISTER);
      expect(res.status).toBe(200);
      expect(commonPrefixes(res.body)).toEqual(['data/']);
      expect(elements(res.body, 'Key')).toEqual(['data']);
      expect(readable(res.body)).not.toMatch(OUT_OF_SCOPE);
    });

    it('chained V2 pages of max-keys=1 name only visible keys, in entries and continuation tokens', async () => {
      const base = '/priv?list-type=2&prefix=data&max-keys=1';
      const bodies = await chain(base, (b) => `${base}&continuation-token=${q(element(b, 'NextContinuationToken') ?? '')}`, LISTER);
      expect(bodies.flatMap((b) => elements(b, 'Key'))).toEqual(VISIBLE);
      for (const body of bodies) expect(readable(body)).not.toMatch(OUT_OF_SCOPE);
    });

    it('chained V1 pages of max-keys=1 name only visible keys, in entries and NextMarker', async () => {
      const base = '/priv?prefix=data&max-keys=1';
      const bodies = await chain(base, (b) => `${base}&marker=${q(element(b, 'NextMarker') ?? '')}`, LISTER);
      expect(bodies.flatMap((b) => elements(b, 'Key'))).toEqual(VISIBLE);
      for (const body of bodies) expect(readable(body)).not.toMatch(OUT_OF_SCOPE);
    });

    it('with the delimiter, pages through keys and common prefixes once each', async () => {
      const base = '/priv?list-type=2&prefix=data%2F&delimiter=%2F&max-keys=1';
      const bodies = await chain(base, (b) => `${base}&continuation-token=${q(element(b, 'NextContinuationToken') ?? '')}`, LISTER);
      expect(bodies.flatMap((b) => [...elements(b, 'Key'), ...commonPrefixes(b)])).toEqual(['data/a.txt', 'data/b.txt', 'data/sub/']);
    });

    it('a start-after or marker outside the scope is a position only: nothing outside follows it', async () => {
      const after = await get('/priv?list-type=2&prefix=data&start-after=data%21', LISTER);
      expect(elements(after.body, 'Key')).toEqual(['data/a.txt', 'data/b.txt', 'data/sub/c.txt']);
      const marker = await get('/priv?prefix=data&marker=data%2Fzzz', LISTER);
      expect(elements(marker.body, 'Key')).toEqual([]);
      for (const body of [after.body, marker.body]) expect(readable(body)).not.toMatch(OUT_OF_SCOPE);
    });

    it('GIVEN a continuation token the gateway did not issue, or one it issued and the client altered, cut or moved WHEN listing THEN 400 InvalidArgument, never a listing', async () => {
      const page = await get('/priv?list-type=2&prefix=data&max-keys=1', LISTER);
      const token = element(page.body, 'NextContinuationToken') ?? '';
      const bytes = Buffer.from(token, 'base64url');
      bytes[bytes.length - 1] ^= 0x01;
      const refused = [
        '/priv?list-type=2&prefix=data&continuation-token=ZGF0YWJhc2UveC50eHQ',
        `/priv?list-type=2&prefix=data&continuation-token=${Buffer.from(JSON.stringify({ p: 'data', d: '', a: 'data!' })).toString('base64url')}`,
        `/priv?list-type=2&prefix=data&continuation-token=${bytes.toString('base64url')}`,
        `/priv?list-type=2&prefix=data&continuation-token=${token.slice(0, -4)}`,
        `/priv?list-type=2&prefix=data%2F&continuation-token=${token}`,
        `/priv?list-type=2&prefix=data&delimiter=%2F&continuation-token=${token}`,
      ];
      for (const target of refused) {
        const res = await get(target, LISTER);
        expect([target, res.status, errorCode(res.body)]).toEqual([target, 400, 'InvalidArgument']);
        expect(res.body).toContain('<Message>The continuation token provided is incorrect</Message>');
      }
      expect(elements((await get(`/priv?list-type=2&prefix=data&continuation-token=${token}`, LISTER)).body, 'Key')).toEqual(['data/a.txt', 'data/b.txt', 'data/sub/c.txt']);
    });

    it('GIVEN a V1 marker the gateway tagged as its own WHEN altered THEN 400 InvalidArgument; an untagged marker stays a key', async () => {
      const page = await get('/azure-tenant?max-keys=1', TENANT);
      const marker = element(page.body, 'NextMarker') ?? '';
      expect(marker).toMatch(/^gw1\./);
      const sealed = Buffer.from(marker.slice('gw1.'.length), 'base64url');
      sealed[20] ^= 0x01;
      const altered = `gw1.${sealed.toString('base64url')}`;
      const res = await get(`/azure-tenant?max-keys=1&marker=${q(altered)}`, TENANT);
      expect([res.status, errorCode(res.body)]).toEqual([400, 'InvalidArgument']);
      expect(elements((await get(`/azure-tenant?max-keys=1&marker=${q(marker)}`, TENANT)).body, 'Key')).toEqual(['b.txt']);
      expect(elements((await get('/azure-tenant?marker=b.txt', TENANT)).body, 'Key')).toEqual(['c.txt', 'sub/d.txt']);
    });

    it('behind backend_prefix, keys, tokens and markers never show the prefix', async () => {
      const v2 = '/tenant?list-type=2&max-keys=1&fetch-owner=true';
      const v2Bodies = await chain(v2, (b) => `${v2}&continuation-token=${q(element(b, 'NextContinuationToken') ?? '')}`, TENANT);
      expect(v2Bodies.flatMap((b) => elements(b, 'Key'))).toEqual(TENANT_KEYS);
      const v1 = '/tenant?max-keys=1';
      const v1Bodies = await chain(v1, (b) => `${v1}&marker=${q(element(b, 'NextMarker') ?? '')}`, TENANT);
      expect(v1Bodies.flatMap((b) => elements(b, 'Key'))).toEqual(TENANT_KEYS);
      for (const body of [...v2Bodies, ...v1Bodies]) expect(readable(body)).not.toMatch(BACKEND_SIDE);
    });

    it('names the virtual bucket and the gateway as owner, never the backend bucket or its owner', async () => {
      for (const target of ['/priv?list-type=2&prefix=data&fetch-owner=true', '/priv?prefix=data', '/tenant?list-type=2&fetch-owner=true']) {
        const res = await get(target, target.startsWith('/tenant') ? TENANT : LISTER);
        expect(elements(res.body, 'ID')).toEqual(expect.arrayContaining(['gateway']));
        expect(new Set(elements(res.body, 'ID'))).toEqual(new Set(['gateway']));
        expect(readable(res.body)).not.toMatch(BACKEND_SIDE);
      }
    });

    it.each(['azure-tenant', 'gcs-tenant'])('%s: the store\'s own markers (which name backend keys) never reach the client readable', async (bucket) => {
      const v2 = `/${bucket}?list-type=2&max-keys=1`;
      const v2Bodies = await chain(v2, (b) => `${v2}&continuation-token=${q(element(b, 'NextContinuationToken') ?? '')}`, TENANT);
      expect(v2Bodies.flatMap((b) => elements(b, 'Key'))).toEqual(TENANT_KEYS);
      const v1 = `/${bucket}?max-keys=1`;
      const v1Bodies = await chain(v1, (b) => `${v1}&marker=${q(element(b, 'NextMarker') ?? '')}`, TENANT);
      expect(v1Bodies.flatMap((b) => elements(b, 'Key'))).toEqual(TENANT_KEYS);
      for (const body of [...v2Bodies, ...v1Bodies]) expect(readable(body)).not.toMatch(BACKEND_SIDE);
    });
  });

  describe('ListMultipartUploads', () => {
    it('chained pages of max-uploads=1 name only visible uploads, in entries and NextKeyMarker', async () => {
      const base = '/priv?uploads&prefix=data&max-uploads=1';
      const bodies = await chain(
        base,
        (b) => `${base}&key-marker=${q(element(b, 'NextKeyMarker') ?? '')}&upload-id-marker=${q(element(b, 'NextUploadIdMarker') ?? '')}`,
        LISTER,
      );
      expect(bodies.flatMap((b) => elements(b, 'Key'))).toEqual(VISIBLE_UPLOADS);
      for (const body of bodies) expect(readable(body)).not.toMatch(OUT_OF_SCOPE);
    });
  });

  describe('backend errors', () => {
    it('a missing key is NoSuchKey naming neither the backend bucket nor backend_prefix', async () => {
      const missing = await get('/priv/data/missing.txt', LISTER);
      expect(missing.status).toBe(404);
      expect(errorCode(missing.body)).toBe('NoSuchKey');
      expect(missing.body).not.toMatch(BACKEND_SIDE);
      const tenant = await get('/tenant/missing.txt', TENANT);
      expect(errorCode(tenant.body)).toBe('NoSuchKey');
      expect(tenant.body).not.toMatch(BACKEND_SIDE);
    });

    it('ListParts of an unknown upload, and CopyObject from a missing source, name no backend bucket', async () => {
      const parts = await get('/priv/data/a.txt?uploadId=2~nosuchupload', LISTER);
      expect(parts.status).toBe(404);
      expect(parts.body).not.toMatch(BACKEND_SIDE);
      const copy = await rawRequest(gw.endpoint, { method: 'PUT', target: '/priv/data/copy.txt', headers: { 'x-amz-copy-source': '/priv/data/missing.txt' } }, LISTER);
      expect(copy.status).toBe(404);
      expect(errorCode(copy.body)).toBe('NoSuchKey');
      expect(copy.body).not.toMatch(BACKEND_SIDE);
    });

    it('ListParts of a live upload names the gateway as owner and initiator', async () => {
      const client: S3Client = jsClient(gw.endpoint, LISTER);
      const created = await client.send(new CreateMultipartUploadCommand({ Bucket: 'priv', Key: `data/parts-${runtime}.bin` }));
      const parts = await get(`/priv/data/parts-${runtime}.bin?uploadId=${q(created.UploadId ?? '')}`, LISTER);
      expect(parts.status).toBe(200);
      expect(new Set(elements(parts.body, 'ID'))).toEqual(new Set(['gateway']));
      expect(parts.body).not.toMatch(BACKEND_SIDE);
      await rawRequest(gw.endpoint, { method: 'DELETE', target: `/priv/data/parts-${runtime}.bin?uploadId=${q(created.UploadId ?? '')}` }, LISTER);
      client.destroy();
    });
  });

  describe('an in-scope client pages through everything it may see', () => {
    it('aws-cli: list-objects-v2, list-objects and list-multipart-uploads with --page-size 1; s3 ls behind backend_prefix', async () => {
      const keysOf = async (args: string[], keys: Keys, field = 'Contents'): Promise<string[]> => {
        const run = await awsCli('v2', gw.endpoint, keys, ['s3api', ...args, '--page-size', '1', '--output', 'json', '--query', `${field}[].Key`]);
        expect(run.code).toBe(0);
        return JSON.parse(run.stdout) as string[];
      };
      expect(await keysOf(['list-objects-v2', '--bucket', 'priv', '--prefix', 'data'], LISTER)).toEqual(VISIBLE);
      expect(await keysOf(['list-objects', '--bucket', 'priv', '--prefix', 'data'], LISTER)).toEqual(VISIBLE);
      expect(await keysOf(['list-multipart-uploads', '--bucket', 'priv', '--prefix', 'data/u'], LISTER, 'Uploads')).toEqual(['data/u1.bin', 'data/u2.bin']);
      const ls = await awsCli('v1', gw.endpoint, TENANT, ['s3', 'ls', 's3://tenant/', '--recursive', '--page-size', '1']);
      expect(ls.stdout.trim().split('\n').map((line) => line.split(/\s+/).pop())).toEqual(TENANT_KEYS);
    });

    it('boto3 paginators: list_objects_v2, list_objects and list_multipart_uploads with PageSize 1', async () => {
      const result = await boto3(
        'boto3-new',
        gw.endpoint,
        LISTER,
        `pages = lambda op, field, **kw: [x['Key'] for p in s3.get_paginator(op).paginate(Bucket='priv', PaginationConfig={'PageSize': 1}, **kw) for x in p.get(field, [])]
result = [pages('list_objects_v2', 'Contents', Prefix='data'), pages('list_objects', 'Contents', Prefix='data'), pages('list_multipart_uploads', 'Uploads', Prefix='data/u')]`,
      );
      expect(result).toEqual([VISIBLE, VISIBLE, ['data/u1.bin', 'data/u2.bin']]);
      const tenant = await boto3(
        'boto3-debian',
        gw.endpoint,
        TENANT,
        "result = [c['Key'] for b in ['tenant', 'azure-tenant', 'gcs-tenant'] for p in s3.get_paginator('list_objects_v2').paginate(Bucket=b, PaginationConfig={'PageSize': 1}) for c in p.get('Contents', [])]",
      );
      expect(tenant).toEqual([...TENANT_KEYS, ...TENANT_KEYS, ...TENANT_KEYS]);
    });
  });
});
