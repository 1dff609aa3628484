import { SignatureV4 } from '@smithy/signature-v4';
import { randomBytes } from 'node:crypto';
import { parseConfig } from '../../../functions/core/config/parse';
import { Gateway } from '../../../functions/core/gateway';
import type { Dispatch, ProxyRequest, ProxyResponse } from '../../../functions/core/http';
import { NodeSha256, smithySigner, type TestCredentials } from '../sigv4/smithy';
import { ISSUER, memoryIssuer, type MemoryIssuer } from './memory-issuer';
import { bucketToml, credentialToml, roleToml, s3Options } from '../../support/config-toml';

/**
 * The STS endpoint through Gateway.handle, as an adapter drives it (NeedsBody answered with the body), with
 * the clock frozen and the issuer in memory: AssumeRoleWithWebIdentity on every route, GetCallerIdentity,
 * and the temporary credentials on S3 requests up to and past their expiry.
 */
const ROLE_ARN = 'arn:aws:iam::000000000000:role/ci';
const SESSION_KEY = randomBytes(32).toString('base64');
const START = Date.UTC(2026, 5, 1, 12);
const ADMIN: TestCredentials = { accessKeyId: 'ADMINKEY000000000000', secretAccessKey: 'admin/secret/key/0000000000000000000000' };

const CONFIG = [
  bucketToml({ name: 'ci', backend_type: 's3' }, s3Options('http://127.0.0.1:9', 'ci', { accessKeyId: 'backend', secretAccessKey: 'backend-secret' })),
  credentialToml(ADMIN, { principal_name: 'admin' }, [{ bucket: '*', actions: ['get_object', 'list_bucket'] }]),
  roleToml(
    { role_id: ROLE_ARN, name: 'GitHub Actions', trusted_oidc_issuers: [ISSUER], subject_conditions: ['repo:acme/*:ref:refs/heads/main'], max_session_duration_secs: 7200 },
    [
      { bucket: 'ci', prefixes: ['{repository}/'], actions: ['get_object', 'head_object', 'list_bucket', 'put_object'] },
      { bucket: 'ci', prefixes: ['{no_such_claim}'], actions: ['get_object', 'put_object', 'delete_object'] },
    ],
  ),
].join('\n');

const FORM_TYPE = 'application/x-www-form-urlencoded; charset=utf-8';
let counter = 0;

function request(method: string, target: string, headers: Record<string, string> = {}, body = ''): { req: ProxyRequest; bytes: Uint8Array } {
  const q = target.indexOf('?');
  const bytes = new TextEncoder().encode(body);
  const all = new Headers({ host: 'gateway.test', ...headers });
  if (body !== '' && !all.has('content-length')) all.set('content-length', String(bytes.length));
  return {
    bytes,
    req: {
      method,
      requestId: `REQ${++counter}`,
      rawPath: q < 0 ? target : target.slice(0, q),
      rawQuery: q < 0 ? '' : target.slice(q + 1),
      headers: all,
      body: () => new ReadableStream({ start: (c) => (c.enqueue(bytes), c.close()) }),
    },
  };
}

/** Drives a dispatch as an adapter would; forwards are reported as a 200 with the backend URL as the body. */
async function run(gateway: Gateway, r: { req: ProxyRequest; bytes: Uint8Array }): Promise<ProxyResponse & { dispatches: string[] }> {
  const dispatches: string[] = [];
  let dispatch: Dispatch = await gateway.handle(r.req);
  while (dispatch.kind === 'needs-body') {
    dispatches.push(`needs-body:${dispatch.maxBytes}`);
    dispatch = r.bytes.length > dispatch.maxBytes ? dispatch.tooLarge() : await dispatch.withBody(r.bytes);
  }
  dispatches.push(dispatch.kind);
  if (dispatch.kind === 'forward') return { status: 200, headers: {}, body: dispatch.request.url, dispatches };
  return { ...dispatch.response, dispatches };
}

function text(response: ProxyResponse): string {
  return typeof response.body === 'string' ? response.body : '';
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&amp;': '&' };

/** The text of the first `<name>` element, unescaped. */
function element(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1].replace(/&(lt|gt|quot|apos|amp);/g, (e) => ENTITIES[e]);
}

