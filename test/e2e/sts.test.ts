import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3ServiceException, type S3Client } from '@aws-sdk/client-s3';
import {
  AssumeRoleWithWebIdentityCommand,
  ExpiredTokenException,
  GetCallerIdentityCommand,
  InvalidIdentityTokenException,
  STSClient,
  STSServiceException,
} from '@aws-sdk/client-sts';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startS3rver, type S3rver } from '../../scripts/s3rver';
import { importSessionKey, sealSession } from '../../functions/core/sts';
import { PYTHONS, awsCli, boto3, jsClient, requireGeneration, type Keys } from '../support/clients';
import { READ_ACTIONS, bucketToml, credentialToml, everywhere, roleToml, s3Options } from '../support/config-toml';
import { expectedCliCopy, startGateway, TRANSPORT_RUNTIMES, type RunningGateway } from '../support/gateway';
import { S3RVER_KEYS } from '../support/large-bodies';
import { startOidcIssuer, type MintOptions, type OidcIssuer } from '../support/oidc-issuer';
import { errorCode, rawRequest, type RawResponse } from '../support/raw-request';

/**
 * GitHub Actions end to end: a local HTTPS OIDC issuer minting GitHub-shaped tokens, the gateway trusting it
 * through NODE_EXTRA_CA_CERTS, and the real clients (the JS SDK as configure-aws-credentials uses it, aws-cli
 * v1 on the Node server and v2 on the edge, boto3 new and Debian) exchanging tokens for temporary credentials and using them on s3rver,
 * only inside the `{repository}/` prefix the role templates.
 */
const ROLE_ARN = 'arn:aws:iam::000000000000:role/ci';
const SUBJECT = 'repo:acme/widgets:ref:refs/heads/main';
const ARN = `arn:aws:sts::000000000000:assumed-role/ci/${SUBJECT}`;
const SESSION_TOKEN_KEY = randomBytes(32).toString('base64');
/** Nothing listens on port 1: an issuer the gateway cannot reach. */
const UNREACHABLE_ISSUER = 'https://127.0.0.1:1';
const ADMIN: Keys = { accessKeyId: 'ADMINKEY000000000000', secretAccessKey: 'admin/secret/key/0000000000000000000000' };
const ROOT = resolve(__dirname, '../..');

let issuer: OidcIssuer;
let s3rver: S3rver;
let workdir: string;

beforeAll(async () => {
  [issuer, s3rver] = await Promise.all([startOidcIssuer(), startS3rver({ buckets: ['artifacts', 'sts'] })]);
  workdir = mkdtempSync(join(tmpdir(), 'sts-e2e-'));
  const direct = jsClient(s3rver.endpoint, S3RVER_KEYS);
  const seed: [string, string, string][] = [
    ['artifacts', 'acme/widgets/build.txt', 'widgets build\n'],
    ['artifacts', 'acme/other/secret.txt', 'other repository\n'],
    ['artifacts', 'top-level.txt', 'top\n'],
    ['sts', 'listing.txt', 'a bucket named sts\n'],
  ];
  await Promise.all(seed.map(([Bucket, Key, Body]) => direct.send(new PutObjectCommand({ Bucket, Key, Body }))));
  direct.destroy();
}, 60_000);

