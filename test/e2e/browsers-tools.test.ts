import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AWS_CLIS, PYTHONS, requireGeneration, type Keys } from '../support/clients';
import { RUNTIMES, RUNTIME_LIMITS, startGateway, type RunningGateway } from '../support/gateway';
import { DOMAIN, UPLOADER, browsersConfig, presignedPost, virtualHostedClient } from './browsers-fixtures';
import { ADMIN, putDirect, readText, startBackends, type Backends } from './fixtures';
import { exists } from './write-fixtures';

/**
 * Data tools with their defaults against a gateway with `virtual_host_domains = ["gw.localhost"]`: GDAL's
 * /vsis3/ (virtual-hosted unless told otherwise), the JS SDK v3 without forcePathStyle and boto3 with
 * `addressing_style = "virtual"` all reach `web.gw.localhost` on 127.0.0.1 (curl, inside GDAL, resolves
 * `*.localhost` itself; Node and Python are given a resolver that does). And presigned links made with
 * clients' defaults (aws-cli v1 `s3 presign`, boto3 `generate_presigned_url`, s3cmd `signurl`: SigV2)
 * open with curl, while tampered, expired and out-of-scope ones do not; boto3's default (SigV2) presigned
 * POST stores a file posted with curl. And hostile forms and preflights.
 * On every runtime; virtual-hosted addressing on those whose host is not fixed (not a Function URL).
 */
let backends: Backends;
let work: string;

beforeAll(async () => {
  backends = await startBackends();
  work = mkdtempSync(join(tmpdir(), 'browsers-tools-'));
  await run('gdal_create', ['-of', 'GTiff', '-outsize', '16', '16', '-bands', '1', '-burn', '7', '-a_srs', 'EPSG:4326', '-a_ullr', '0', '1', '1', '0', join(work, 'tiny.tif')], {}, 'apt-get install gdal-bin');
  const points = { type: 'FeatureCollection', features: [0, 1].map((i) => ({ type: 'Feature', properties: { id: i }, geometry: { type: 'Point', coordinates: [i, i] } })) };
  await Promise.all([
    putDirect(backends.direct.rgw, 'data', 'browsers/public-data/tiny.tif', readFileSync(join(work, 'tiny.tif')), 'image/tiff'),
    putDirect(backends.direct.rgw, 'data', 'browsers/public-data/points.geojson', JSON.stringify(points), 'application/geo+json'),
    putDirect(backends.direct.rgw, 'data', 'browsers/uploads/link.txt', 'opened from a link'),
    putDirect(backends.direct.rgw, 'data', 'browsers/secret/link.txt', 'not for the uploader'),
  ]);
}, 120_000);

afterAll(async () => {
  await backends?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a tool; a missing one fails the test naming the package that brings it. */
function run(file: string, args: readonly string[], env: Record<string, string>, install: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: number | string }) | null;
      if (e?.code === 'ENOENT') reject(new Error(`${file} is not installed: ${install}`));
      else resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout, stderr });
    });
  });
}

/** GET or PUT with curl, the way a user opens a link: status and body. */
async function curl(url: string, method = 'GET'): Promise<{ status: number; body: string }> {
  const out = await run('curl', ['-sS', '-X', method, '-o', '-', '-w', '\n%{http_code}', ...(method === 'PUT' ? ['--data-binary', 'x', '-H', 'content-type:'] : []), url], {}, 'apt-get install curl');
  const cut = out.stdout.lastIndexOf('\n');
  return { status: Number(out.stdout.slice(cut + 1)), body: out.stdout.slice(0, cut) };
}

const codeIn = (body: string): string | undefined => /<Code>([^<]*)<\/Code>/.exec(body)?.[1];