function form(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

describe('STS through the Gateway', () => {
  let issuer: MemoryIssuer;
  let now: number;
  let gateway: Gateway;

  beforeEach(async () => {
    issuer = await memoryIssuer();
    now = START;
    gateway = new Gateway(parseConfig(CONFIG, { SESSION_TOKEN_KEY: SESSION_KEY }), { client: issuer.client, now: () => now });
  });

  async function assume(path = '/', extra: Record<string, string> = {}, token?: string): Promise<ProxyResponse & { dispatches: string[] }> {
    const body = form({
      Action: 'AssumeRoleWithWebIdentity',
      Version: '2011-06-15',
      RoleArn: ROLE_ARN,
      RoleSessionName: 'GitHubActions',
      WebIdentityToken: token ?? (await issuer.mint({ at: now })),
      ...extra,
    });
    return run(gateway, request('POST', path, { 'content-type': FORM_TYPE }, body));
  }

  async function credentials(extra: Record<string, string> = {}): Promise<TestCredentials> {
    const xml = text(await assume('/', extra));
    return { accessKeyId: element(xml, 'AccessKeyId')!, secretAccessKey: element(xml, 'SecretAccessKey')!, sessionToken: element(xml, 'SessionToken')! };
  }

  async function signedSts(keys: TestCredentials, path = '/', service = 'sts'): Promise<{ req: ProxyRequest; bytes: Uint8Array }> {
    const body = 'Action=GetCallerIdentity&Version=2011-06-15';
    const signer = new SignatureV4({ credentials: keys, region: 'us-east-1', service, sha256: NodeSha256 });
    const signed = await signer.sign(
      { method: 'POST', protocol: 'https:', hostname: 'gateway.test', path, headers: { host: 'gateway.test', 'content-type': FORM_TYPE }, body },
      { signingDate: new Date(now) },
    );
    return request('POST', path, signed.headers, body);
  }

  async function signedGet(keys: TestCredentials, key: string): Promise<{ req: ProxyRequest; bytes: Uint8Array }> {
    const signed = await smithySigner(keys, 'us-east-1').sign(
      { method: 'GET', protocol: 'https:', hostname: 'gateway.test', path: `/ci/${key}`, headers: { host: 'gateway.test', 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' } },
      { signingDate: new Date(now) },
    );
    return request('GET', `/ci/${key}`, signed.headers);
  }

  describe('AssumeRoleWithWebIdentity', () => {
    it.each(['/', '/.sts', '/.sts/', '/sts/'])('answers a form POST to %s after collecting at most 64 KiB', async (path) => {
      const response = await assume(path);
      expect(response.dispatches).toEqual(['needs-body:65536', 'response']);
      expect(response.status).toBe(200);
      expect(element(text(response), 'AccessKeyId')).toMatch(/^ASIA[A-Z2-7]{16}$/);
    });

    it('answers a GET with the parameters in the query', async () => {
      const query = form({ Action: 'AssumeRoleWithWebIdentity', RoleArn: ROLE_ARN, WebIdentityToken: await issuer.mint({ at: now }) });
      const response = await run(gateway, request('GET', `/?${query}`));
      expect(response.dispatches).toEqual(['response']);
      expect(response.status).toBe(200);
    });

    it('returns the STS document configure-aws-credentials and the SDKs read', async () => {
      const response = await assume();
      const xml = text(response);
      expect(response.headers['content-type']).toBe('text/xml');
      expect(xml).toContain('<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">');
      expect(element(xml, 'Arn')).toBe('arn:aws:sts::000000000000:assumed-role/ci/repo:acme/widgets:ref:refs/heads/main');
      expect(element(xml, 'AssumedRoleId')).toBe('ci:repo:acme/widgets:ref:refs/heads/main');
      expect(element(xml, 'SubjectFromWebIdentityToken')).toBe('repo:acme/widgets:ref:refs/heads/main');
      expect(element(xml, 'Audience')).toBe('sts.amazonaws.com');
      expect(element(xml, 'Provider')).toBe(ISSUER);
      expect(element(xml, 'Expiration')).toBe('2026-06-01T13:00:00Z');
      expect(element(xml, 'SecretAccessKey')).toMatch(/^[A-Za-z0-9+/]{40}$/);
      expect(element(xml, 'RequestId')).toBe(response.headers['x-amzn-requestid']);
    });

    it('caps DurationSeconds at the role maximum', async () => {
      expect(element(text(await assume('/', { DurationSeconds: '43200' })), 'Expiration')).toBe('2026-06-01T14:00:00Z');
      expect(element(text(await assume('/', { DurationSeconds: '900' })), 'Expiration')).toBe('2026-06-01T12:15:00Z');
    });

    it('fetches the issuer keys once for many calls (cache per Gateway)', async () => {
      await assume();
      await assume();
      await assume('/.sts/');
      expect(issuer.count('jwks')).toBe(1);
      expect(issuer.count('discovery')).toBe(1);
    });

    it.each<[string, Record<string, string>, () => Promise<string | undefined>, number, string, RegExp]>([
      ['an unknown role', { RoleArn: 'arn:aws:iam::000000000000:role/nope' }, async () => undefined, 403, 'AccessDenied', /does not exist/],
      ['DurationSeconds 899', { DurationSeconds: '899' }, async () => undefined, 400, 'ValidationError', /below the minimum of 900/],
      ['a missing token', { WebIdentityToken: '' }, async () => undefined, 400, 'ValidationError', /WebIdentityToken/],
      ['a wrong audience', {}, () => issuer.mint({ at: START, claims: { aud: 'api://other' } }), 403, 'AccessDenied', /aud \["api:\/\/other"\]/],
      ['a subject outside the conditions', {}, () => issuer.mint({ at: START, claims: { sub: 'repo:evil/x:ref:refs/heads/main' } }), 403, 'AccessDenied', /sub "repo:evil\/x/],
      ['an expired token', {}, () => issuer.mint({ at: START - 3_600_000 }), 400, 'ExpiredTokenException', /expired/],
      ['alg none', {}, () => issuer.mint({ at: START, signer: 'none' }), 400, 'InvalidIdentityToken', /alg "none"/],
    ])('refuses %s', async (_, extra, token, status, code, message) => {
      const response = await assume('/', extra, await token());
      expect(response.status).toBe(status);
      const xml = text(response);
      expect(xml).toContain('<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">');
      expect(element(xml, 'Code')).toBe(code);
      expect(element(xml, 'Type')).toBe('Sender');
      expect(element(xml, 'Message')).toMatch(message);
    });

    it('escapes what it echoes', async () => {
      const response = await assume('/', { RoleArn: '<x>&"' });
      expect(text(response)).toContain('Role &quot;&lt;x&gt;&amp;\\&quot;&quot; does not exist');
    });

    it('refuses to issue tokens without a session key', async () => {
      const keyless = new Gateway(parseConfig(CONFIG), { client: issuer.client, now: () => now });
      const body = form({ Action: 'AssumeRoleWithWebIdentity', RoleArn: ROLE_ARN, WebIdentityToken: await issuer.mint({ at: now }) });
      const response = await run(keyless, request('POST', '/', { 'content-type': FORM_TYPE }, body));
      expect(response.status).toBe(500);
      expect(element(text(response), 'Code')).toBe('InternalFailure');
      expect(element(text(response), 'Type')).toBe('Receiver');
    });
  });

  describe('routing', () => {
    it('passes a form body over 64 KiB to S3 untouched', async () => {
      const body = form({ Action: 'AssumeRoleWithWebIdentity', RoleArn: ROLE_ARN, WebIdentityToken: await issuer.mint({ at: now }), Pad: 'x'.repeat(65_536) });
      const response = await run(gateway, request('POST', '/', { 'content-type': FORM_TYPE }, body));
      expect(response.dispatches).toEqual(['response']);
      expect(response.status).toBe(501);
      expect(text(response)).toMatch(/^<\?xml[^>]*>\n<Error><Code>NotImplemented<\/Code>/);
    });

    it('replays a small form without Action on a shared path to S3', async () => {
      const response = await run(gateway, request('POST', '/sts/', { 'content-type': FORM_TYPE }, 'a=b'));
      expect(response.dispatches).toEqual(['needs-body:65536', 'response']);
      // S3 reads it as a form upload (PostObject) to a bucket named `sts`, which this gateway does not have.
      expect(element(text(response), 'Code')).toBe('NoSuchBucket');
    });

    it('answers a form without Action on the dedicated path as STS', async () => {
      const response = await run(gateway, request('POST', '/.sts/', { 'content-type': FORM_TYPE }, 'a=b'));
      expect(response.status).toBe(400);
      expect(element(text(response), 'Code')).toBe('InvalidAction');
    });

    it('names STS actions it does not serve, and unknown ones', async () => {
      const assumeRole = await run(gateway, request('POST', '/?Action=AssumeRole'));
      expect(element(text(assumeRole), 'Message')).toMatch(/AssumeRole is not served by this gateway/);
      expect(element(text(await run(gateway, request('GET', '/.sts?Action=Nope'))), 'Code')).toBe('InvalidAction');
    });

    it('keeps GET / as ListBuckets', async () => {
      const signed = await smithySigner(ADMIN, 'us-east-1').sign(
        { method: 'GET', protocol: 'https:', hostname: 'gateway.test', path: '/', headers: { host: 'gateway.test', 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' } },
        { signingDate: new Date(now) },
      );
      expect(text(await run(gateway, request('GET', '/', signed.headers)))).toContain('<ListAllMyBucketsResult');
    });
  });

  describe('GetCallerIdentity', () => {
    it.each(['/', '/.sts/', '/sts/'])('names the session signed with the temporary credentials on %s', async (path) => {
      const response = await run(gateway, await signedSts(await credentials(), path));
      expect(response.status).toBe(200);
      const xml = text(response);
      expect(xml).toContain('<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">');
      expect(element(xml, 'Arn')).toBe('arn:aws:sts::000000000000:assumed-role/ci/repo:acme/widgets:ref:refs/heads/main');
      expect(element(xml, 'UserId')).toBe('ci:repo:acme/widgets:ref:refs/heads/main');
      expect(element(xml, 'Account')).toBe('000000000000');
    });

    it('refuses, STS-shaped with 403, without a session token, with a bad signature, or scoped to s3', async () => {
      const keys = await credentials();
      const cases: [Promise<{ req: ProxyRequest; bytes: Uint8Array }>, string][] = [
        [Promise.resolve(request('POST', '/', { 'content-type': FORM_TYPE }, 'Action=GetCallerIdentity')), 'MissingAuthenticationToken'],
        [signedSts(ADMIN), 'InvalidClientTokenId'],
        [signedSts({ ...keys, secretAccessKey: 'wrong' }), 'SignatureDoesNotMatch'],
        [signedSts({ ...keys, accessKeyId: 'ASIAOTHERKEY00000000' }), 'InvalidClientTokenId'],
        [signedSts(keys, '/', 's3'), 'SignatureDoesNotMatch'],
      ];
      for (const [req, code] of cases) {
        const response = await run(gateway, await req);
        expect({ code, status: response.status, got: element(text(response), 'Code') }).toEqual({ code, status: 403, got: code });
        expect(text(response)).toContain('<ErrorResponse');
      }
    });

    it('refuses expired credentials', async () => {
      const keys = await credentials({ DurationSeconds: '900' });
      now += 900_000;
      const response = await run(gateway, await signedSts(keys));
      expect(response.status).toBe(403);
      expect(element(text(response), 'Code')).toBe('ExpiredToken');
    });
  });

  describe('S3 with temporary credentials', () => {
    it('allows reads inside the templated prefix only', async () => {
      const keys = await credentials();
      expect((await run(gateway, await signedGet(keys, 'acme/widgets/build.txt'))).dispatches).toEqual(['forward']);
      const outside = await run(gateway, await signedGet(keys, 'acme/other/build.txt'));
      expect([outside.status, element(text(outside), 'Code')]).toEqual([403, 'AccessDenied']);
    });

    it('does not turn a scope of a missing claim into a whole-bucket grant', async () => {
      const outside = await run(gateway, await signedGet(await credentials(), 'top-level.txt'));
      expect(element(text(outside), 'Code')).toBe('AccessDenied');
    });

    it('refuses them from their expiry on with ExpiredToken', async () => {
      const keys = await credentials({ DurationSeconds: '900' });
      now += 899_000;
      expect((await run(gateway, await signedGet(keys, 'acme/widgets/build.txt'))).dispatches).toEqual(['forward']);
      now += 1_000;
      const expired = await run(gateway, await signedGet(keys, 'acme/widgets/build.txt'));
      expect([expired.status, element(text(expired), 'Code')]).toEqual([400, 'ExpiredToken']);
    });

    it('refuses a tampered token, and a token presented with another access key, as InvalidToken', async () => {
      const keys = await credentials();
      const other = await credentials();
      const token = keys.sessionToken!;
      const tampered = token.slice(0, 20) + (token[20] === 'A' ? 'B' : 'A') + token.slice(21);
      for (const attempt of [{ ...keys, sessionToken: tampered }, { ...keys, sessionToken: other.sessionToken }]) {
        const response = await run(gateway, await signedGet(attempt, 'acme/widgets/build.txt'));
        expect([response.status, element(text(response), 'Code')]).toEqual([400, 'InvalidToken']);
      }
    });
  });
});
