/**
 * The gateway as its own OIDC identity provider, federated with a real token service: Ceph RGW's STS.
 *
 * Per runtime: the gateway gets a port before it starts (its URL is its issuer), an RSA key and a
 * self-signed certificate made with openssl, and is registered in RGW as an OpenID Connect provider (by
 * the certificate's thumbprint) trusted by roles whose trust policies name its issuer, subjects and
 * audience. Buckets with `auth_type = "oidc"` then reach RGW with no backend key in the configuration.
 *
 * RGW's STS is reached through a transparent loopback relay (support/sts-relay.ts) that records each
 * AssumeRoleWithWebIdentity, so exchanges are counted at the token service, and that can hold exchanges
 * or stop listening. The whole write path (PUT, multipart, CopyObject, DeleteObjects) signs through the
 * same S3Store.sign, so each operation is shown against RGW with the exchanged credentials; parts of 5 MiB
 * (RGW's minimum for all but the last part) are shown where the runtime's request limit lets them pass.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
  type S3ServiceException,
} from '@aws-sdk/client-s3';
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { awsCli, jsClient, type Keys } from '../support/clients';
import { freePort, reportedLength, runGatewayExpectingFailure, RUNTIME_LIMITS, startGateway, TRANSPORT_RUNTIMES, type RunningGateway, type RuntimeName } from '../support/gateway';
import { generateProviderKey, type ProviderKeyPem } from '../support/provider-key';
import { errorCode, rawRequest } from '../support/raw-request';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';
import { createOpenIdConnectProvider, createRole, putRolePolicy, updateAssumeRolePolicy, webIdentityTrustPolicy } from '../support/rgw-iam';
import { startStsRelay, type StsRelay } from '../support/sts-relay';
import { ADMIN, ADMIN_CREDENTIALS } from './fixtures';

const AUDIENCE = 'sts.amazonaws.com';
/** Subjects the main role trusts; each bucket below exchanges as one, so each has its own cache entry. */
const SUBJECTS = ['s3-proxy', 'burst', 'renew', 'outage'];
/** RGW issues 900 s credentials; renewing 894 s ahead makes a renewal due 6 s after each exchange. */
const SESSION_SECONDS = 900;
const REFRESH_AHEAD_SECONDS = 894;
const MiB = 1024 * 1024;
/** May delete only under `del/mine/` in `fed` (and nothing else): DeleteObjects refuses its other keys. */
const LIMITED: Keys = { accessKeyId: 'LIMITEDKEY0000000000', secretAccessKey: 'limited/secret/key/00000000000000000000' };
const sha = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

let rgw: Rgw;
let relay: StsRelay;
let key: ProviderKeyPem;
let direct: S3Client;

