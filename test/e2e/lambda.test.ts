import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, type S3ServiceException } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { startS3rver, type S3rver } from '../../scripts/s3rver';
import { awsCli, boto3, jsClient, type Keys } from '../support/clients';
import { bucketToml, credentialToml, everywhere } from '../support/config-toml';
import { generateKeys } from '../../functions/key-generator';
import { startFakeSsm, type FakeSsm } from '../support/fake-ssm';
import { RUNTIME_LIMITS, runGatewayExpectingFailure, startGateway, type RunningGateway } from '../support/gateway';

/**
 * What is specific to the Lambda runtime, through the local Function URL with real clients: heads that carry
 * no body (HEAD, 304, HEAD errors) keep status and headers, forwarded bodies stream with flat memory, and the
 * platform's 6 MB request limit is the front's 413 before the function runs. The front also does what users
 * report of real Function URLs (no response keeps its Content-Length; gzip bodies are decoded), so the
 * specifications state what a user sees there. s3rver is the backend.
 */

const KEY: Keys = { accessKeyId: 'LAMBDAE2EKEY00000000', secretAccessKey: 'lambda/e2e/secret/key/000000000000000000' };
const HELLO = 'hello world';
const BIG_BYTES = 150 * 1024 * 1024;

function config(backend: S3rver): string {
  const bucket = (name: string, anonymous: boolean): string =>
    bucketToml(
      { name, backend_type: 's3', anonymous_access: anonymous },
      { endpoint: backend.endpoint, bucket_name: name, access_key_id: 'S3RVER', secret_access_key: { env: 'BACKEND_SECRET' } },
    );
  return [
    bucket('public', true),
    bucket('private', false),
    credentialToml(KEY, { principal_name: 'e2e', secret_access_key: { env: 'KEY_SECRET' } }, [everywhere(['get_object', 'head_object', 'list_bucket', 'put_object'])]),
  ].join('\n');
}

/** A deterministic 150 MiB body, made in 1 MiB slices so its hash is known without keeping a second copy. */
function bigBody(): { body: Buffer; sha256: string } {
  const body = Buffer.alloc(BIG_BYTES);
  for (let i = 0; i < BIG_BYTES; i += 1024 * 1024) body.fill(i / (1024 * 1024), i, i + 1024 * 1024);
  return { body, sha256: createHash('sha256').update(body).digest('hex') };
}

let backend: S3rver;
let direct: S3Client;
let gateway: RunningGateway;
let anonymous: S3Client;
let keyed: S3Client;
let bigSha256: string;
let etag: string;

