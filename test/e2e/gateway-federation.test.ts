/**
 * Two gateways federated with each other, the token service being a gateway too: gateway A is the OIDC
 * identity provider for its `auth_type = "oidc"` buckets, and gateway B's own STS trusts A's issuer. B is
 * also A's backend, so a request goes client → A → B → s3rver with no backend key stored in A.
 *
 * B fetches discovery and JWKS over https only, so A sits behind an HTTPS front (support/https-front.ts)
 * whose certificate comes from a throwaway CA that B trusts through NODE_EXTRA_CA_CERTS; A's issuer is the
 * front's URL. B's role trusts that issuer, A's default audience (`sts.amazonaws.com`) and subject
 * (`s3-proxy`), and grants `from-a/` in B's `store` bucket. A recording hop between A and B shows how A
 * signs (temporary credentials: an ASIA key and the sealed session token), and B's answers show whom it
 * authorized: its AccessDenied message names the role session. Every runtime pair is run.
 *
 * Both stand in for B's and A's addresses: A reaches B (its STS and its S3) only through the hop, which is
 * B's endpoint domain to a Web Function (WEB_FUNCTION_DOMAIN), and the front forwards to A with A's own Host,
 * as CloudFront must in front of a Web Function.
 */
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { startS3rver, type S3rver } from '../../scripts/s3rver';
import { jsClient, type Keys } from '../support/clients';
import { MULTIPART_ACTIONS, bucketToml, roleToml, s3Options } from '../support/config-toml';
import { RUNTIMES, startGateway, type RunningGateway, type RuntimeName } from '../support/gateway';
import { startHttpsFront, type HttpsFront } from '../support/https-front';
import { generateProviderKey, type ProviderKeyPem } from '../support/provider-key';
import { errorCode, rawRequest } from '../support/raw-request';
import { startRecordingHop, type RecordingHop } from '../support/recording-hop';
import { ADMIN, ADMIN_CREDENTIALS } from './fixtures';

const ROLE = 'arn:aws:iam::000000000000:role/gateway-a';
/** A's default `oidc_subject`. */
const SUBJECT = 's3-proxy';
/** How B names a session of the role: `<role id>/<sub>`. */
const SESSION_PRINCIPAL = `${ROLE}/${SUBJECT}`;
const SESSION_TOKEN_KEY = randomBytes(32).toString('base64');
const S3RVER: Keys = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const MiB = 1024 * 1024;
const sha = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

let s3rver: S3rver;
let direct: S3Client;
let key: ProviderKeyPem;

beforeAll(async () => {
  key = generateProviderKey();
  s3rver = await startS3rver({ buckets: ['store'] });
  direct = jsClient(s3rver.endpoint, S3RVER);
  await direct.send(new PutObjectCommand({ Bucket: 'store', Key: 'from-a/hello.txt', Body: 'hello through two gateways\n' }));
  await direct.send(new PutObjectCommand({ Bucket: 'store', Key: 'elsewhere/secret.txt', Body: 'not for gateway A\n' }));
}, 60_000);

afterAll(async () => {
  direct?.destroy();
  await s3rver?.stop();
});

/** B: the token service and A's backend; a plain s3rver bucket, and a role for A's tokens scoped to `from-a/`. */
function configB(issuer: string): string {
  return [
    bucketToml({ name: 'store', backend_type: 's3' }, s3Options(s3rver.endpoint, 'store', S3RVER)),
    roleToml({ role_id: ROLE, name: 'Gateway A', trusted_oidc_issuers: [issuer], subject_conditions: [SUBJECT], max_session_duration_secs: 3600 }, [
      { bucket: 'store', prefixes: ['from-a/'], actions: ['get_object', 'head_object', 'put_object', 'delete_object', 'list_bucket', ...MULTIPART_ACTIONS] },
    ]),
  ].join('\n');
}

/**
 * A: two oidc buckets on B's `store` (through the recording hop), exchanging at B's STS. `relayed` maps into
 * the role's `from-a/`; `outside` maps onto the whole bucket, so B's scopes decide.
 */
function configA(backend: string, sts: string): string {
  const bucket = (name: string, prefix: string): string => `
[[buckets]]
name = "${name}"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "${backend}"
bucket_name = "store"
region = "us-east-1"
${prefix ? `backend_prefix = "${prefix}"` : ''}
auth_type = "oidc"
oidc_role_arn = "${ROLE}"
oidc_sts_endpoint = "${sts}"
`;
  return `${bucket('relayed', 'from-a/')}${bucket('outside', '')}
${ADMIN_CREDENTIALS}`;
}