afterAll(async () => {
  await Promise.all([issuer?.stop(), s3rver?.stop()]);
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

function config(): string {
  const bucket = (name: string): string => bucketToml({ name, backend_type: 'objstore' }, s3Options(s3rver.endpoint, name, S3RVER_KEYS));
  const issuers = [issuer.url, issuer.httpJwksIssuer, UNREACHABLE_ISSUER];
  const subjects = ['repo:acme/*:ref:refs/heads/main', 'repo:acme@1001/*:ref:refs/heads/main'];
  return [
    bucket('artifacts'),
    bucket('sts'),
    credentialToml(ADMIN, { principal_name: 'admin' }, [everywhere(READ_ACTIONS)]),
    roleToml({ role_id: ROLE_ARN, name: 'GitHub Actions CI', trusted_oidc_issuers: issuers, subject_conditions: subjects, max_session_duration_secs: 7200 }, [
      { bucket: 'artifacts', prefixes: ['{repository}/'], actions: [...READ_ACTIONS, 'put_object'] },
      // A claim GitHub never sends: must grant nothing, not the whole bucket.
      { bucket: 'artifacts', prefixes: ['{no_such_claim}'], actions: [...READ_ACTIONS, 'put_object', 'delete_object'] },
    ]),
  ].join('\n');
}

/** A form POST of AssumeRoleWithWebIdentity exactly as configure-aws-credentials sends it. */
function assumeForm(token: string, extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    Action: 'AssumeRoleWithWebIdentity',
    Version: '2011-06-15',
    RoleArn: ROLE_ARN,
    RoleSessionName: 'GitHubActions',
    WebIdentityToken: token,
    DurationSeconds: '3600',
    ...extra,
  }).toString();
}

function postForm(endpoint: string, path: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(endpoint, {
    method: 'POST',
    target: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), ...headers },
    body,
  });
}

async function s3Code(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (err) {
    if (err instanceof S3ServiceException || err instanceof STSServiceException) return err.name;
    throw err;
  }
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&amp;': '&' };

/** The text of the first `<name>` element, unescaped. */
function element(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1].replace(/&(lt|gt|quot|apos|amp);/g, (e) => ENTITIES[e]);
}