beforeAll(() => {
  key = generateProviderKey();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The gateway's oidc-exchange log events. */
function exchangeEvents(gw: RunningGateway): Array<Record<string, unknown>> {
  return gw
    .logs()
    .split('\n')
    .filter((line) => line.includes('"event":"oidc-exchange"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function oidcBucket(name: string, roleArn: string, subject?: string): string {
  return `
[[buckets]]
name = "${name}"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "${rgw.endpoint}"
bucket_name = "fed"
region = "us-east-1"
auth_type = "oidc"
oidc_role_arn = "${roleArn}"
oidc_sts_endpoint = "${relay.endpoint}"
${subject ? `oidc_subject = "${subject}"` : ''}
`;
}

describe.each(TRANSPORT_RUNTIMES)('the gateway as OIDC identity provider, federated with Ceph RGW (%s runtime)', (runtime: RuntimeName) => {
  // A fresh RGW and relay per runtime: the specifications count exchanges, so runtimes must not share them.
  beforeAll(async () => {
    rgw = await startRgw({ sts: true });
    relay = await startStsRelay(rgw.endpoint);
    await createBucket(rgw, 'fed');
    direct = rgwS3Client(rgw);
    await direct.send(new PutObjectCommand({ Bucket: 'fed', Key: 'hello.txt', Body: 'hello from RGW\n' }));
  }, 120_000);

  afterAll(async () => {
    direct?.destroy();
    await relay?.close();
    await rgw?.stop();
  });

  let gw: RunningGateway;
  let issuer: string;
  let flakyRole: string;
  let config: string;
  let admin: S3Client;

  beforeAll(async () => {
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    await createOpenIdConnectProvider(rgw, issuer, [AUDIENCE], [key.thumbprint]);
    const role = await createRole(rgw, `gateway-${runtime}`, webIdentityTrustPolicy(issuer, SUBJECTS, AUDIENCE));
    flakyRole = await createRole(rgw, `flaky-${runtime}`, webIdentityTrustPolicy(issuer, ['nobody'], AUDIENCE));
    const everything = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['s3:*'], Resource: ['arn:aws:s3:::*'] }] };
    await putRolePolicy(rgw, `gateway-${runtime}`, 's3', everything);
    await putRolePolicy(rgw, `flaky-${runtime}`, 's3', everything);
    config = [
      oidcBucket('fed', role),
      oidcBucket('burst', role, 'burst'),
      oidcBucket('renew', role, 'renew'),
      oidcBucket('outage', role, 'outage'),
      oidcBucket('flaky', flakyRole, 'flaky'),
      `
${ADMIN_CREDENTIALS}
[[credentials]]
access_key_id = "${LIMITED.accessKeyId}"
secret_access_key = "${LIMITED.secretAccessKey}"
principal_name = "limited"
[[credentials.allowed_scopes]]
bucket = "fed"
prefixes = ["del/mine/"]
actions = ["delete_object"]
`,
    ].join('\n');
    gw = await startGateway(runtime, {
      config,
      port,
      env: {
        // PKCS#1 on purpose: the form Web Crypto cannot import directly.
        OIDC_PROVIDER_KEY: key.pkcs1,
        OIDC_PROVIDER_ISSUER: issuer,
        OIDC_PROVIDER_CERT: key.cert,
        OIDC_SESSION_DURATION_SECONDS: String(SESSION_SECONDS),
        OIDC_REFRESH_AHEAD_SECONDS: String(REFRESH_AHEAD_SECONDS),
      },
    });
    admin = jsClient(gw.endpoint, ADMIN);
  }, 60_000);

  afterAll(async () => {
    admin?.destroy();
    await gw?.stop();
  });

  describe('discovery', () => {
    it('serves the OpenID configuration for its issuer, cacheable', async () => {
      const response = await fetch(`${issuer}/.well-known/openid-configuration`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/);
      expect(await response.json()).toMatchObject({
        issuer,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    });

    it('serves the JWKS with the key and its certificate (x5c, whose thumbprint RGW trusts)', async () => {
      const response = await fetch(`${issuer}/.well-known/jwks.json`);
      expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/);
      const { keys } = (await response.json()) as { keys: Array<{ kty: string; alg: string; use: string; kid: string; n: string; e: string; x5c: string[] }> };
      expect(keys).toHaveLength(1);
      expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', e: 'AQAB' });
      const cert = new X509Certificate(Buffer.from(keys[0].x5c[0], 'base64'));
      expect(cert.fingerprint.replace(/:/g, '').toLowerCase()).toBe(key.thumbprint);
    });
  });

  describe('an auth_type = "oidc" bucket on RGW, with no backend key configured', () => {
    it('has no static backend credential anywhere in the configuration', () => {
      expect(config).not.toContain(rgw.accessKeyId);
      expect(config).not.toContain(rgw.secretAccessKey);
    });

    it('serves an anonymous GET through credentials exchanged at RGW’s STS', async () => {
      const out = await jsClient(gw.endpoint).send(new GetObjectCommand({ Bucket: 'fed', Key: 'hello.txt' }));
      expect(await out.Body?.transformToString()).toBe('hello from RGW\n');
      expect(relay.count('s3-proxy')).toBe(1);
    });

    it('presented a token that verifies against the published JWKS, with the decided claims', async () => {
      const [exchange] = relay.exchanges.filter((e) => e.claims.sub === 's3-proxy' && e.claims.iss === issuer);
      const { payload, protectedHeader } = await jwtVerify(exchange.token, createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`)), {
        issuer,
        audience: AUDIENCE,
        algorithms: ['RS256'],
      });
      const jwks = (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };
      expect(protectedHeader).toMatchObject({ alg: 'RS256', kid: jwks.keys[0].kid });
      expect(decodeProtectedHeader(exchange.token).kid).toBe(jwks.keys[0].kid);
      expect(payload).toMatchObject({ iss: issuer, sub: 's3-proxy', aud: AUDIENCE, jti: expect.any(String) });
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(300);
      expect(payload.nbf).toBe(payload.iat);
      expect(exchange).toMatchObject({ roleSessionName: 's3-proxy', durationSeconds: String(SESSION_SECONDS), status: 200 });
    });

    it('writes, heads, lists and deletes for a keyed client; RGW holds exactly what was sent', async () => {
      const body = `written through the gateway by ${runtime}`;
      // RGW makes the role session the object's owner; the ACL lets the bucket's owner (the direct client) read it.
      await admin.send(
        new PutObjectCommand({ Bucket: 'fed', Key: `put/${runtime}.txt`, Body: body, ContentType: 'text/plain', ACL: 'bucket-owner-full-control' }),
      );
      const through = await admin.send(new GetObjectCommand({ Bucket: 'fed', Key: `put/${runtime}.txt` }));
      expect(await through.Body?.transformToString()).toBe(body);
      const stored = await direct.send(new GetObjectCommand({ Bucket: 'fed', Key: `put/${runtime}.txt` }));
      expect(await stored.Body?.transformToString()).toBe(body);
      expect(stored.ContentType).toBe('text/plain');

      const head = await admin.send(new HeadObjectCommand({ Bucket: 'fed', Key: `put/${runtime}.txt` }));
      expect(head.ContentLength).toBe(reportedLength(runtime, Buffer.byteLength(body)));
      const listed = await admin.send(new ListObjectsV2Command({ Bucket: 'fed', Prefix: 'put/' }));
      expect(listed.Contents?.map((c) => c.Key)).toContain(`put/${runtime}.txt`);

      await admin.send(new DeleteObjectCommand({ Bucket: 'fed', Key: `put/${runtime}.txt` }));
      const after = await direct.send(new ListObjectsV2Command({ Bucket: 'fed', Prefix: `put/${runtime}` }));
      expect(after.KeyCount).toBe(0);
    });

    /** RGW makes the role session the owner of what it writes; this ACL lets the bucket's owner (`direct`) read it. */
    const OWNER_READS = 'bucket-owner-full-control' as const;
    const readDirect = async (key: string): Promise<Buffer> =>
      Buffer.from((await (await direct.send(new GetObjectCommand({ Bucket: 'fed', Key: key }))).Body?.transformToByteArray()) ?? []);
    const limit = RUNTIME_LIMITS[runtime].maxRequestBodyBytes;

    it('completes a single-part multipart upload (one small part is allowed: it is the last)', async () => {
      const key = `multipart/${runtime}/single.txt`;
      const body = Buffer.from(`one small part, uploaded by ${runtime}`);
      const created = await admin.send(new CreateMultipartUploadCommand({ Bucket: 'fed', Key: key, ContentType: 'text/plain', ACL: OWNER_READS }));
      expect(created).toMatchObject({ Bucket: 'fed', Key: key });
      const part = await admin.send(new UploadPartCommand({ Bucket: 'fed', Key: key, UploadId: created.UploadId, PartNumber: 1, Body: body }));
      const listed = await admin.send(new ListPartsCommand({ Bucket: 'fed', Key: key, UploadId: created.UploadId }));
      expect(listed.Parts?.map((p) => [p.PartNumber, p.Size])).toEqual([[1, body.length]]);
      const done = await admin.send(
        new CompleteMultipartUploadCommand({ Bucket: 'fed', Key: key, UploadId: created.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] } }),
      );
      expect(done.ETag).toMatch(/^"[0-9a-f]{32}-1"$/);
      expect((await readDirect(key)).equals(body)).toBe(true);
      const head = await direct.send(new HeadObjectCommand({ Bucket: 'fed', Key: key }));
      expect(head.ContentType).toBe('text/plain');
    });

    if (limit === undefined) {
      it('completes a 5 MiB + 1 KiB multipart upload in two parts (RGW\'s 5 MiB minimum for the first)', async () => {
        const key = `multipart/${runtime}/two-parts.bin`;
        const body = randomBytes(5 * MiB + 1024);
        const created = await admin.send(new CreateMultipartUploadCommand({ Bucket: 'fed', Key: key, ACL: OWNER_READS }));
        const parts = [];
        for (const [n, slice] of [[1, body.subarray(0, 5 * MiB)], [2, body.subarray(5 * MiB)]] as const) {
          const out = await admin.send(new UploadPartCommand({ Bucket: 'fed', Key: key, UploadId: created.UploadId, PartNumber: n, Body: slice }));
          parts.push({ PartNumber: n, ETag: out.ETag });
        }
        const done = await admin.send(new CompleteMultipartUploadCommand({ Bucket: 'fed', Key: key, UploadId: created.UploadId, MultipartUpload: { Parts: parts } }));
        expect(done.ETag).toMatch(/^"[0-9a-f]{32}-2"$/);
        expect(sha(await readDirect(key))).toBe(sha(body));
      });
    } else {
      it(`refuses a 5 MiB part above the runtime's ${(limit / MiB).toFixed(2)} MiB request limit with the front's 413; RGW holds no part`, async () => {
        const key = `multipart/${runtime}/two-parts.bin`;
        const created = await admin.send(new CreateMultipartUploadCommand({ Bucket: 'fed', Key: key, ACL: OWNER_READS }));
        const refused = await admin
          .send(new UploadPartCommand({ Bucket: 'fed', Key: key, UploadId: created.UploadId, PartNumber: 1, Body: randomBytes(5 * MiB) }))
          .then(() => undefined, (err: unknown) => err as S3ServiceException);
        expect(refused?.$metadata?.httpStatusCode).toBe(413);
        const listed = await admin.send(new ListPartsCommand({ Bucket: 'fed', Key: key, UploadId: created.UploadId }));
        expect(listed.Parts ?? []).toEqual([]);
        await admin.send(new AbortMultipartUploadCommand({ Bucket: 'fed', Key: key, UploadId: created.UploadId }));
        const after = await direct.send(new ListObjectsV2Command({ Bucket: 'fed', Prefix: key }));
        expect(after.KeyCount).toBe(0);
      });
    }

    it('copies within the bucket, from an object the bucket owner wrote and from one the role session wrote', async () => {
      await admin.send(new CopyObjectCommand({ Bucket: 'fed', Key: `copy/${runtime}/hello.txt`, CopySource: 'fed/hello.txt', ACL: OWNER_READS }));
      expect((await readDirect(`copy/${runtime}/hello.txt`)).toString()).toBe('hello from RGW\n');
      await admin.send(new PutObjectCommand({ Bucket: 'fed', Key: `copy/${runtime}/source.txt`, Body: 'session-owned source', ACL: OWNER_READS }));
      await admin.send(
        new CopyObjectCommand({
          Bucket: 'fed',
          Key: `copy/${runtime}/target.txt`,
          CopySource: `fed/copy/${runtime}/source.txt`,
          MetadataDirective: 'REPLACE',
          ContentType: 'text/x-copied',
          ACL: OWNER_READS,
        }),
      );
      expect((await readDirect(`copy/${runtime}/target.txt`)).toString()).toBe('session-owned source');
      expect((await direct.send(new HeadObjectCommand({ Bucket: 'fed', Key: `copy/${runtime}/target.txt` }))).ContentType).toBe('text/x-copied');
    });

    it('DeleteObjects deletes the keys the caller may delete; the others are AccessDenied entries and stay on RGW', async () => {
      const mine = [`del/mine/${runtime}/a.txt`, `del/mine/${runtime}/b c.txt`];
      const theirs = `del/theirs/${runtime}/c.txt`;
      for (const key of [...mine, theirs]) await direct.send(new PutObjectCommand({ Bucket: 'fed', Key: key, Body: key }));
      const limited = jsClient(gw.endpoint, LIMITED);
      try {
        const out = await limited.send(new DeleteObjectsCommand({ Bucket: 'fed', Delete: { Objects: [...mine, theirs].map((Key) => ({ Key })) } }));
        expect(out.Deleted?.map((d) => d.Key).sort()).toEqual([...mine].sort());
        expect(out.Errors?.map((e) => [e.Key, e.Code])).toEqual([[theirs, 'AccessDenied']]);
      } finally {
        limited.destroy();
      }
      const left = await direct.send(new ListObjectsV2Command({ Bucket: 'fed', Prefix: 'del/' }));
      expect(left.Contents?.map((c) => c.Key).filter((k) => k?.includes(`/${runtime}/`))).toEqual([theirs]);
      // A keyed client allowed everywhere deletes the rest the same way.
      const all = await admin.send(new DeleteObjectsCommand({ Bucket: 'fed', Delete: { Objects: [{ Key: theirs }] } }));
      expect(all.Deleted?.map((d) => d.Key)).toEqual([theirs]);
      expect((await direct.send(new ListObjectsV2Command({ Bucket: 'fed', Prefix: `del/theirs/${runtime}/` }))).KeyCount).toBe(0);
    });

    it('lists for an anonymous aws-cli', async () => {
      const cli = await awsCli('v2', gw.endpoint, undefined, ['s3', 'ls', 's3://fed/']);
      expect(cli.stderr).toBe('');
      expect(cli.stdout).toContain('hello.txt');
    });

    it('serves request after request from the cached credential: the cache lives as long as the process (the isolate on the edge)', async () => {
      const before = relay.count('s3-proxy');
      for (let i = 0; i < 10; i++) expect((await rawRequest(gw.endpoint, { method: 'GET', target: '/fed/hello.txt' })).status).toBe(200);
      // A renewal falls due 6 s after each exchange (REFRESH_AHEAD_SECONDS), so one may happen; a cache that
      // did not outlive its request would have exchanged ten times.
      expect(relay.count('s3-proxy') - before).toBeLessThanOrEqual(1);
    });

    it('still refuses anonymous writes: federation changes how the gateway signs, not who may write', async () => {
      const answer = await rawRequest(gw.endpoint, { method: 'PUT', target: '/fed/anonymous.txt', body: 'x' });
      expect(answer.status).toBe(403);
      expect(errorCode(answer.body)).toBe('AccessDenied');
    });
  });

  describe('the credential cache, observed at the token service', () => {
    it('makes exactly one exchange for 50 concurrent requests on a cold cache', async () => {
      expect(relay.count('burst')).toBe(0);
      const client = jsClient(gw.endpoint);
      try {
        const bodies = await Promise.all(
          Array.from({ length: 50 }, async () => (await client.send(new GetObjectCommand({ Bucket: 'burst', Key: 'hello.txt' }))).Body?.transformToString()),
        );
        expect(new Set(bodies)).toEqual(new Set(['hello from RGW\n']));
      } finally {
        client.destroy();
      }
      expect(relay.count('burst')).toBe(1);
    });

    it('renews once after the refresh margin, while the old credential keeps serving', async () => {
      const get = async (): Promise<number> => (await rawRequest(gw.endpoint, { method: 'GET', target: '/renew/hello.txt' })).status;
      expect(await get()).toBe(200);
      const issuedAt = Date.now();
      expect(relay.count('renew')).toBe(1);

      relay.hold();
      try {
        await sleep(Math.max(0, issuedAt + (SESSION_SECONDS - REFRESH_AHEAD_SECONDS) * 1000 + 500 - Date.now()));
        // Due for renewal: this request starts it, and is answered with the old credential meanwhile.
        expect(await get()).toBe(200);
        await waitFor(() => relay.count('renew') === 2, 'the renewal to reach the token service');
        expect(await Promise.all(Array.from({ length: 10 }, get))).toEqual(Array(10).fill(200));
        expect(relay.count('renew')).toBe(2);
      } finally {
        relay.release();
      }
      await waitFor(() => relay.exchanges.filter((e) => e.claims.sub === 'renew').every((e) => e.status === 200), 'the renewal to complete');
      expect(await get()).toBe(200);
      expect(relay.count('renew')).toBe(2);
    }, 30_000);
  });

  describe('token service failures', () => {
    it('a refused exchange gives 403 AccessDenied and is logged with the role and code; once trusted, the next request succeeds', async () => {
      const refused = await rawRequest(gw.endpoint, { method: 'GET', target: '/flaky/hello.txt' });
      expect(refused.status).toBe(403);
      expect(errorCode(refused.body)).toBe('AccessDenied');
      // The gateway's log reaches this process through a pipe (on the edge, through miniflare's): wait for the line.
      await waitFor(() => exchangeEvents(gw).some((e) => e.outcome === 'refused' && e.role === flakyRole), 'the refused exchange to be logged');
      expect(exchangeEvents(gw)).toContainEqual(expect.objectContaining({ outcome: 'refused', role: flakyRole, code: 'AccessDenied', status: 403 }));

      await updateAssumeRolePolicy(rgw, `flaky-${runtime}`, webIdentityTrustPolicy(issuer, ['flaky'], AUDIENCE));
      const trusted = await rawRequest(gw.endpoint, { method: 'GET', target: '/flaky/hello.txt' });
      expect(trusted.status).toBe(200);
      expect(trusted.body).toBe('hello from RGW\n');
    });

    it('a stopped token service gives 503 ServiceUnavailable; after recovery the next request succeeds', async () => {
      await relay.stop();
      try {
        const down = await rawRequest(gw.endpoint, { method: 'GET', target: '/outage/hello.txt' });
        expect(down.status).toBe(503);
        expect(errorCode(down.body)).toBe('ServiceUnavailable');
        const code = RUNTIME_LIMITS[runtime].refusedConnectionCode ?? 'ECONNREFUSED';
        await waitFor(() => exchangeEvents(gw).some((e) => e.outcome === 'unreachable' && e.subject === 'outage'), 'the failed exchange to be logged');
        expect(exchangeEvents(gw)).toContainEqual(expect.objectContaining({ outcome: 'unreachable', subject: 'outage', code }));
      } finally {
        await relay.start();
      }
      const up = await rawRequest(gw.endpoint, { method: 'GET', target: '/outage/hello.txt' });
      expect(up.status).toBe(200);
    });

    it('never logs the token, the temporary credentials or the key', () => {
      const logs = gw.logs();
      for (const exchange of relay.exchanges) expect(logs).not.toContain(exchange.token);
      expect(logs).not.toMatch(/SessionToken|SecretAccessKey|BEGIN (RSA )?PRIVATE KEY/);
    });
  });
});

describe.each(TRANSPORT_RUNTIMES)('discovery and start-up without a usable identity provider (%s runtime)', (runtime: RuntimeName) => {
  it('does not serve the discovery endpoints without OIDC_PROVIDER_ISSUER: /.well-known is an unknown bucket', async () => {
    const gw = await startGateway(runtime, { config: '', env: { OIDC_PROVIDER_KEY: key.pkcs8 } });
    try {
      for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json']) {
        const answer = await rawRequest(gw.endpoint, { method: 'GET', target: path });
        expect(answer.status).toBe(404);
        expect(errorCode(answer.body)).toBe('NoSuchBucket');
      }
    } finally {
      await gw.stop();
    }
  });

  const oidcOn = (type: string, options: string): string =>
    `[[buckets]]\nname = "b"\nbackend_type = "${type}"\n[buckets.backend_options]\n${options}\nauth_type = "oidc"\noidc_role_arn = "arn:aws:iam::1:role/r"\n`;

  it.each([
    ['an unreadable OIDC_PROVIDER_KEY', () => ({ OIDC_PROVIDER_KEY: 'not a key', OIDC_PROVIDER_ISSUER: 'http://127.0.0.1:1' }), '', 'environment OIDC_PROVIDER_KEY: is not PEM'],
    [
      'an OIDC_PROVIDER_CERT for another key',
      () => ({ OIDC_PROVIDER_KEY: key.pkcs8, OIDC_PROVIDER_ISSUER: 'http://127.0.0.1:1', OIDC_PROVIDER_CERT: generateProviderKey().cert }),
      '',
      'environment OIDC_PROVIDER_CERT: the certificate is for a different key than OIDC_PROVIDER_KEY',
    ],
    ['an oidc bucket without OIDC_PROVIDER_KEY and OIDC_PROVIDER_ISSUER', () => ({}), oidcOn('s3', ''), '"oidc" needs OIDC_PROVIDER_KEY and OIDC_PROVIDER_ISSUER'],
    [
      'auth_type = "oidc" on an azure bucket',
      () => ({ OIDC_PROVIDER_KEY: key.pkcs8, OIDC_PROVIDER_ISSUER: 'http://127.0.0.1:1' }),
      oidcOn('azure', 'account_name = "a"\ncontainer_name = "c"'),
      'auth_type is only supported for s3 backends',
    ],
  ])('refuses to start with %s', async (_, env, config, message) => {
    const { code, output } = await runGatewayExpectingFailure(runtime, { config, env: env() });
    expect(code).toBe(1);
    expect(output).toContain(message);
    expect(output).not.toContain('BEGIN PRIVATE KEY');
  });
});