/** Parsed JSON log lines of a gateway. */
function logLines(gw: RunningGateway): Array<Record<string, unknown>> {
  return gw
    .logs()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * Whether `gw` logged a line with these fields (a RegExp matches a string field). Access-log lines are written
 * once a response has finished, so they may trail it.
 */
async function accessLogged(gw: RunningGateway, line: Record<string, string | number | RegExp>): Promise<boolean> {
  const matches = (l: Record<string, unknown>): boolean =>
    Object.entries(line).every(([k, v]) => (v instanceof RegExp ? typeof l[k] === 'string' && v.test(l[k] as string) : l[k] === v));
  const seen = (): boolean => logLines(gw).some(matches);
  for (let i = 0; i < 40 && !seen(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return seen();
}

/**
 * Every runtime once as the federating gateway and once as the issuer, each with a different partner (a
 * cycle; the pairs with itself too): the exchange is core code, and all sixteen pairs cost CI minutes
 * without covering more of any adapter.
 */
const PAIRS: ReadonlyArray<readonly [RuntimeName, RuntimeName]> = RUNTIMES.map((a, i) => [a, RUNTIMES[(i + 1) % RUNTIMES.length]] as const);

describe.each(PAIRS)('gateway A (%s runtime) federated with gateway B\'s STS (%s runtime)', (runtimeA, runtimeB) => {
  let front: HttpsFront;
  let b: RunningGateway;
  let hop: RecordingHop;
  let a: RunningGateway;
  let config: string;
  let admin: S3Client;
  const prefix = `${runtimeA}-${runtimeB}`;

  beforeAll(async () => {
    // The front (A's issuer URL) starts first and learns A's address once A listens.
    front = await startHttpsFront();
    // Likewise the hop (B's address to A) starts first and learns B's once B listens.
    hop = await startRecordingHop();
    b = await startGateway(runtimeB, { config: configB(front.url), env: { SESSION_TOKEN_KEY, NODE_EXTRA_CA_CERTS: front.caPath, WEB_FUNCTION_DOMAIN: new URL(hop.endpoint).host } });
    hop.relayTo(b.endpoint);
    config = configA(hop.endpoint, `${hop.endpoint}/.sts`);
    a = await startGateway(runtimeA, { config, env: { OIDC_PROVIDER_KEY: key.pkcs8, OIDC_PROVIDER_ISSUER: front.url } });
    front.relayTo(a.endpoint);
    admin = jsClient(a.endpoint, ADMIN);
  }, 60_000);

  afterAll(async () => {
    admin?.destroy();
    await a?.stop();
    await hop?.stop();
    await b?.stop();
    await front?.stop();
  });

  it('A holds no backend key: its buckets name only the role and B\'s STS endpoint', () => {
    expect(config).not.toContain(S3RVER.secretAccessKey);
    expect(config).not.toMatch(/access_key_id = "(?!ADMIN)/);
  });

  it('serves an anonymous GET through A with credentials B issued for A\'s token, fetched over HTTPS from A', async () => {
    const out = await jsClient(a.endpoint).send(new GetObjectCommand({ Bucket: 'relayed', Key: 'hello.txt' }));
    expect(await out.Body?.transformToString()).toBe('hello through two gateways\n');

    // A exchanged its token at B's STS endpoint...
    expect(logLines(a)).toContainEqual(
      expect.objectContaining({ event: 'oidc-exchange', outcome: 'ok', bucket: 'relayed', role: ROLE, subject: SUBJECT, tokenService: `${hop.endpoint}/.sts` }),
    );
    // (`/.sts` or `/.sts/`: both are B's STS endpoint.)
    expect(await accessLogged(b, { method: 'POST', path: /^\/\.sts\/?$/, status: 200 })).toBe(true);
    // ...where B verified it with the keys A publishes, fetched through the HTTPS front.
    expect(front.requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/.well-known/openid-configuration', '/.well-known/jwks.json']));
    expect(await accessLogged(a, { method: 'GET', path: '/.well-known/jwks.json', status: 200 })).toBe(true);
    // B served the object under the role's prefix.
    expect(await accessLogged(b, { method: 'GET', path: '/store/from-a/hello.txt', status: 200 })).toBe(true);
  });

  it('a keyed client writes, lists, reads and deletes through A; s3rver holds what was written under from-a/', async () => {
    const objectKey = `${prefix}/put.txt`;
    const body = `written through ${runtimeA} then ${runtimeB}`;
    await admin.send(new PutObjectCommand({ Bucket: 'relayed', Key: objectKey, Body: body, ContentType: 'text/plain' }));
    const stored = await direct.send(new GetObjectCommand({ Bucket: 'store', Key: `from-a/${objectKey}` }));
    expect(await stored.Body?.transformToString()).toBe(body);
    expect(stored.ContentType).toBe('text/plain');

    const listed = await admin.send(new ListObjectsV2Command({ Bucket: 'relayed', Prefix: `${prefix}/` }));
    expect(listed.Contents?.map((c) => c.Key)).toEqual([objectKey]);
    const read = await admin.send(new GetObjectCommand({ Bucket: 'relayed', Key: objectKey }));
    expect(await read.Body?.transformToString()).toBe(body);

    await admin.send(new DeleteObjectCommand({ Bucket: 'relayed', Key: objectKey }));
    expect((await direct.send(new ListObjectsV2Command({ Bucket: 'store', Prefix: `from-a/${prefix}/` }))).KeyCount).toBe(0);

    for (const [method, path, status] of [['PUT', `/store/from-a/${objectKey}`, 200], ['GET', `/store/from-a/${objectKey}`, 200], ['DELETE', `/store/from-a/${objectKey}`, 204]] as const) {
      expect(await accessLogged(b, { method, path, status })).toBe(true);
    }
  });

  it('uploads in small parts through both gateways (s3rver has no minimum part size)', async () => {
    const objectKey = `${prefix}/multipart.bin`;
    const body = randomBytes(MiB + 1024);
    const created = await admin.send(new CreateMultipartUploadCommand({ Bucket: 'relayed', Key: objectKey }));
    expect(created).toMatchObject({ Bucket: 'relayed', Key: objectKey });
    const parts = [];
    for (const [n, slice] of [[1, body.subarray(0, MiB)], [2, body.subarray(MiB)]] as const) {
      const out = await admin.send(new UploadPartCommand({ Bucket: 'relayed', Key: objectKey, UploadId: created.UploadId, PartNumber: n, Body: slice }));
      parts.push({ PartNumber: n, ETag: out.ETag });
    }
    await admin.send(new CompleteMultipartUploadCommand({ Bucket: 'relayed', Key: objectKey, UploadId: created.UploadId, MultipartUpload: { Parts: parts } }));
    const stored = await direct.send(new GetObjectCommand({ Bucket: 'store', Key: `from-a/${objectKey}` }));
    expect(sha((await stored.Body?.transformToByteArray()) ?? new Uint8Array())).toBe(sha(body));
  });

  it('A signs every request to B with the temporary credentials: an ASIA key and the session token B sealed', () => {
    const s3Requests = hop.requests.filter((r) => r.path.startsWith('/store'));
    expect(s3Requests.length).toBeGreaterThanOrEqual(8);
    for (const r of s3Requests) {
      expect(String(r.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=ASIA[A-Z2-7]{16}\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=[^,]*x-amz-security-token/);
      expect(r.headers['x-amz-security-token']).toEqual(expect.any(String));
    }
    // One exchange served them all.
    expect(new Set(s3Requests.map((r) => r.headers['x-amz-security-token'])).size).toBe(1);
  });

  it('B authorizes A as the role session: outside the role\'s prefix it is B\'s AccessDenied, which A answers without B\'s names', async () => {
    const refused = await rawRequest(a.endpoint, { method: 'GET', target: '/outside/elsewhere/secret.txt' });
    expect(refused.status).toBe(403);
    expect(errorCode(refused.body)).toBe('AccessDenied');
    // B's message names its role session (an ARN): A keeps B's code and status but not its names (docs/adr/0011).
    expect(refused.body).not.toContain(SESSION_PRINCIPAL);
    expect(refused.body).not.toContain('arn:');
    expect(await accessLogged(b, { method: 'GET', path: '/store/elsewhere/secret.txt', status: 403 })).toBe(true);

    const write = await rawRequest(a.endpoint, { method: 'PUT', target: `/outside/elsewhere/${prefix}.txt`, body: 'x' }, ADMIN);
    expect(write.status).toBe(403);
    expect(errorCode(write.body)).toBe('AccessDenied');
    expect(write.body).not.toContain('arn:');
    expect((await direct.send(new ListObjectsV2Command({ Bucket: 'store', Prefix: `elsewhere/${prefix}` }))).KeyCount).toBe(0);

    // Inside the prefix the same bucket works: the scope, not the bucket, made the difference.
    const inside = await rawRequest(a.endpoint, { method: 'GET', target: '/outside/from-a/hello.txt' });
    expect(inside.status).toBe(200);
    expect(inside.body).toBe('hello through two gateways\n');
  });

  it('never logs the token, the temporary credentials or the keys, on either gateway', () => {
    for (const gw of [a, b]) {
      expect(gw.logs()).not.toMatch(/SessionToken|SecretAccessKey|BEGIN (RSA )?PRIVATE KEY/);
      for (const r of hop.requests) if (r.headers['x-amz-security-token']) expect(gw.logs()).not.toContain(String(r.headers['x-amz-security-token']));
    }
  });
});
