import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeys } from '../../functions/key-generator';
import { startS3rver, type S3rver } from '../../scripts/s3rver';
import { awsCli, boto3, jsClient, type Keys } from '../support/clients';
import { startFakeSsm, type FakeSsm } from '../support/fake-ssm';
import { startGateway, type RunningGateway } from '../support/gateway';
import { peakRssGrowth } from '../support/large-bodies';
import { rawRequest } from '../support/raw-request';

/**
 * What is specific to the Web Function shape, through the local Web Function endpoint with real clients:
 * multipart parts far beyond a Function URL's 6 MB, the endpoint's Host rule (path-style only), the
 * half-duplex request path, signatures for any Region (a MultiRegion endpoint serves clients configured for
 * any), the keys read at start from the parameters' Region, and what clients would see if the reported
 * HTTP 417 for `Expect: 100-continue` is real. s3rver is the backend.
 */

const MiB = 1024 * 1024;
const KEY: Keys = { accessKeyId: 'WEBFUNCTIONKEY000000', secretAccessKey: 'web/function/secret/key/0000000000000000' };
const sha = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

let backend: S3rver;
let direct: S3Client;
let dir: string;
let big: Buffer;

beforeAll(async () => {
  backend = await startS3rver({ buckets: ['data'] });
  direct = jsClient(backend.endpoint, { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
  dir = mkdtempSync(join(tmpdir(), 'web-function-e2e-'));
  big = randomBytes(72 * MiB);
  writeFileSync(join(dir, '72mib.bin'), big);
  writeFileSync(join(dir, 'small.txt'), 'a small file\n');
  writeFileSync(join(dir, '3mib.bin'), big.subarray(0, 3 * MiB));
}, 60_000);

afterAll(async () => {
  direct?.destroy();
  await backend?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function config(): string {
  return `
[[buckets]]
name = "data"
backend_type = "s3"
[buckets.backend_options]
endpoint = "${backend.endpoint}"
bucket_name = "data"
access_key_id = "S3RVER"
secret_access_key = { env = "BACKEND_SECRET" }

[[credentials]]
access_key_id = "${KEY.accessKeyId}"
secret_access_key = "${KEY.secretAccessKey}"
principal_name = "web"
[[credentials.allowed_scopes]]
bucket = "data"
actions = ["get_object", "head_object", "put_object", "list_bucket", "create_multipart_upload", "upload_part", "complete_multipart_upload", "abort_multipart_upload"]
`;
}

async function stored(key: string): Promise<Buffer> {
  const out = await direct.send(new GetObjectCommand({ Bucket: 'data', Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

describe('the gateway on a Web Function (local endpoint)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway('web', { config: config(), env: { BACKEND_SECRET: 'S3RVER' } });
  }, 60_000);

  afterAll(() => gw?.stop());

  it('takes a 72 MiB upload in 64 MiB parts from boto3 (new and Debian, Expect: 100-continue on each part) and lib-storage, byte for byte, with RSS growth under 64 MB', async () => {
    const growth = await peakRssGrowth(gw, async () => {
      for (const python of ['boto3-new', 'boto3-debian'] as const) {
        await boto3(python, gw.endpoint, KEY, `
from boto3.s3.transfer import TransferConfig
s3.upload_file(${JSON.stringify(join(dir, '72mib.bin'))}, 'data', 'parts/${python}.bin', Config=TransferConfig(multipart_threshold=64*1024*1024, multipart_chunksize=64*1024*1024, max_concurrency=1))`);
      }
      const client = jsClient(gw.endpoint, KEY);
      try {
        await new Upload({ client, params: { Bucket: 'data', Key: 'parts/lib-storage.bin', Body: big }, partSize: 64 * MiB, queueSize: 1 }).done();
      } finally {
        client.destroy();
      }
    });
    for (const key of ['parts/boto3-new.bin', 'parts/boto3-debian.bin', 'parts/lib-storage.bin']) expect(sha(await stored(key))).toBe(sha(big));
    expect(growth).toBeLessThan(64 * 1024 * 1024);
    expect(await gw.logged(/"method":"PUT","path":"\/data\/parts\/boto3-new.bin","status":200/)).toBe(true);
  }, 300_000);

  it('answers a virtual-hosted or foreign Host with the platform\'s 404 before the gateway sees it (path-style only)', async () => {
    const port = new URL(gw.endpoint).port;
    for (const host of [`data.127.0.0.1:${port}`, 'gateway.example.com']) {
      const res = await rawRequest(gw.endpoint, { method: 'GET', target: '/small.txt', headers: { host } });
      expect(res.status).toBe(404);
      expect(res.headers['lambda-web-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers['x-amz-request-id']).toBeUndefined();
    }
    expect(gw.logs()).not.toContain('"path":"/small.txt"');
  });

  it('verifies each client\'s own signing Region: JS SDK clients for eu-west-1 and ap-southeast-2, boto3 for us-west-2', async () => {
    for (const region of ['eu-west-1', 'ap-southeast-2']) {
      const client = new S3Client({ endpoint: gw.endpoint, region, forcePathStyle: true, credentials: KEY, maxAttempts: 1 });
      try {
        await client.send(new PutObjectCommand({ Bucket: 'data', Key: `regions/${region}.txt`, Body: region }));
        const out = await client.send(new GetObjectCommand({ Bucket: 'data', Key: `regions/${region}.txt` }));
        expect(await out.Body?.transformToString()).toBe(region);
      } finally {
        client.destroy();
      }
    }
    const py = await boto3('boto3-new', gw.endpoint, KEY, `
s3 = boto3.client('s3', endpoint_url=s3.meta.endpoint_url, region_name='us-west-2', config=cfg)
s3.put_object(Bucket='data', Key='regions/us-west-2.txt', Body=b'us-west-2')
result = s3.get_object(Bucket='data', Key='regions/us-west-2.txt')['Body'].read().decode()`);
    expect(py).toBe('us-west-2');
  });

  it('forwards the whole body before the answer is read: a refused 16 MiB PUT, sent slowly, gets its 403 only after the client sent the last byte', async () => {
    const chunk = Buffer.alloc(MiB, 1);
    const { status, answeredAfterLastByte } = await new Promise<{ status: number; answeredAfterLastByte: boolean }>((resolve, reject) => {
      const url = new URL(gw.endpoint);
      const req = http.request({
        host: url.hostname,
        port: url.port,
        method: 'PUT',
        path: '/data/refused.bin',
        headers: {
          'content-length': String(16 * MiB),
          authorization: `AWS4-HMAC-SHA256 Credential=${KEY.accessKeyId}/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${'0'.repeat(64)}`,
          'x-amz-date': '20260101T000000Z',
          'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
        },
      });
      let lastByteSent = false;
      req.on('response', (res) => {
        const answeredAfterLastByte = lastByteSent;
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, answeredAfterLastByte }));
      });
      req.on('error', reject);
      let sent = 0;
      const next = (): void => {
        sent++;
        if (sent < 16) {
          req.write(chunk);
          setTimeout(next, 15);
        } else {
          lastByteSent = true;
          req.end(chunk);
        }
      };
      next();
    });
    expect(status).toBe(403);
    expect(answeredAfterLastByte).toBe(true);
  });

  describe('reading its keys at start', () => {
    const OIDC = '/S3Gateway/Gateway/oidc-provider-key';
    const SESSION = '/S3Gateway/Gateway/session-token-key';
    const ISSUER = '/S3Gateway/Gateway/oidc-provider-issuer';
    let ssm: FakeSsm;

    beforeAll(async () => {
      ssm = await startFakeSsm({
        [OIDC]: { value: generateKeys().oidcProviderKey, type: 'SecureString', version: 1 },
        [SESSION]: { value: Buffer.alloc(32, 7).toString('base64'), type: 'SecureString', version: 1 },
        [ISSUER]: { value: 'https://abcdefgh.lambda-web.global.on.aws', type: 'String', version: 1 },
      }, { keys: { AKIDLOCALSSM: 'local' } });
    });
    afterAll(() => ssm?.stop());

    it('GIVEN *_PARAMETER variables and PARAMETER_REGION WHEN a replica in another Region starts THEN it reads each parameter once, decrypted, from the parameters\' Region', async () => {
      const started = await startGateway('web', {
        config: config(),
        env: {
          BACKEND_SECRET: 'S3RVER',
          OIDC_PROVIDER_KEY_PARAMETER: OIDC,
          SESSION_TOKEN_KEY_PARAMETER: SESSION,
          OIDC_PROVIDER_ISSUER_PARAMETER: ISSUER,
          // The Region serving this environment, and the stack's, where the parameters are.
          AWS_REGION: 'ap-southeast-2',
          PARAMETER_REGION: 'eu-west-1',
          AWS_ENDPOINT_URL_SSM: ssm.endpoint,
          AWS_ACCESS_KEY_ID: 'AKIDLOCALSSM',
          AWS_SECRET_ACCESS_KEY: 'local',
        },
      });
      try {
        const discovery = await fetch(`${started.endpoint}/.well-known/openid-configuration`);
        expect(((await discovery.json()) as { issuer: string }).issuer).toBe('https://abcdefgh.lambda-web.global.on.aws');
        expect(ssm.calls.map((c, i) => [c.input.Name, c.input.WithDecryption, ssm.regions[i]]).sort()).toEqual([
          [ISSUER, true, 'eu-west-1'],
          [OIDC, true, 'eu-west-1'],
          [SESSION, true, 'eu-west-1'],
        ]);
        expect(started.logs()).not.toContain('PRIVATE KEY');
        expect(started.logs()).not.toContain(Buffer.alloc(32, 7).toString('base64'));
      } finally {
        await started.stop();
      }
    });
  });
});

describe('if the reported HTTP 417 for Expect: 100-continue is real (WEB_FUNCTION_EXPECT=reject)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway('web', { config: config(), env: { BACKEND_SECRET: 'S3RVER', WEB_FUNCTION_EXPECT: 'reject' } });
  }, 60_000);

  afterAll(() => gw?.stop());

  it('aws-cli v1 and v2 fail every upload from a file, however small, with 417', async () => {
    for (const cli of ['v1', 'v2'] as const) {
      const run = await awsCli(cli, gw.endpoint, KEY, ['s3', 'cp', join(dir, 'small.txt'), `s3://data/expect/${cli}.txt`]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/\(417\) when calling the PutObject operation.*Expectation Failed/);
    }
  });

  it('boto3 (both generations) fails every put_object with 417, from a file or from bytes', async () => {
    const attempt = (python: 'boto3-new' | 'boto3-debian'): Promise<unknown> =>
      boto3(python, gw.endpoint, KEY, `
with open(${JSON.stringify(join(dir, 'small.txt'))}, 'rb') as f:
    from_file = error_code(lambda: s3.put_object(Bucket='data', Key='expect/py-file.txt', Body=f))
result = [from_file, error_code(lambda: s3.put_object(Bucket='data', Key='expect/py-bytes.txt', Body=b'bytes'))]`);
    expect({ current: await attempt('boto3-new'), debian: await attempt('boto3-debian') }).toEqual({ current: ['417', '417'], debian: ['417', '417'] });
  });

  it('the JS SDK fails from 2 MiB (where it starts sending Expect) with 417, and passes with expectContinueHeader: false', async () => {
    const body = big.subarray(0, 3 * MiB);
    const client = jsClient(gw.endpoint, KEY);
    const quiet = new S3Client({ endpoint: gw.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: KEY, maxAttempts: 1, expectContinueHeader: false });
    try {
      await client.send(new PutObjectCommand({ Bucket: 'data', Key: 'expect/js-1mib.bin', Body: body.subarray(0, MiB) }));
      await expect(client.send(new PutObjectCommand({ Bucket: 'data', Key: 'expect/js-3mib.bin', Body: body }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 417 } });
      await quiet.send(new PutObjectCommand({ Bucket: 'data', Key: 'expect/js-3mib.bin', Body: body }));
      expect(sha(await stored('expect/js-3mib.bin'))).toBe(sha(body));
    } finally {
      client.destroy();
      quiet.destroy();
    }
  });
});