describe.each(TRANSPORT_RUNTIMES)('STS through the gateway (%s runtime)', (runtime) => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config(), env: { SESSION_TOKEN_KEY, NODE_EXTRA_CA_CERTS: issuer.caPath } });
  }, 60_000);

  afterAll(() => gw?.stop());

  /** Temporary credentials through the JS SDK, against `endpoint` (the gateway's root by default). */
  async function assumeWithSdk(endpoint = gw.endpoint, options: MintOptions = {}): Promise<Keys> {
    const sts = new STSClient({ region: 'us-east-1', endpoint, maxAttempts: 1 });
    try {
      const out = await sts.send(
        new AssumeRoleWithWebIdentityCommand({ RoleArn: ROLE_ARN, RoleSessionName: 'GitHubActions', WebIdentityToken: await issuer.mint(options), DurationSeconds: 3600 }),
      );
      const c = out.Credentials!;
      return { accessKeyId: c.AccessKeyId!, secretAccessKey: c.SecretAccessKey!, sessionToken: c.SessionToken! };
    } finally {
      sts.destroy();
    }
  }

  describe('what configure-aws-credentials does', () => {
    it('POSTs the form to <sts-endpoint>/ (here /sts/), then calls GetCallerIdentity with the new credentials', async () => {
      const endpoint = `${gw.endpoint}/sts`;
      const started = Date.now();
      const sts = new STSClient({ region: 'us-east-1', endpoint, maxAttempts: 1 });
      const out = await sts.send(
        new AssumeRoleWithWebIdentityCommand({ RoleArn: ROLE_ARN, RoleSessionName: 'GitHubActions', WebIdentityToken: await issuer.mint(), DurationSeconds: 3600 }),
      );
      sts.destroy();
      expect(out.Credentials?.AccessKeyId).toMatch(/^ASIA[A-Z2-7]{16}$/);
      expect(out.Credentials?.SecretAccessKey).toHaveLength(40);
      const expires = out.Credentials?.Expiration?.getTime() ?? 0;
      expect(expires).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000 + 3_600_000);
      expect(expires).toBeLessThanOrEqual(Date.now() + 3_600_000);
      expect(out).toMatchObject({
        SubjectFromWebIdentityToken: SUBJECT,
        Audience: 'sts.amazonaws.com',
        Provider: issuer.url,
        AssumedRoleUser: { Arn: ARN, AssumedRoleId: `ci:${SUBJECT}` },
      });

      const c = out.Credentials!;
      const caller = new STSClient({
        region: 'us-east-1',
        endpoint,
        maxAttempts: 1,
        credentials: { accessKeyId: c.AccessKeyId!, secretAccessKey: c.SecretAccessKey!, sessionToken: c.SessionToken! },
      });
      const who = await caller.send(new GetCallerIdentityCommand({}));
      caller.destroy();
      expect(who).toMatchObject({ Arn: ARN, UserId: `ci:${SUBJECT}`, Account: '000000000000' });
      await expect(gw.logged(/"method":"POST","path":"\/sts\/","status":200/)).resolves.toBe(true);
    });

    it.each([
      ['the root', ''],
      ['/.sts', '/.sts'],
    ])('works with the endpoint at %s', async (_, suffix) => {
      const keys = await assumeWithSdk(gw.endpoint + suffix);
      const caller = new STSClient({ region: 'us-east-1', endpoint: gw.endpoint + suffix, maxAttempts: 1, credentials: keys });
      expect((await caller.send(new GetCallerIdentityCommand({}))).Arn).toBe(ARN);
      caller.destroy();
    });

    it('accepts the newer repo:ORG@ID/REPO@ID subject form', async () => {
      const keys = await assumeWithSdk(gw.endpoint, { claims: { sub: 'repo:acme@1001/widgets@2002:ref:refs/heads/main' } });
      const caller = new STSClient({ region: 'us-east-1', endpoint: gw.endpoint, maxAttempts: 1, credentials: keys });
      expect((await caller.send(new GetCallerIdentityCommand({}))).Arn).toBe('arn:aws:sts::000000000000:assumed-role/ci/repo:acme@1001/widgets@2002:ref:refs/heads/main');
      caller.destroy();
    });

    it('works with AWS_ENDPOINT_URL_STS instead of an explicit endpoint (a child process)', async () => {
      const script = `
const { STSClient, AssumeRoleWithWebIdentityCommand, GetCallerIdentityCommand } = require('@aws-sdk/client-sts');
(async () => {
  const out = await new STSClient({}).send(new AssumeRoleWithWebIdentityCommand({ RoleArn: process.env.ROLE_ARN, RoleSessionName: 'GitHubActions', WebIdentityToken: process.env.TOKEN }));
  const c = out.Credentials;
  const who = await new STSClient({ credentials: { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken } }).send(new GetCallerIdentityCommand({}));
  console.log(JSON.stringify({ arn: who.Arn }));
})().catch((err) => { console.error(err); process.exit(1); });
`;
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        AWS_REGION: 'us-east-1',
        AWS_CONFIG_FILE: '/dev/null',
        AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
        AWS_ENDPOINT_URL_STS: `${gw.endpoint}/sts`,
        ROLE_ARN,
        TOKEN: await issuer.mint(),
      };
      const stdout = await new Promise<string>((resolvePromise, reject) =>
        execFile(process.execPath, ['-e', script], { cwd: ROOT, env, timeout: 60_000 }, (err, out, stderr) => (err ? reject(new Error(stderr)) : resolvePromise(out))),
      );
      expect(JSON.parse(stdout)).toEqual({ arn: ARN });
    });

    // How a Kubernetes pod or a GitLab CI job gets credentials: the token in a file, the role in the
    // environment, and the SDK's default credential chain exchanging one for the other at the gateway's STS.
    describe('the default credential chain with a web identity token file', () => {
      const chainEnv = async (): Promise<NodeJS.ProcessEnv> => {
        const tokenFile = join(workdir, `token-${runtime}`);
        writeFileSync(tokenFile, await issuer.mint());
        return {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          AWS_REGION: 'us-east-1',
          AWS_CONFIG_FILE: '/dev/null',
          AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
          AWS_EC2_METADATA_DISABLED: 'true',
          AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile,
          AWS_ROLE_ARN: ROLE_ARN,
          AWS_ROLE_SESSION_NAME: 'pod',
          AWS_ENDPOINT_URL_STS: `${gw.endpoint}/sts`,
          AWS_ENDPOINT_URL_S3: gw.endpoint,
        };
      };
      const childOutput = (file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> =>
        new Promise((resolvePromise, reject) =>
          execFile(file, args, { cwd: ROOT, env, timeout: 60_000 }, (err, out, stderr) => (err ? reject(new Error(stderr)) : resolvePromise(out))),
        );

      it('the JS SDK v3: an S3 client with no credentials reads and lists inside the prefix, and nowhere else', async () => {
        const script = `
const { S3Client, GetObjectCommand, ListObjectsV2Command } = require('@aws-sdk/client-s3');
(async () => {
  const s3 = new S3Client({ forcePathStyle: true, maxAttempts: 1 });
  const read = await s3.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'acme/widgets/build.txt' }));
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'artifacts', Prefix: 'acme/widgets/' }));
  const outside = await s3.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'acme/other/secret.txt' })).then(() => 'read', (err) => err.name);
  console.log(JSON.stringify({ body: await read.Body.transformToString(), keys: listed.Contents.map((c) => c.Key), outside }));
})().catch((err) => { console.error(err); process.exit(1); });
`;
        const out = JSON.parse(await childOutput(process.execPath, ['-e', script], await chainEnv()));
        expect(out).toEqual({ body: 'widgets build\n', keys: expect.arrayContaining(['acme/widgets/build.txt']), outside: 'AccessDenied' });
      });

      it('boto3: a client with no credentials reads inside the prefix, and nowhere else', async () => {
        const snippet = `
import json, boto3
from botocore.config import Config
s3 = boto3.client('s3', config=Config(s3={'addressing_style': 'path'}, retries={'max_attempts': 1}))
body = s3.get_object(Bucket='artifacts', Key='acme/widgets/build.txt')['Body'].read().decode()
try:
    s3.get_object(Bucket='artifacts', Key='acme/other/secret.txt')
    outside = 'read'
except s3.exceptions.ClientError as e:
    outside = e.response['Error']['Code']
print(json.dumps({'body': body, 'outside': outside}))
`;
        await requireGeneration('boto3-new');
        const out = JSON.parse(await childOutput(PYTHONS['boto3-new'], ['-c', snippet], await chainEnv()));
        expect(out).toEqual({ body: 'widgets build\n', outside: 'AccessDenied' });
      });
    });
  });

  // Each aws-cli on one runtime: STS is the core's on both, and eight runs of a CLI take ~13 s here.
  describe.each(runtime === 'node' ? (['v1'] as const) : (['v2'] as const))('aws-cli %s', (cli) => {
    it('assume-role-with-web-identity, get-caller-identity, then S3 only inside the repository prefix', async () => {
      const assumed = await awsCli(cli, gw.endpoint, undefined, [
        'sts', 'assume-role-with-web-identity', '--role-arn', ROLE_ARN, '--role-session-name', 'gha',
        '--web-identity-token', await issuer.mint(), '--duration-seconds', '900', '--output', 'json',
      ]);
      expect({ code: assumed.code, stderr: assumed.stderr }).toEqual({ code: 0, stderr: '' });
      const c = JSON.parse(assumed.stdout).Credentials;
      const keys: Keys = { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken };

      const who = await awsCli(cli, gw.endpoint, keys, ['sts', 'get-caller-identity', '--output', 'json']);
      expect(JSON.parse(who.stdout)).toEqual({ UserId: `ci:${SUBJECT}`, Account: '000000000000', Arn: ARN });

      const read = await awsCli(cli, gw.endpoint, keys, ['s3', 'cp', 's3://artifacts/acme/widgets/build.txt', '-']);
      expect(read).toMatchObject(expectedCliCopy(runtime, 'widgets build\n'));
      const listed = await awsCli(cli, gw.endpoint, keys, ['s3', 'ls', 's3://artifacts/acme/widgets/']);
      expect(listed.stdout).toContain('build.txt');

      const outside = await awsCli(cli, gw.endpoint, keys, ['s3', 'cp', 's3://artifacts/acme/other/secret.txt', '-']);
      expect(outside.code).not.toBe(0);
      expect(outside.stderr).toMatch(/403|AccessDenied|Forbidden/);
      const listOutside = await awsCli(cli, gw.endpoint, keys, ['s3', 'ls', 's3://artifacts/']);
      expect(listOutside.stderr).toContain('AccessDenied');

      const file = join(workdir, `upload-${cli}.txt`);
      writeFileSync(file, `from aws-cli ${cli}\n`);
      const writeOutside = await awsCli(cli, gw.endpoint, keys, ['s3', 'cp', file, 's3://artifacts/acme/other/from-cli.txt']);
      expect(writeOutside.stderr).toContain('AccessDenied');
      const writeInside = await awsCli(cli, gw.endpoint, keys, ['s3', 'cp', file, `s3://artifacts/acme/widgets/from-cli-${cli}.txt`]);
      expect(writeInside.stderr).not.toContain('AccessDenied');
    });
  });

  describe.each(['boto3-new', 'boto3-debian'] as const)('%s', (python) => {
    it('assumes the role, reads, lists and writes inside the prefix only, and presigns a working URL', async () => {
      const snippet = `
import urllib.request, urllib.error
EP = ${JSON.stringify(gw.endpoint)}
sts = boto3.client('sts', endpoint_url=EP, region_name='us-east-1', config=Config(retries={'max_attempts': 1}, signature_version=UNSIGNED))
a = sts.assume_role_with_web_identity(RoleArn=${JSON.stringify(ROLE_ARN)}, RoleSessionName='gha', WebIdentityToken=${JSON.stringify(await issuer.mint())})
c = a['Credentials']
session = boto3.session.Session(aws_access_key_id=c['AccessKeyId'], aws_secret_access_key=c['SecretAccessKey'], aws_session_token=c['SessionToken'], region_name='us-east-1')
who = session.client('sts', endpoint_url=EP, config=Config(retries={'max_attempts': 1})).get_caller_identity()
s3c = session.client('s3', endpoint_url=EP, config=Config(s3={'addressing_style': 'path'}, signature_version='s3v4', retries={'max_attempts': 1}))
def fetch(url):
    try:
        return urllib.request.urlopen(url).read().decode()
    except urllib.error.HTTPError as e:
        return e.code
result = {
    'arn': who['Arn'],
    'assumed': a['AssumedRoleUser']['Arn'],
    'read': s3c.get_object(Bucket='artifacts', Key='acme/widgets/build.txt')['Body'].read().decode(),
    'listed': [o['Key'] for o in s3c.list_objects_v2(Bucket='artifacts', Prefix='acme/widgets/').get('Contents', [])],
    'read_outside': error_code(lambda: s3c.get_object(Bucket='artifacts', Key='acme/other/secret.txt')),
    'read_top': error_code(lambda: s3c.get_object(Bucket='artifacts', Key='top-level.txt')),
    'list_outside': error_code(lambda: s3c.list_objects_v2(Bucket='artifacts', Prefix='acme/')),
    'write_outside': error_code(lambda: s3c.put_object(Bucket='artifacts', Key='acme/other/from-boto3.txt', Body=b'x')),
    'write_inside': error_code(lambda: s3c.put_object(Bucket='artifacts', Key='acme/widgets/from-${python}.txt', Body=b'x')),
    'presigned': fetch(s3c.generate_presigned_url('get_object', Params={'Bucket': 'artifacts', 'Key': 'acme/widgets/build.txt'}, ExpiresIn=300)),
    'presigned_url_has_token': 'X-Amz-Security-Token=' in s3c.generate_presigned_url('get_object', Params={'Bucket': 'artifacts', 'Key': 'acme/widgets/build.txt'}),
    'presigned_outside': fetch(s3c.generate_presigned_url('get_object', Params={'Bucket': 'artifacts', 'Key': 'acme/other/secret.txt'})),
}
`;
      const result = (await boto3(python, gw.endpoint, undefined, snippet)) as Record<string, unknown>;
      expect(result).toEqual({
        arn: ARN,
        assumed: ARN,
        read: 'widgets build\n',
        listed: expect.arrayContaining(['acme/widgets/build.txt']),
        read_outside: 'AccessDenied',
        read_top: 'AccessDenied',
        list_outside: 'AccessDenied',
        write_outside: 'AccessDenied',
        write_inside: expect.not.stringMatching(/^AccessDenied$/),
        presigned: 'widgets build\n',
        presigned_url_has_token: true,
        presigned_outside: 403,
      });
    });
  });

  describe('the JS SDK with temporary credentials', () => {
    let s3: S3Client;
    let keys: Keys;

    beforeAll(async () => {
      keys = await assumeWithSdk();
      s3 = jsClient(gw.endpoint, keys);
    });

    afterAll(() => s3?.destroy());

    it('reads and lists inside the prefix', async () => {
      const out = await s3.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'acme/widgets/build.txt' }));
      expect(await out.Body?.transformToString()).toBe('widgets build\n');
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'artifacts', Prefix: 'acme/widgets/' }));
      expect(listed.Contents?.map((o) => o.Key)).toContain('acme/widgets/build.txt');
    });

    it('is AccessDenied outside it, reading, listing or writing, and never gains the whole bucket', async () => {
      expect(await s3Code(s3.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'acme/other/secret.txt' })))).toBe('AccessDenied');
      expect(await s3Code(s3.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'top-level.txt' })))).toBe('AccessDenied');
      expect(await s3Code(s3.send(new ListObjectsV2Command({ Bucket: 'artifacts' })))).toBe('AccessDenied');
      expect(await s3Code(s3.send(new GetObjectCommand({ Bucket: 'sts', Key: 'listing.txt' })))).toBe('AccessDenied');
      expect(await s3Code(s3.send(new PutObjectCommand({ Bucket: 'artifacts', Key: 'acme/other/js.txt', Body: 'x' })))).toBe('AccessDenied');
    });

    it('may write inside it (not AccessDenied)', async () => {
      expect(await s3Code(s3.send(new PutObjectCommand({ Bucket: 'artifacts', Key: 'acme/widgets/js.txt', Body: 'x' })))).not.toBe('AccessDenied');
    });

    it('refuses a tampered session token and a token presented with another access key as InvalidToken', async () => {
      const other = await assumeWithSdk();
      const token = keys.sessionToken!;
      const tampered = token.slice(0, 30) + (token[30] === 'A' ? 'B' : 'A') + token.slice(31);
      for (const attempt of [{ ...keys, sessionToken: tampered }, { ...keys, sessionToken: other.sessionToken }]) {
        const client = jsClient(gw.endpoint, attempt);
        expect(await s3Code(client.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'acme/widgets/build.txt' })))).toBe('InvalidToken');
        client.destroy();
      }
    });

    it('refuses an expired sealed credential: ExpiredToken on S3, STS-shaped ExpiredToken on GetCallerIdentity', async () => {
      // Sealed here with the gateway's SESSION_TOKEN_KEY, already past its expiry: the gateway's own path to
      // expiry (a real session would take 900 s at least; the core tests move the clock instead).
      const expired: Keys = {
        accessKeyId: 'ASIAEXPIREDEXPIRED00',
        secretAccessKey: 'expired/secret/expired/secret/expired/00',
        sessionToken: await sealSession(await importSessionKey(Buffer.from(SESSION_TOKEN_KEY, 'base64')), {
          accessKeyId: 'ASIAEXPIREDEXPIRED00',
          secretAccessKey: 'expired/secret/expired/secret/expired/00',
          scopes: [{ bucket: 'artifacts', prefixes: ['acme/widgets/'], actions: ['get_object'] }],
          session: { roleId: ROLE_ARN, subject: SUBJECT, expiresAt: Date.now() - 1000 },
        }),
      };
      const client = jsClient(gw.endpoint, expired);
      expect(await s3Code(client.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'acme/widgets/build.txt' })))).toBe('ExpiredToken');
      client.destroy();
      const caller = new STSClient({ region: 'us-east-1', endpoint: gw.endpoint, maxAttempts: 1, credentials: expired });
      expect(await s3Code(caller.send(new GetCallerIdentityCommand({})))).toBe('ExpiredToken');
      caller.destroy();
    });

    it('GetCallerIdentity without a session token or with a bad signature is an STS-shaped 403', async () => {
      for (const [credentials, code] of [
        [ADMIN, 'InvalidClientTokenId'],
        [{ ...keys, secretAccessKey: 'not-the-secret' }, 'SignatureDoesNotMatch'],
      ] as const) {
        const caller = new STSClient({ region: 'us-east-1', endpoint: gw.endpoint, maxAttempts: 1, credentials });
        try {
          await caller.send(new GetCallerIdentityCommand({}));
          throw new Error('GetCallerIdentity succeeded');
        } catch (err) {
          expect(err).toBeInstanceOf(STSServiceException);
          expect({ name: (err as STSServiceException).name, status: (err as STSServiceException).$metadata.httpStatusCode }).toEqual({ name: code, status: 403 });
        } finally {
          caller.destroy();
        }
      }
    });
  });

  describe('refusals of AssumeRoleWithWebIdentity', () => {
    const cases: [string, () => Promise<string>, Record<string, string>, number, string, RegExp][] = [
      ['an untrusted issuer', () => issuer.mint({ issuer: `${issuer.url}/untrusted` }), {}, 400, 'InvalidIdentityToken', /is not trusted by role/],
      ['alg none', () => issuer.mint({ signer: 'none' }), {}, 400, 'InvalidIdentityToken', /alg "none" is not accepted/],
      ['HS256 signed with the public key', () => issuer.mint({ signer: 'hs256-public-key' }), {}, 400, 'InvalidIdentityToken', /alg "HS256" is not accepted/],
      ['a key not in the JWKS', () => issuer.mint({ signer: 'unknown' }), {}, 400, 'InvalidIdentityToken', /No key with kid "rotated-away"/],
      ['a wrong audience', () => issuer.mint({ claims: { aud: 'api://not-sts' } }), {}, 403, 'AccessDenied', /aud \["api:\/\/not-sts"\]/],
      ['a subject outside the conditions', () => issuer.mint({ claims: { sub: 'repo:acme/widgets:pull_request' } }), {}, 403, 'AccessDenied', /matches none of role/],
      ['an expired token', () => issuer.mint({ at: Date.now() - 3_600_000 }), {}, 400, 'ExpiredTokenException', /expired/],
      ['nbf in the future', () => issuer.mint({ notBefore: 600 }), {}, 400, 'InvalidIdentityToken', /not valid yet/],
      ['no exp', () => issuer.mint({ omitExp: true }), {}, 400, 'InvalidIdentityToken', /no exp claim/],
      ['an http:// jwks_uri', () => issuer.mint({ issuer: issuer.httpJwksIssuer }), {}, 400, 'InvalidIdentityToken', /is not https/],
      ['an unreachable issuer', () => issuer.mint({ issuer: UNREACHABLE_ISSUER }), {}, 400, 'IDPCommunicationError', /Could not reach/],
      ['a role id that does not exist', () => issuer.mint(), { RoleArn: 'arn:aws:iam::000000000000:role/nope' }, 403, 'AccessDenied', /does not exist/],
      ['DurationSeconds 899', () => issuer.mint(), { DurationSeconds: '899' }, 400, 'ValidationError', /below the minimum of 900/],
      // configure-aws-credentials' inline-session-policy: ignoring it would grant more than was asked for.
      ['a session policy', () => issuer.mint(), { Policy: '{"Version":"2012-10-17","Statement":[]}' }, 400, 'ValidationError', /Session policies/],
    ];

    it.each(cases)('refuses %s', async (_, mint, extra, status, code, message) => {
      const token = await mint();
      const response = await postForm(gw.endpoint, '/', assumeForm(token, extra));
      expect({ status: response.status, code: errorCode(response.body) }).toEqual({ status, code });
      expect(response.body).toContain('<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">');
      expect(element(response.body, 'Message')).toMatch(message);
      expect(response.body).not.toContain(token.split('.')[1] || token);
    });

    it('never fetches an http:// jwks_uri', async () => {
      await postForm(gw.endpoint, '/', assumeForm(await issuer.mint({ issuer: issuer.httpJwksIssuer })));
      expect(issuer.fetches.httpJwks).toBe(0);
    });

    it('is read by the SDK as its modeled exceptions', async () => {
      const sts = new STSClient({ region: 'us-east-1', endpoint: gw.endpoint, maxAttempts: 1 });
      const send = async (options: MintOptions): Promise<unknown> =>
        sts.send(new AssumeRoleWithWebIdentityCommand({ RoleArn: ROLE_ARN, RoleSessionName: 'x', WebIdentityToken: await issuer.mint(options) })).catch((err: unknown) => err);
      expect(await send({ signer: 'none' })).toBeInstanceOf(InvalidIdentityTokenException);
      expect(await send({ at: Date.now() - 3_600_000 })).toBeInstanceOf(ExpiredTokenException);
      sts.destroy();
    });
  });

  describe('the JWKS cache', () => {
    it('fetches discovery and keys once for many exchanges, and refetches for unknown kids at most once', async () => {
      await postForm(gw.endpoint, '/', assumeForm(await issuer.mint()));
      const { discovery, jwks } = { ...issuer.fetches };
      for (let i = 0; i < 3; i++) expect((await postForm(gw.endpoint, '/', assumeForm(await issuer.mint()))).status).toBe(200);
      expect(issuer.fetches).toMatchObject({ discovery, jwks });
      for (let i = 0; i < 3; i++) await postForm(gw.endpoint, '/', assumeForm(await issuer.mint({ signer: 'unknown' })));
      expect(issuer.fetches.jwks - jwks).toBeLessThanOrEqual(1);
    });
  });

  describe('routing', () => {
    it('passes a form body over 64 KiB through to S3, unparsed', async () => {
      const token = await issuer.mint();
      const small = await postForm(gw.endpoint, '/', assumeForm(token, { Padding: 'x'.repeat(60 * 1024) }));
      expect(small.status).toBe(200);
      const large = await postForm(gw.endpoint, '/', assumeForm(token, { Padding: 'x'.repeat(64 * 1024) }));
      expect(large.status).toBe(501);
      expect(large.body).toMatch(/<Error><Code>NotImplemented<\/Code>/);
      expect(large.body).not.toContain('ErrorResponse');
    });

    it('passes a form body without a declared length through to S3, unparsed', async () => {
      const response = await rawRequest(gw.endpoint, {
        method: 'POST',
        target: '/',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked' },
        body: assumeForm(await issuer.mint()),
      });
      expect(response.status).toBe(501);
      expect(errorCode(response.body)).toBe('NotImplemented');
    });

    it('keeps a virtual bucket named sts listable while POST /sts/ is STS', async () => {
      const admin = jsClient(gw.endpoint, ADMIN);
      const listed = await admin.send(new ListObjectsV2Command({ Bucket: 'sts' }));
      admin.destroy();
      expect(listed.Contents?.map((o) => o.Key)).toEqual(['listing.txt']);
      expect((await postForm(gw.endpoint, '/sts/', assumeForm(await issuer.mint()))).status).toBe(200);
    });
  });

  describe('without SESSION_TOKEN_KEY', () => {
    it('warns, seals with a per-process key, and refuses tokens of another instance', async () => {
      const keyless = await startGateway(runtime, { config: config(), env: { NODE_EXTRA_CA_CERTS: issuer.caPath } });
      try {
        expect(keyless.logs()).toContain('SESSION_TOKEN_KEY is not set');
        const keys = await assumeWithSdk(keyless.endpoint);
        const own = jsClient(keyless.endpoint, keys);
        const out = await own.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'acme/widgets/build.txt' }));
        expect(await out.Body?.transformToString()).toBe('widgets build\n');
        own.destroy();
        const elsewhere = jsClient(gw.endpoint, keys);
        expect(await s3Code(elsewhere.send(new GetObjectCommand({ Bucket: 'artifacts', Key: 'acme/widgets/build.txt' })))).toBe('InvalidToken');
        elsewhere.destroy();
      } finally {
        await keyless.stop();
      }
    });
  });
});
