import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Keys } from '../support/clients';
import { MULTIPART_ACTIONS, bucketToml, credentialToml, roleToml, s3Options } from '../support/config-toml';
import { RUNTIMES, RUNTIME_LIMITS, freePort, startGateway, type RunningGateway, type RuntimeName } from '../support/gateway';
import { startOidcIssuer, type OidcIssuer } from '../support/oidc-issuer';
import { generateProviderKey, type ProviderKeyPem } from '../support/provider-key';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';

/**
 * `npm run smoke -- <endpoint>`, the post-deploy checker, run as a user runs it against every local runtime
 * and platform stand-in, the gateway in front of Ceph RGW with its OIDC provider and STS configured: its
 * table says "works" where the runtime serves S3 clients as S3 would, and "broken" exactly where the
 * platform is declared to get in the way (RUNTIME_LIMITS); it exits non-zero exactly then, and leaves
 * nothing behind in the bucket.
 */

const MiB = 1024 * 1024;
const KEY: Keys = { accessKeyId: 'SMOKEKEY000000000000', secretAccessKey: 'smoke/secret/key/0000000000000000000000' };
const ROLE_ARN = 'arn:aws:iam::000000000000:role/smoke';
const SESSION_TOKEN_KEY = randomBytes(32).toString('base64');
const ROOT = resolve(__dirname, '../..');

type Outcome = 'works' | 'broken' | 'not checked';

interface SmokeRun {
  readonly code: number;
  readonly output: string;
  /** The table's rows: check → outcome, evidence. */
  readonly rows: Record<string, { outcome: Outcome; evidence: string }>;
}

let rgw: Rgw;
let issuer: OidcIssuer;
let providerKey: ProviderKeyPem;

beforeAll(async () => {
  providerKey = generateProviderKey();
  [rgw, issuer] = await Promise.all([startRgw(), startOidcIssuer()]);
  await createBucket(rgw, 'smoke');
}, 120_000);

afterAll(async () => {
  await Promise.all([rgw?.stop(), issuer?.stop()]);
});

function config(): string {
  return [
    bucketToml({ name: 'smoke', backend_type: 's3' }, s3Options(rgw.endpoint, 'smoke', rgw)),
    credentialToml(KEY, { principal_name: 'smoke' }, [
      { bucket: 'smoke', actions: ['get_object', 'head_object', 'put_object', 'delete_object', 'list_bucket', ...MULTIPART_ACTIONS] },
    ]),
    roleToml({ role_id: ROLE_ARN, name: 'smoke', trusted_oidc_issuers: [issuer.url], subject_conditions: ['repo:acme/*'] }, [
      { bucket: 'smoke', prefixes: ['{repository}/'], actions: ['get_object'] },
    ]),
  ].join('\n');
}

/** The checker as a user runs it (its table, not an API), with the key, bucket, role and token as flags. */
async function smoke(endpoint: string): Promise<SmokeRun> {
  const args = [
    '--import', 'tsx', 'scripts/smoke.ts', endpoint,
    '--access-key-id', KEY.accessKeyId, '--secret-access-key', KEY.secretAccessKey, '--bucket', 'smoke',
    '--role-arn', ROLE_ARN, '--web-identity-token', await issuer.mint(),
  ];
  const { code, output } = await new Promise<{ code: number; output: string }>((resolvePromise) => {
    execFile(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH }, timeout: 300_000, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      const failure = err as (Error & { code?: number }) | null;
      resolvePromise({ code: failure ? (typeof failure.code === 'number' ? failure.code : -1) : 0, output: stdout + stderr });
    });
  });
  const rows: SmokeRun['rows'] = {};
  for (const line of output.split('\n')) {
    const m = /^\| (.+?) \| (works|broken|not checked) \| (.*) \|$/.exec(line);
    if (m) rows[m[1]] = { outcome: m[2] as Outcome, evidence: m[3] };
  }
  return { code, output, rows };
}