describe.each(RUNTIMES)('%s runtime', (runtime) => {
  let gw: RunningGateway;
  let port: string;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: browsersConfig(backends, 'http://127.0.0.1:1') });
    port = new URL(gw.endpoint).port;
  }, 60_000);

  afterAll(() => gw?.stop());

  // A Function URL's host is fixed (RUNTIME_LIMITS.fixedHost): no `{bucket}.{domain}` name reaches it.
  if (!RUNTIME_LIMITS[runtime].fixedHost) describe('data tools with virtual-hosted addressing left at their defaults', () => {
    const gdalEnv = (): Record<string, string> => ({
      AWS_S3_ENDPOINT: `${DOMAIN}:${port}`,
      AWS_HTTPS: 'NO',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: UPLOADER.accessKeyId,
      AWS_SECRET_ACCESS_KEY: UPLOADER.secretAccessKey,
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
      CPL_DEBUG: 'ON',
    });

    it('gdalinfo reads a GeoTIFF from /vsis3/, asking web.gw.localhost', async () => {
      const out = await run('gdalinfo', ['/vsis3/web/public-data/tiny.tif'], gdalEnv(), 'apt-get install gdal-bin');
      expect(out.stdout).toContain('Size is 16, 16');
      expect(out.stderr).toContain(`http://web.${DOMAIN}:${port}/public-data/tiny.tif`);
    });

    it('ogrinfo reads a GeoJSON layer from /vsis3/', async () => {
      const out = await run('ogrinfo', ['-ro', '-al', '-so', '/vsis3/web/public-data/points.geojson'], gdalEnv(), 'apt-get install gdal-bin');
      expect(out.stdout).toContain('Feature Count: 2');
    });

    it('gdal_translate reads from /vsis3/ and writes a COG back to it', async () => {
      // GDAL 3.6 writes a GeoTIFF to /vsis3/ through a local temporary file (a setting of its own, not of addressing).
      const env = { ...gdalEnv(), CPL_VSIL_USE_TEMP_FILE_FOR_RANDOM_WRITE: 'YES' };
      const out = await run('gdal_translate', ['-of', 'COG', '/vsis3/web/public-data/tiny.tif', `/vsis3/web/uploads/${runtime}/translated.tif`], env, 'apt-get install gdal-bin');
      expect(out.stderr.split('\n').filter((l) => /ERROR/.test(l))).toEqual([]);
      expect(out.code).toBe(0);
      const info = await run('gdalinfo', [`/vsis3/web/uploads/${runtime}/translated.tif`], gdalEnv(), 'apt-get install gdal-bin');
      expect(info.stdout).toContain('LAYOUT=COG');
    });

    it('the JS SDK v3 without forcePathStyle writes, reads, heads and lists on web.gw.localhost', async () => {
      const client: S3Client = virtualHostedClient(Number(port), UPLOADER);
      try {
        await client.send(new PutObjectCommand({ Bucket: 'web', Key: 'uploads/sdk.txt', Body: 'virtual-hosted SDK' }));
        const got = await client.send(new GetObjectCommand({ Bucket: 'web', Key: 'uploads/sdk.txt' }));
        expect(await got.Body?.transformToString()).toBe('virtual-hosted SDK');
        expect((await client.send(new HeadObjectCommand({ Bucket: 'web', Key: 'uploads/sdk.txt' }))).ContentLength).toBe(18);
        const listed = await client.send(new ListObjectsV2Command({ Bucket: 'web', Prefix: 'uploads/' }));
        expect(listed.Contents?.map((c) => c.Key)).toContain('uploads/sdk.txt');
      } finally {
        client.destroy();
      }
    });

    it('boto3 with addressing_style "virtual" writes and reads on web.gw.localhost', async () => {
      const program = `
import json, socket, boto3
from botocore.config import Config
real = socket.getaddrinfo
def loopback(host, *args, **kwargs):
    return real('127.0.0.1' if host.endswith('.localhost') else host, *args, **kwargs)
socket.getaddrinfo = loopback
seen = []
s3 = boto3.client('s3', endpoint_url='http://${DOMAIN}:${port}', region_name='us-east-1',
                  aws_access_key_id='${UPLOADER.accessKeyId}', aws_secret_access_key='${UPLOADER.secretAccessKey}',
                  config=Config(s3={'addressing_style': 'virtual'}))
s3.meta.events.register('before-send', lambda request, **kw: seen.append(request.url))
s3.put_object(Bucket='web', Key='uploads/boto3.txt', Body=b'virtual-hosted boto3')
body = s3.get_object(Bucket='web', Key='uploads/boto3.txt')['Body'].read().decode()
print(json.dumps([body, seen[0]]))`;
      await requireGeneration('boto3-new');
      const out = await run(PYTHONS['boto3-new'], ['-c', program], {}, 'pip install boto3');
      expect(out.stderr).toBe('');
      expect(JSON.parse(out.stdout)).toEqual(['virtual-hosted boto3', `http://web.${DOMAIN}:${port}/uploads/boto3.txt`]);
    });

    it('GIVEN web.gw.localhost WHEN the object ".health" is PUT and read back THEN it round-trips; /.health on the bare domain stays the probe', async () => {
      const client: S3Client = virtualHostedClient(Number(port), ADMIN);
      try {
        await client.send(new PutObjectCommand({ Bucket: 'web', Key: '.health', Body: 'an object, not a probe' }));
        const got = await client.send(new GetObjectCommand({ Bucket: 'web', Key: '.health' }));
        expect(await got.Body?.transformToString()).toBe('an object, not a probe');
      } finally {
        client.destroy();
      }
      expect(await readText(backends.direct.rgw, 'data', 'browsers/.health')).toBe('an object, not a probe');
      expect(await curl(`http://web.${DOMAIN}:${port}/.health`)).toMatchObject({ status: 403 });
      expect(await curl(`http://${DOMAIN}:${port}/.health`)).toEqual({ status: 200, body: '{"status":"ok"}' });
    });

    it('a Host naming a bucket that does not exist is 404 NoSuchBucket', async () => {
      const res = await curl(`http://nothere.${DOMAIN}:${port}/key`);
      expect(res.status).toBe(404);
      expect(codeIn(res.body)).toBe('NoSuchBucket');
    });
  });

  describe('presigned links made with clients\' defaults (SigV2) open with curl', () => {
    const cliEnv = (keys: Keys): Record<string, string> => ({
      AWS_ACCESS_KEY_ID: keys.accessKeyId,
      AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
      AWS_DEFAULT_REGION: 'us-east-1',
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    });
    const awsPresign = async (key: string, extra: string[] = []): Promise<string> => {
      await requireGeneration('v1');
      const out = await run(AWS_CLIS.v1, ['--endpoint-url', gw.endpoint, 's3', 'presign', `s3://web/${key}`, ...extra], cliEnv(UPLOADER), 'pip install awscli');
      expect(out.stderr).toBe('');
      return out.stdout.trim();
    };
    const botoPresign = async (python: keyof typeof PYTHONS, method: string, key: string): Promise<string> => {
      const program = `
import boto3
s3 = boto3.client('s3', endpoint_url='${gw.endpoint}', region_name='us-east-1',
                  aws_access_key_id='${UPLOADER.accessKeyId}', aws_secret_access_key='${UPLOADER.secretAccessKey}')
print(s3.generate_presigned_url('${method}', Params={'Bucket': 'web', 'Key': '${key}'}))`;
      await requireGeneration(python);
      return (await run(PYTHONS[python], ['-c', program], {}, 'apt-get install python3-boto3')).stdout.trim();
    };
    const s3cmdSign = async (key: string, expiry: string): Promise<string> => {
      const config = join(work, 's3cmd.cfg');
      writeFileSync(
        config,
        `[default]\naccess_key = ${UPLOADER.accessKeyId}\nsecret_key = ${UPLOADER.secretAccessKey}\nhost_base = 127.0.0.1:${port}\nhost_bucket = 127.0.0.1:${port}\nuse_https = False\n`,
      );
      const out = await run('s3cmd', ['-c', config, 'signurl', `s3://web/${key}`, expiry], {}, 'apt-get install s3cmd');
      return out.stdout.trim();
    };

    it.each([
      ['aws-cli v1 s3 presign', () => awsPresign('uploads/link.txt')],
      ['boto3 generate_presigned_url (Debian boto3)', () => botoPresign('boto3-debian', 'get_object', 'uploads/link.txt')],
      ['boto3 generate_presigned_url (current boto3)', () => botoPresign('boto3-new', 'get_object', 'uploads/link.txt')],
      ['s3cmd signurl', () => s3cmdSign('uploads/link.txt', '+600')],
    ])('%s', async (_, make) => {
      const link = await make();
      expect(link).toMatch(/[?&]AWSAccessKeyId=/);
      expect(await curl(link)).toEqual({ status: 200, body: 'opened from a link' });
      expect((await run('curl', ['-sS', '-I', '-o', '/dev/null', '-w', '%{http_code}', link], {}, 'apt-get install curl')).stdout).toBe('403');
    });

    it('a tampered link (another key) is SignatureDoesNotMatch', async () => {
      const link = (await awsPresign('uploads/link.txt')).replace('uploads/link.txt', 'uploads/other.txt');
      const res = await curl(link);
      expect([res.status, codeIn(res.body)]).toEqual([403, 'SignatureDoesNotMatch']);
    });

    it('an expired link is AccessDenied', async () => {
      const res = await curl(await s3cmdSign('uploads/link.txt', String(Math.floor(Date.now() / 1000) - 60)));
      expect([res.status, codeIn(res.body)]).toEqual([403, 'AccessDenied']);
      expect(res.body).toContain('Request has expired');
    });

    it('a link to a key outside the signer\'s scopes is AccessDenied', async () => {
      const res = await curl(await awsPresign('secret/link.txt'));
      expect([res.status, codeIn(res.body)]).toEqual([403, 'AccessDenied']);
    });

    it.each(['boto3-debian', 'boto3-new'] as const)('a form from generate_presigned_post (%s, SigV2 by default) posted with curl -F is stored', async (python) => {
      const program = `
import boto3, json
s3 = boto3.client('s3', endpoint_url='${gw.endpoint}', region_name='us-east-1',
                  aws_access_key_id='${UPLOADER.accessKeyId}', aws_secret_access_key='${UPLOADER.secretAccessKey}')
print(json.dumps(s3.generate_presigned_post('web', 'uploads/sigv2-form-${python}-\${filename}')))`;
      await requireGeneration(python);
      const { url, fields } = JSON.parse((await run(PYTHONS[python], ['-c', program], {}, 'apt-get install python3-boto3')).stdout) as { url: string; fields: Record<string, string> };
      expect(Object.keys(fields)).toContain('AWSAccessKeyId');
      const file = join(work, 'form.txt');
      writeFileSync(file, 'posted with a SigV2 policy');
      const form = [...Object.entries(fields).flatMap(([name, value]) => ['--form-string', `${name}=${value}`]), '-F', `file=@${file}`];
      const out = await run('curl', ['-sS', '-o', '-', '-w', '\n%{http_code}', ...form, url], {}, 'apt-get install curl');
      expect(out.stdout.slice(out.stdout.lastIndexOf('\n') + 1)).toBe('204');
      expect(await readText(backends.direct.rgw, 'data', `browsers/uploads/sigv2-form-${python}-form.txt`)).toBe('posted with a SigV2 policy');
    });

    it('a SigV2 link for a write is refused and stores nothing', async () => {
      const link = await botoPresign('boto3-debian', 'put_object', 'uploads/sigv2-put.txt');
      expect(link).toMatch(/[?&]AWSAccessKeyId=/);
      const res = await curl(link, 'PUT');
      expect([res.status, codeIn(res.body)]).toEqual([403, 'AccessDenied']);
      expect(await exists(backends.direct.rgw, 'data', 'browsers/uploads/sigv2-put.txt')).toBe(false);
      expect(await readText(backends.direct.rgw, 'data', 'browsers/uploads/link.txt')).toBe('opened from a link');
    });
  });

  describe('hostile forms and preflights', () => {
    const BOUNDARY = 'hostile-boundary-3f9a';
    type Part = readonly [name: string, value: string | Buffer, filename?: string];

    /** A multipart body exactly as given: parts in this order, the file wherever it is put. */
    const body = (parts: readonly Part[]): Buffer =>
      Buffer.concat([
        ...parts.flatMap(([name, value, filename]) => [
          Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n`),
          Buffer.from(value),
          Buffer.from('\r\n'),
        ]),
        Buffer.from(`--${BOUNDARY}--\r\n`),
      ]);

    const postTo = async (endpoint: string, bucket: string, parts: readonly Part[]): Promise<{ status: number; code?: string; text: string }> => {
      const res = await fetch(`${endpoint}/${bucket}`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: body(parts) });
      const text = await res.text();
      return { status: res.status, code: codeIn(text), text };
    };
    const post = (bucket: string, parts: readonly Part[]): ReturnType<typeof postTo> => postTo(gw.endpoint, bucket, parts);

    const signedFields = async (key: string, options: { bucket?: string; maxBytes?: number } = {}): Promise<Part[]> => {
      const { fields } = await presignedPost(gw.endpoint, UPLOADER, options.bucket ?? 'web', key, { maxBytes: options.maxBytes });
      return Object.entries(fields).map(([name, value]) => [name, value] as const);
    };

    it('a form upload to a second S3 backend (s3rver) is stored, and answers 204 with the ETag', async () => {
      const res = await fetch(`${gw.endpoint}/blobs`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        body: body([...(await signedFields('uploads/form.txt', { bucket: 'blobs' })), ['file', 'to s3rver', 'form.txt']]),
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('etag')).toMatch(/^"/);
      expect(await readText(backends.direct.s3rver, 'private', 'uploads/form.txt')).toBe('to s3rver');
    });

    it('a field after a 4 MiB file aborts the backend write mid-stream: nothing is stored', async () => {
      const parts: Part[] = [...(await signedFields('uploads/late-field.bin', { maxBytes: 8 << 20 })), ['file', Buffer.alloc(4 << 20, 1), 'big.bin'], ['x-ignore-late', 'after the file']];
      const res = await post('web', parts);
      expect([res.status, res.code]).toEqual([400, 'MalformedPOSTRequest']);
      expect(await exists(backends.direct.rgw, 'data', 'browsers/uploads/late-field.bin')).toBe(false);
    });

    it.each([
      ['a forged policy (another policy, the same signature)', async (): Promise<Part[]> => {
        const parts = await signedFields('uploads/forged.txt');
        const forged = Buffer.from(JSON.stringify({ expiration: '2099-01-01T00:00:00Z', conditions: [['starts-with', '$key', '']] })).toString('base64');
        return parts.map(([n, v]) => (n === 'Policy' ? [n, forged] : [n, v]));
      }, 'uploads/forged.txt', 403, 'SignatureDoesNotMatch'],
      ['a policy reused for another key', async (): Promise<Part[]> => (await signedFields('uploads/one.txt')).map(([n, v]) => (n === 'key' ? [n, 'uploads/two.txt'] : [n, v])), 'uploads/two.txt', 403, 'AccessDenied'],
      ['a starts-with escape (uploads/../x)', async (): Promise<Part[]> => signedFields('uploads/../escaped.txt'), 'escaped.txt', 400, 'InvalidRequest'],
      ['an oversized file', async (): Promise<Part[]> => signedFields('uploads/oversized.txt', { maxBytes: 4 }), 'uploads/oversized.txt', 400, 'EntityTooLarge'],
    ])('%s is refused and stores nothing', async (_, fields, key, status, code) => {
      const res = await post('web', [...(await fields()), ['file', 'hostile content', 'f.txt']]);
      expect([res.status, res.code]).toEqual([status, code]);
      expect(await exists(backends.direct.rgw, 'data', `browsers/${key}`)).toBe(false);
    });

    /**
     * The same refusal asked of the gateway (UPLOADER's form for `web`, or posted to `blobs`) and of RGW directly
     * (RGW's own keys, its bucket `data`, or posted to `versioned`): both refuse with 403, never 400, and store
     * nothing. RGW says AccessDenied for all five; the gateway gives S3's codes and messages.
     */
    const refusals: [string, { expires?: number; alter?: (parts: Part[], keyId: string) => Part[]; elsewhere?: boolean }, string, string][] = [
      ['an expired policy', { expires: -1 }, 'AccessDenied', 'Invalid according to Policy: Policy expired.'],
      ['a key its policy does not allow', { alter: (parts) => parts.map(([n, v]) => (n === 'key' ? [n, `${v}.other`] : [n, v])) }, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed: ["eq", "$key", '],
      ['a signature that does not match', { alter: (parts) => parts.map(([n, v]) => (n === 'X-Amz-Signature' ? [n, '0'.repeat(64)] : [n, v])) }, 'SignatureDoesNotMatch', 'The request signature we calculated does not match'],
      ['an access key nobody has', { alter: (parts, keyId) => parts.map(([n, v]) => (n === 'X-Amz-Credential' ? [n, String(v).replace(keyId, 'NOSUCHKEY00000000000')] : [n, v])) }, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.'],
      ['a policy for another bucket', { elsewhere: true }, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed: ["eq", "$bucket", '],
    ];
    it.each(refusals)('GIVEN %s WHEN posted to the gateway and to RGW THEN both answer 403, and the gateway S3\'s code and message', async (what, how, code, message) => {
      const name = `uploads/refused-${what.replace(/\W+/g, '-')}.txt`;
      const sides = [
        { endpoint: gw.endpoint, keys: UPLOADER, bucket: 'web', elsewhere: 'blobs', key: name },
        { endpoint: backends.rgw.endpoint, keys: backends.rgw, bucket: 'data', elsewhere: 'versioned', key: `browsers/${name}-rgw` },
      ];
      const answers = [];
      for (const side of sides) {
        const { fields } = await presignedPost(side.endpoint, side.keys, side.bucket, side.key, { expires: how.expires });
        const parts: Part[] = Object.entries(fields).map(([n, v]) => [n, v] as const);
        answers.push(await postTo(side.endpoint, how.elsewhere ? side.elsewhere : side.bucket, [...(how.alter?.(parts, side.keys.accessKeyId) ?? parts), ['file', 'refused', 'f.txt']]));
      }
      const [gateway, rgw] = answers;
      expect({ gateway: gateway.status, rgw: rgw.status }).toEqual({ gateway: 403, rgw: 403 });
      expect(gateway.code).toBe(code);
      expect(gateway.text.replaceAll('&quot;', '"')).toContain(`<Message>${message}`);
      expect(await exists(backends.direct.rgw, 'data', `browsers/${name}`)).toBe(false);
      expect(await exists(backends.direct.rgw, 'data', `browsers/${name}-rgw`)).toBe(false);
      expect(await exists(backends.direct.s3rver, 'private', name)).toBe(false);
    });

    it.each([
      ['a method no rule allows', { 'access-control-request-method': 'DELETE' }],
      ['a header no rule allows', { 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-custom' }],
    ])('a preflight for %s is 403 AccessForbidden, before any authentication', async (_, headers) => {
      const res = await fetch(`${gw.endpoint}/web/uploads/a.txt`, { method: 'OPTIONS', headers: { origin: 'http://127.0.0.1:1', ...headers } });
      expect(res.status).toBe(403);
      expect(codeIn(await res.text())).toBe('AccessForbidden');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});