beforeAll(async () => {
  backend = await startS3rver({ buckets: ['public', 'private'] });
  direct = new S3Client({ endpoint: backend.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  const hello = await direct.send(new PutObjectCommand({ Bucket: 'public', Key: 'hello.txt', Body: HELLO, ContentType: 'text/plain', Metadata: { color: 'blue' } }));
  etag = hello.ETag ?? '';
  await direct.send(new PutObjectCommand({ Bucket: 'private', Key: 'secret.txt', Body: 'for keyed eyes', ContentType: 'text/plain' }));
  const big = bigBody();
  bigSha256 = big.sha256;
  // The object goes straight to the backend: only the download passes through the Function URL.
  await direct.send(new PutObjectCommand({ Bucket: 'public', Key: 'big.bin', Body: big.body, ContentType: 'application/octet-stream' }));
  gateway = await startGateway('lambda', { config: config(backend), env: { BACKEND_SECRET: 'S3RVER', KEY_SECRET: KEY.secretAccessKey } });
  anonymous = jsClient(gateway.endpoint);
  keyed = jsClient(gateway.endpoint, KEY);
}, 180_000);

afterAll(async () => {
  anonymous?.destroy();
  keyed?.destroy();
  direct?.destroy();
  await gateway?.stop();
  await backend?.stop();
});

async function text(body: unknown): Promise<string> {
  return (body as { transformToString(): Promise<string> }).transformToString();
}

async function failure(promise: Promise<unknown>): Promise<S3ServiceException> {
  try {
    await promise;
  } catch (err) {
    return err as S3ServiceException;
  }
  throw new Error('expected the request to fail');
}

/** `aws s3api get-object` (one GetObject, no HeadObject first): the object's text, or the CLI's error output. */
async function cliGetObject(keys: Keys | undefined, bucket: string, key: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'lambda-e2e-'));
  try {
    const run = await awsCli('v2', gateway.endpoint, keys, ['s3api', 'get-object', '--bucket', bucket, '--key', key, join(dir, 'out')]);
    return run.code === 0 ? readFileSync(join(dir, 'out'), 'utf8') : run.stderr;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A raw request, so status and headers are seen exactly as the front sent them. */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${gateway.endpoint}${path}`, { method, headers }, (res) => {
      let data = '';
      res.on('data', (c: Buffer) => (data += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('Lambda runtime through the local Function URL', () => {
  test('GIVEN a Range GET WHEN sent by the JS SDK THEN 206 with the slice and its Content-Range', async () => {
    const out = await anonymous.send(new GetObjectCommand({ Bucket: 'public', Key: 'hello.txt', Range: 'bytes=6-10' }));
    expect(out.$metadata.httpStatusCode).toBe(206);
    expect(out.ContentRange).toBe('bytes 6-10/11');
    expect(await text(out.Body)).toBe('world');
  });

  test('GIVEN a HEAD WHEN sent by the JS SDK and aws-cli THEN type, ETag and metadata are intact but no size is reported: the length arrives renamed', async () => {
    const res = await raw('HEAD', '/public/hello.txt');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['x-amzn-remapped-content-length']).toBe(String(HELLO.length));
    const out = await anonymous.send(new HeadObjectCommand({ Bucket: 'public', Key: 'hello.txt' }));
    expect(out.$metadata.httpStatusCode).toBe(200);
    expect(out.ContentLength).toBeUndefined();
    expect(out.ContentType).toBe('text/plain');
    expect(out.ETag).toBe(etag);
    expect(out.Metadata).toEqual({ color: 'blue' });
    expect(out.LastModified).toBeInstanceOf(Date);
    const cli = await awsCli('v2', gateway.endpoint, undefined, ['s3api', 'head-object', '--bucket', 'public', '--key', 'hello.txt']);
    expect(cli.code).toBe(0);
    const head = JSON.parse(cli.stdout) as Record<string, unknown>;
    expect(head).toMatchObject({ ContentType: 'text/plain', ETag: etag, Metadata: { color: 'blue' } });
    expect(head.ContentLength).toBeUndefined();
  });

  test('GIVEN a managed download (aws s3 cp, boto3 download_file) WHEN run THEN it fails on the size HeadObject lacks; a plain GetObject still works', async () => {
    for (const cli of ['v1', 'v2'] as const) {
      const run = await awsCli(cli, gateway.endpoint, undefined, ['s3', 'cp', 's3://public/hello.txt', '-']);
      expect(run).toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining("s3://public/hello.txt to - 'ContentLength'") });
    }
    const py = await boto3('boto3-new', gateway.endpoint, undefined, `
import tempfile
try:
    s3.download_file('public', 'hello.txt', tempfile.mktemp())
    result = 'downloaded'
except KeyError as e:
    result = 'KeyError: ' + str(e)
o = s3.get_object(Bucket='public', Key='hello.txt')
result = [result, o['Body'].read().decode(), o.get('ContentLength')]`);
    expect(py).toEqual(["KeyError: 'ContentLength'", HELLO, null]);
    expect(await cliGetObject(undefined, 'public', 'hello.txt')).toBe(HELLO);
  });

  test('GIVEN an object stored gzip-encoded WHEN read THEN the stored bytes arrive unchanged (ETag matching) without Content-Encoding', async () => {
    const stored = gzipSync('compressed on the way in\n'.repeat(100));
    const put = await direct.send(new PutObjectCommand({ Bucket: 'public', Key: 'page.html.gz', Body: stored, ContentType: 'text/html', ContentEncoding: 'gzip' }));
    const out = await anonymous.send(new GetObjectCommand({ Bucket: 'public', Key: 'page.html.gz' }));
    const bytes = Buffer.from(await (out.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
    expect(bytes.equals(stored)).toBe(true);
    expect(out.ETag).toBe(put.ETag);
    expect(`"${createHash('md5').update(bytes).digest('hex')}"`).toBe(put.ETag);
    expect(out.ContentEncoding).toBeUndefined();
    expect(out.ContentType).toBe('text/html');
  });

  test('GIVEN If-None-Match with the current ETag WHEN fetched THEN 304 arrives with its headers and no body', async () => {
    const res = await raw('GET', '/public/hello.txt', { 'if-none-match': etag });
    expect(res.status).toBe(304);
    expect(res.headers['x-amz-request-id']).toBe(res.headers['x-amzn-requestid']);
    expect(res.body).toBe('');
    const err = await failure(anonymous.send(new GetObjectCommand({ Bucket: 'public', Key: 'hello.txt', IfNoneMatch: etag })));
    expect(err.$metadata.httpStatusCode).toBe(304);
  });

  test('GIVEN a missing key WHEN GET and HEAD THEN 404 with the request id header, XML for GET and no body for HEAD', async () => {
    const get = await raw('GET', '/public/missing.txt');
    expect(get.status).toBe(404);
    expect(get.headers['content-type']).toBe('application/xml');
    expect(get.body).toContain('<Code>NoSuchKey</Code>');
    const head = await raw('HEAD', '/public/missing.txt');
    expect(head.status).toBe(404);
    expect(head.headers['x-amz-request-id']).toBe(head.headers['x-amzn-requestid']);
    expect(head.body).toBe('');
    const err = await failure(anonymous.send(new HeadObjectCommand({ Bucket: 'public', Key: 'missing.txt' })));
    expect(err.$metadata.httpStatusCode).toBe(404);
    expect(err.name).toBe('NotFound');
  });

  test('GIVEN an error built by the gateway WHEN anonymous reads a private bucket THEN 403 AccessDenied with status, headers and body', async () => {
    const res = await raw('GET', '/private/secret.txt');
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toBe('application/xml');
    // One request id: the invocation's, in both headers (the Function URL's x-amzn-RequestId too) and the body.
    expect(res.headers['x-amz-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-amz-request-id']).toBe(res.headers['x-amzn-requestid']);
    expect(res.body).toContain(`<RequestId>${String(res.headers['x-amz-request-id'])}</RequestId>`);
    expect(res.body).toContain('<Code>AccessDenied</Code>');
    const err = await failure(anonymous.send(new GetObjectCommand({ Bucket: 'private', Key: 'secret.txt' })));
    expect(err.name).toBe('AccessDenied');
  });

  test('GIVEN the access key WHEN the JS SDK and aws-cli (s3api get-object) read the private bucket THEN the object comes back', async () => {
    const out = await keyed.send(new GetObjectCommand({ Bucket: 'private', Key: 'secret.txt' }));
    expect(await text(out.Body)).toBe('for keyed eyes');
    // GetObject, not `s3 cp`, which needs a size from HeadObject.
    expect(await cliGetObject(KEY, 'private', 'secret.txt')).toBe('for keyed eyes');
  });

  test('GIVEN no credentials WHEN aws-cli reads the public bucket THEN anonymous access works', async () => {
    expect(await cliGetObject(undefined, 'public', 'hello.txt')).toBe(HELLO);
  });

  // aws-cli v1 presigns with SigV2 unless configured otherwise, which the gateway does not accept on any runtime.
  test('GIVEN a URL presigned by aws-cli WHEN fetched without credentials THEN the private object comes back', async () => {
    const presign = await awsCli('v2', gateway.endpoint, KEY, ['s3', 'presign', 's3://private/secret.txt', '--expires-in', '300']);
    expect(presign.code).toBe(0);
    const url = presign.stdout.trim();
    expect(url.startsWith(gateway.endpoint)).toBe(true);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('for keyed eyes');
    const tampered = await fetch(url.replace('secret.txt', 'secret.txt2'));
    expect(tampered.status).toBe(403);
  });

  test('GIVEN a 150 MiB object WHEN downloaded through the function THEN every byte arrives and the gateway RSS grows by less than 64 MB', async () => {
    // Warm the path first so the baseline includes loaded modules and the keep-alive agents.
    await text((await anonymous.send(new GetObjectCommand({ Bucket: 'public', Key: 'hello.txt' }))).Body);
    const baseline = gateway.rss();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, gateway.rss())), 50);
    try {
      const out = await anonymous.send(new GetObjectCommand({ Bucket: 'public', Key: 'big.bin' }));
      const hash = createHash('sha256');
      let received = 0;
      for await (const chunk of out.Body as Readable) {
        hash.update(chunk as Buffer);
        received += (chunk as Buffer).length;
      }
      expect(received).toBe(BIG_BYTES);
      expect(hash.digest('hex')).toBe(bigSha256);
    } finally {
      clearInterval(sampler);
    }
    expect(peak - baseline).toBeLessThan(64 * 1024 * 1024);
  }, 180_000);

  test('GIVEN a 7 MB PUT WHEN sent by the JS SDK, aws-cli or a plain client THEN the front refuses it with 413 before the function runs', async () => {
    const body = Buffer.alloc(7 * 1024 * 1024, 1);
    const sdk = await failure(keyed.send(new PutObjectCommand({ Bucket: 'private', Key: 'too-big.bin', Body: body })));
    expect(sdk.$metadata.httpStatusCode).toBe(413);
    const dir = mkdtempSync(join(tmpdir(), 'lambda-e2e-'));
    try {
      writeFileSync(join(dir, 'too-big.bin'), body);
      const cli = await awsCli('v2', gateway.endpoint, KEY, ['s3', 'cp', join(dir, 'too-big.bin'), 's3://private/too-big.bin']);
      expect(cli.code).not.toBe(0);
      expect(cli.stderr).toMatch(/413|Request Entity Too Large/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const plain = await raw('PUT', '/private/too-big.bin', { 'content-type': 'application/octet-stream' }, body);
    expect(plain.status).toBe(413);
    expect(JSON.parse(plain.body)).toEqual({ message: 'Request Entity Too Large' });
    // The function never saw any of them: no access-log line names the key.
    expect(gateway.logs()).not.toMatch(/"method":"PUT","path":"\/private\/too-big.bin"/);
  });

  test('GIVEN the largest body that fits the event WHEN the JS SDK and aws-cli PUT it THEN it is stored byte for byte', async () => {
    const size = RUNTIME_LIMITS.lambda.maxRequestBodyBytes ?? 0;
    const body = Buffer.alloc(size);
    for (let i = 0; i < size; i++) body[i] = (i * 31) % 251;
    await keyed.send(new PutObjectCommand({ Bucket: 'private', Key: 'fits.bin', Body: body, ContentType: 'application/octet-stream' }));
    const stored = await direct.send(new GetObjectCommand({ Bucket: 'private', Key: 'fits.bin' }));
    expect(Buffer.from(await (stored.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray()).equals(body)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'lambda-e2e-'));
    try {
      writeFileSync(join(dir, 'fits.bin'), body);
      const cli = await awsCli('v2', gateway.endpoint, KEY, ['s3', 'cp', join(dir, 'fits.bin'), 's3://private/fits-cli.bin']);
      expect(cli.stderr).toBe('');
      expect(cli.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const head = await direct.send(new HeadObjectCommand({ Bucket: 'private', Key: 'fits-cli.bin' }));
    expect(head.ContentLength).toBe(size);
    await expect(gateway.logged(/"lambdaRequestId":"[0-9a-f-]{36}","method":"PUT","path":"\/private\/fits.bin","status":200/)).resolves.toBe(true);
  });
});

describe('Lambda cold start with secrets in SSM', () => {
  const OIDC = '/S3Gateway/Gateway/oidc-provider-key';
  const SESSION = '/S3Gateway/Gateway/session-token-key';
  const ISSUER = '/S3Gateway/Gateway/oidc-provider-issuer';
  let ssm: FakeSsm;

  beforeEach(async () => {
    ssm = await startFakeSsm({
      [OIDC]: { value: generateKeys().oidcProviderKey, type: 'SecureString', version: 1 },
      [SESSION]: { value: Buffer.alloc(32, 9).toString('base64'), type: 'SecureString', version: 1 },
      [ISSUER]: { value: 'https://abcdefgh.lambda-url.eu-west-1.on.aws', type: 'String', version: 1 },
    }, { keys: { AKIDLOCALSSM: 'local' } });
  });
  afterEach(() => ssm.stop());

  /** What the stack gives the function, with the SDK pointed at the loopback SSM. */
  function parameterEnv(): Record<string, string> {
    return {
      BACKEND_SECRET: 'S3RVER',
      KEY_SECRET: KEY.secretAccessKey,
      OIDC_PROVIDER_KEY_PARAMETER: OIDC,
      SESSION_TOKEN_KEY_PARAMETER: SESSION,
      OIDC_PROVIDER_ISSUER_PARAMETER: ISSUER,
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL_SSM: ssm.endpoint,
      AWS_ACCESS_KEY_ID: 'AKIDLOCALSSM',
      AWS_SECRET_ACCESS_KEY: 'local',
    };
  }

  test('GIVEN *_PARAMETER variables WHEN the function starts THEN it reads each parameter once, decrypted, and serves', async () => {
    const started = await startGateway('lambda', { config: config(backend), env: parameterEnv() });
    try {
      const client = jsClient(started.endpoint);
      for (let i = 0; i < 3; i++) await text((await client.send(new GetObjectCommand({ Bucket: 'public', Key: 'hello.txt' }))).Body);
      client.destroy();
      expect(ssm.calls.map((c) => c.input).sort((a, b) => String(a.Name).localeCompare(String(b.Name)))).toEqual([
        { Name: ISSUER, WithDecryption: true },
        { Name: OIDC, WithDecryption: true },
        { Name: SESSION, WithDecryption: true },
      ]);
      // Nothing secret is logged.
      expect(started.logs()).not.toContain('PRIVATE KEY');
      expect(started.logs()).not.toContain(Buffer.alloc(32, 9).toString('base64'));
    } finally {
      await started.stop();
    }
  });

  test('GIVEN a session key parameter that is not 32 bytes WHEN the function starts THEN the configuration is refused, naming the variable only', async () => {
    ssm.parameters.set(SESSION, { value: 'dG9vIHNob3J0', type: 'SecureString', version: 2 });
    const result = await runGatewayExpectingFailure('lambda', { config: config(backend), env: parameterEnv() });
    expect(result.code).toBe(1);
    expect(result.output).toContain('SESSION_TOKEN_KEY: must be the base64 encoding of exactly 32 bytes');
    expect(result.output).not.toContain('dG9vIHNob3J0');
  });
});