/** What the checker must find on `runtime`, from what its platform is declared to do. */
function expectedOutcomes(runtime: RuntimeName, expect100: 'continue' | 'reject' = 'continue'): Record<string, Outcome> {
  const limits = RUNTIME_LIMITS[runtime];
  const fits = (bytes: number): Outcome => (limits.maxRequestBodyBytes === undefined || bytes <= limits.maxRequestBodyBytes ? 'works' : 'broken');
  return {
    'discovery documents': 'works',
    'signed PUT and GET': 'works',
    'HEAD Content-Length': limits.remapsContentLength ? 'broken' : 'works',
    'ranged GET (206, Content-Range)': 'works',
    'conditional GET 304': 'works',
    'conditional GET 412': 'works',
    'gzip-encoded object round trip': limits.dropsContentEncoding ? 'broken' : 'works',
    'PUT 5 MiB': fits(5 * MiB),
    'PUT 8 MiB': fits(8 * MiB),
    'PUT 64 MiB': fits(64 * MiB),
    'multipart 10 MiB (2 × 5 MiB parts)': fits(5 * MiB),
    'multipart 64 MiB (8 × 8 MiB parts)': fits(8 * MiB),
    'PUT with Expect: 100-continue': expect100 === 'reject' ? 'broken' : 'works',
    'key with %': 'works',
    'key with + and a space': 'works',
    'unicode key': 'works',
    'key with //': 'works',
    'signed for another Region (ap-southeast-2)': 'works',
    'STS round trip': 'works',
  };
}

async function gatewayFor(runtime: RuntimeName, env: Record<string, string> = {}): Promise<RunningGateway> {
  const port = await freePort();
  return startGateway(runtime, {
    config: config(),
    port,
    env: { OIDC_PROVIDER_KEY: providerKey.pkcs8, OIDC_PROVIDER_ISSUER: `http://127.0.0.1:${port}`, SESSION_TOKEN_KEY, NODE_EXTRA_CA_CERTS: issuer.caPath, ...env },
  });
}

async function bucketKeys(): Promise<string[]> {
  const s3 = rgwS3Client(rgw);
  try {
    return ((await s3.send(new ListObjectsV2Command({ Bucket: 'smoke' }))).Contents ?? []).map((c) => c.Key ?? '');
  } finally {
    s3.destroy();
  }
}

describe.each(RUNTIMES)('npm run smoke against the %s runtime', (runtime) => {
  let gw: RunningGateway;
  beforeAll(async () => (gw = await gatewayFor(runtime)), 60_000);
  afterAll(() => gw?.stop());

  it('reports each check as the platform makes it, exits 1 exactly when one is broken, and deletes what it wrote', async () => {
    const run = await smoke(gw.endpoint);
    const outcomes = Object.fromEntries(Object.entries(run.rows).map(([check, row]) => [check, row.outcome]));
    const expected = expectedOutcomes(runtime);
    expect({ outcomes, output: run.output }).toEqual({ outcomes: expected, output: expect.any(String) });
    expect(run.code).toBe(Object.values(expected).includes('broken') ? 1 : 0);
    expect(run.output).toMatch(/^Endpoint: http:\/\/127\.0\.0\.1:\d+ \(.+\)$/m);
    expect(run.output).not.toContain('Could not delete');
    expect(await bucketKeys()).toEqual([]);
    if (RUNTIME_LIMITS[runtime].remapsContentLength) expect(run.rows['HEAD Content-Length'].evidence).toContain('x-amzn-remapped-content-length: 1000');
    if (RUNTIME_LIMITS[runtime].maxRequestBodyBytes !== undefined) expect(run.rows['PUT 5 MiB'].evidence).toBe('PUT answered 413 (RequestEntityTooLargeException)');
  }, 300_000);
});

describe('npm run smoke against a Web Function endpoint answering Expect: 100-continue with 417 (as reported, WEB_FUNCTION_EXPECT=reject)', () => {
  let gw: RunningGateway;
  beforeAll(async () => (gw = await gatewayFor('web', { WEB_FUNCTION_EXPECT: 'reject' })), 60_000);
  afterAll(() => gw?.stop());

  it('names the 417 and what it breaks, and exits 1', async () => {
    const run = await smoke(gw.endpoint);
    expect(run.rows['PUT with Expect: 100-continue']).toEqual({
      outcome: 'broken',
      evidence: '417 Expectation Failed: aws-cli and boto3 send Expect: 100-continue with every PutObject and UploadPart, so all their uploads fail',
    });
    const outcomes = Object.fromEntries(Object.entries(run.rows).map(([check, row]) => [check, row.outcome]));
    expect(outcomes).toEqual(expectedOutcomes('web', 'reject'));
    expect(run.code).toBe(1);
    expect(run.output).toContain('(Lambda Web Function)');
  }, 300_000);
});

describe('npm run smoke without everything it could use', () => {
  let gw: RunningGateway;
  beforeAll(async () => (gw = await gatewayFor('node')), 60_000);
  afterAll(() => gw?.stop());

  function run(...args: string[]): Promise<{ code: number; output: string }> {
    return new Promise((resolvePromise) => {
      execFile(process.execPath, ['--import', 'tsx', 'scripts/smoke.ts', ...args], { cwd: ROOT, env: { PATH: process.env.PATH }, timeout: 120_000 }, (err, stdout, stderr) => {
        const failure = err as (Error & { code?: number }) | null;
        resolvePromise({ code: failure ? (typeof failure.code === 'number' ? failure.code : -1) : 0, output: stdout + stderr });
      });
    });
  }

  it('GIVEN no key, bucket, role or token WHEN run THEN it checks what needs none, marks the rest not checked with the flag to give, and exits 0', async () => {
    const { code, output } = await run(gw.endpoint);
    expect(code).toBe(0);
    expect(output).toMatch(/^\| discovery documents \| works \| issuer http:\/\/127\.0\.0\.1:\d+, JWKS with 1 key \|$/m);
    expect(output).toContain('| HEAD Content-Length | not checked | no key given (--access-key-id, --secret-access-key) |');
    expect(output).toContain('| STS round trip | not checked | no role and token given (--role-arn, --web-identity-token) |');
    expect(output).toContain('Works: 1, broken: 0, not checked: 18.');
  }, 120_000);

  it('GIVEN a key without a bucket WHEN run THEN the S3 checks say the bucket is missing', async () => {
    const { code, output } = await run(gw.endpoint, '--access-key-id', KEY.accessKeyId, '--secret-access-key', KEY.secretAccessKey);
    expect(code).toBe(0);
    expect(output).toContain('| PUT 64 MiB | not checked | no bucket given (--bucket) |');
  }, 120_000);

  it.each([
    [[], 'the endpoint (one http:// or https:// URL) is required'],
    [['127.0.0.1:8080'], 'the endpoint (one http:// or https:// URL) is required'],
    [['http://127.0.0.1:1', '--access-key-id', 'K'], 'give both the access key id and the secret access key, or neither'],
    [['http://127.0.0.1:1', '--timeout', 'soon'], '--timeout must be a number of seconds, got "soon"'],
    [['http://127.0.0.1:1', '--colour'], "Unknown option '--colour'"],
  ])('GIVEN arguments %j WHEN run THEN it exits 2 with the problem and the usage', async (args, problem) => {
    const { code, output } = await run(...args);
    expect(code).toBe(2);
    expect(output).toContain(problem);
    expect(output).toContain('usage: npm run smoke -- <endpoint>');
  }, 120_000);

  it('GIVEN an endpoint where nothing listens WHEN run THEN every check it could make is broken with the connection error, and it exits 1', async () => {
    const { code, output } = await run(`http://127.0.0.1:${await freePort()}`);
    expect(code).toBe(1);
    expect(output).toMatch(/\| discovery documents \| broken \| request failed: .*ECONNREFUSED/);
  }, 120_000);
});
