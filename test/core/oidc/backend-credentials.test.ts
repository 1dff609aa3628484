/**
 * The Gateway as an identity provider, driven through `handle` with a recording backend client and a fake
 * token exchange: discovery routing, federated credentials in every backend signature, and how token
 * service failures reach the client and the log. (The real token service is exercised in e2e/oidc.test.ts.)
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { ConfigError, parseConfig } from '../../../functions/core/config/parse';
import { Gateway, type GatewayDeps } from '../../../functions/core/gateway';
import type { BackendRequest, ProxyRequest } from '../../../functions/core/http';
import { TokenServiceError, type TokenExchange, type WebIdentityRequest } from '../../../functions/core/oidc/exchange';
import { generateProviderKey, type ProviderKeyPem } from '../../support/provider-key';
import { bodyText, responseOf, targetRequest } from '../../support/proxy-request';

const ISSUER = 'https://gateway.example.com';
const NOW = Date.UTC(2030, 0, 1, 12);
const ROLE = 'arn:aws:iam::123456789012:role/gateway';

let key: ProviderKeyPem;
beforeAll(() => {
  key = generateProviderKey();
});

const CONFIG = `
[[buckets]]
name = "fed"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "https://s3.eu-west-1.amazonaws.com"
bucket_name = "real-bucket"
region = "eu-west-1"
auth_type = "oidc"
oidc_role_arn = "${ROLE}"

[[buckets]]
name = "ci"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "http://127.0.0.1:9000"
bucket_name = "ci"
auth_type = "oidc"
oidc_role_arn = "${ROLE}"
oidc_subject = "repo:org/app:ref:refs/heads/main"
oidc_audience = "rgw"
oidc_sts_endpoint = "http://127.0.0.1:9000"

[[buckets]]
name = "same-role"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "https://s3.eu-west-1.amazonaws.com"
bucket_name = "other-bucket"
region = "eu-west-1"
auth_type = "oidc"
oidc_role_arn = "${ROLE}"
`;

interface Harness {
  readonly gateway: Gateway;
  readonly exchanges: WebIdentityRequest[];
  readonly backend: BackendRequest[];
  readonly events: Array<Readonly<Record<string, unknown>>>;
  /** What the gateway counted: each exchange's outcome, and `cache`/`exchange` per credential lookup. */
  readonly counted: string[];
}

function harness(exchange?: TokenExchange, env: Record<string, string> = {}, config = CONFIG): Harness {
  const exchanges: WebIdentityRequest[] = [];
  const backend: BackendRequest[] = [];
  const events: Array<Readonly<Record<string, unknown>>> = [];
  const counted: string[] = [];
  const deps: GatewayDeps = {
    metrics: {
      started: () => undefined,
      finished: () => undefined,
      oidcExchange: (outcome) => counted.push(`exchange ${outcome}`),
      oidcCredentials: (cached) => counted.push(cached ? 'cache' : 'exchanged'),
    },
    now: () => NOW,
    client: async (request) => {
      backend.push(request);
      const xml = '<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>';
      return { status: 200, headers: new Headers(), body: new Response(xml).body };
    },
    tokenExchange: async (request) => {
      exchanges.push(request);
      if (exchange) return exchange(request);
      return { accessKeyId: 'ASIATEMP', secretAccessKey: 'temp-secret', sessionToken: 'temp-session-token', expiresAt: NOW + 3_600_000 };
    },
    log: (event) => events.push(event),
  };
  const gateway = new Gateway(parseConfig(config, { OIDC_PROVIDER_KEY: key.pkcs1, OIDC_PROVIDER_ISSUER: ISSUER, ...env }), deps);
  return { gateway, exchanges, backend, events, counted };
}

function request(method: string, target: string): ProxyRequest {
  return targetRequest(method, target, { host: 'gateway.example.com' }, 'REQ');
}

describe('discovery routing', () => {
  it('serves both documents before S3 routing when the provider is configured', async () => {
    const { gateway } = harness();
    const config = responseOf(await gateway.handle(request('GET', '/.well-known/openid-configuration')));
    expect(config.status).toBe(200);
    expect(JSON.parse(bodyText(config.body))).toMatchObject({ issuer: ISSUER, jwks_uri: `${ISSUER}/.well-known/jwks.json` });
    const jwks = responseOf(await gateway.handle(request('GET', '/.well-known/jwks.json')));
    expect(JSON.parse(bodyText(jwks.body)).keys).toHaveLength(1);
  });

  it('leaves /.well-known to S3 routing without OIDC_PROVIDER_KEY and OIDC_PROVIDER_ISSUER: an unknown bucket', async () => {
    const gateway = new Gateway(parseConfig('', {}), { client: async () => Promise.reject(new Error('unused')) });
    for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json']) {
      const answer = responseOf(await gateway.handle(request('GET', path)));
      expect(answer.status).toBe(404);
      expect(bodyText(answer.body)).toContain('<Code>NoSuchBucket</Code>');
    }
  });
});

describe('an auth_type = "oidc" bucket', () => {
  it('signs its backend request with the exchanged credentials and session token', async () => {
    const { gateway, exchanges } = harness();
    const dispatch = await gateway.handle(request('GET', '/fed/report.csv'));
    if (dispatch.kind !== 'forward') throw new Error(`expected a forward, got ${dispatch.kind}`);
    expect(dispatch.request.url).toBe('https://s3.eu-west-1.amazonaws.com/real-bucket/report.csv');
    expect(dispatch.request.headers['x-amz-security-token']).toBe('temp-session-token');
    expect(dispatch.request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=ASIATEMP\/20300101\/eu-west-1\/s3\/aws4_request, SignedHeaders=[^,]*x-amz-security-token/);
    expect(exchanges).toHaveLength(1);
  });

  it('exchanges at the regional AWS STS by default, as s3-proxy with audience sts.amazonaws.com', async () => {
    const { gateway, exchanges } = harness();
    await gateway.handle(request('GET', '/fed/k'));
    const [exchange] = exchanges;
    expect(exchange).toMatchObject({ endpoint: 'https://sts.eu-west-1.amazonaws.com', region: 'eu-west-1', roleArn: ROLE, roleSessionName: 's3-proxy' });
    expect(exchange.durationSeconds).toBeUndefined();
    const jwks = JSON.parse(bodyText(responseOf(await gateway.handle(request('GET', '/.well-known/jwks.json'))).body)) as JSONWebKeySet;
    const { payload } = await jwtVerify(exchange.webIdentityToken, createLocalJWKSet(jwks), { currentDate: new Date(NOW) });
    expect(payload).toMatchObject({ iss: ISSUER, sub: 's3-proxy', aud: 'sts.amazonaws.com' });
  });

  it('uses the configured token service, subject, audience and session duration; the session name is the safe subject', async () => {
    const { gateway, exchanges } = harness(undefined, { OIDC_SESSION_DURATION_SECONDS: '900' });
    await gateway.handle(request('GET', '/ci/k'));
    const [exchange] = exchanges;
    expect(exchange).toMatchObject({
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      roleSessionName: 'repo-org-app-ref-refs-heads-main',
      durationSeconds: 900,
    });
    const claims = JSON.parse(Buffer.from(exchange.webIdentityToken.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: 'repo:org/app:ref:refs/heads/main', aud: 'rgw' });
  });

  it('signs listings with them too, and shares one exchange between buckets with the same role and subject', async () => {
    const { gateway, exchanges, backend } = harness();
    await gateway.handle(request('GET', '/fed?list-type=2'));
    await gateway.handle(request('GET', '/same-role?list-type=2'));
    expect(backend.map((r) => r.headers['x-amz-security-token'])).toEqual(['temp-session-token', 'temp-session-token']);
    expect(exchanges).toHaveLength(1);
  });

  it('counts each exchange and each credential lookup, from the cache or not, for the metrics', async () => {
    const { gateway, counted } = harness();
    await gateway.handle(request('GET', '/fed?list-type=2'));
    await gateway.handle(request('GET', '/same-role?list-type=2'));
    expect(counted).toEqual(['exchange ok', 'exchanged', 'cache']);
  });

  it('logs each exchange with the role and the token service, never the token or the secrets', async () => {
    const { gateway, events, exchanges } = harness();
    await gateway.handle(request('GET', '/fed/k'));
    expect(events).toEqual([
      {
        level: 'info',
        event: 'oidc-exchange',
        outcome: 'ok',
        bucket: 'fed',
        role: ROLE,
        subject: 's3-proxy',
        tokenService: 'https://sts.eu-west-1.amazonaws.com',
        expiration: new Date(NOW + 3_600_000).toISOString(),
        ms: 0,
      },
    ]);
    const logged = JSON.stringify(events);
    for (const secret of [exchanges[0].webIdentityToken, 'temp-secret', 'temp-session-token']) expect(logged).not.toContain(secret);
  });
});

describe('token service failures', () => {
  it.each([
    ['refused (AccessDenied)', new TokenServiceError('refused', 'AccessDenied', 'Not authorized', 403), 403, 'AccessDenied'],
    ['failing otherwise (InvalidIdentityToken)', new TokenServiceError('failed', 'InvalidIdentityToken', 'No OpenIDConnect provider found', 400), 502, 'BadGateway'],
    ['unreachable', new TokenServiceError('unreachable', 'ECONNREFUSED', 'connect ECONNREFUSED'), 503, 'ServiceUnavailable'],
    ['throwing something else', new Error('socket hang up'), 503, 'ServiceUnavailable'],
  ])('%s: the client gets %i %s and the log says the role and the code', async (_, failure, status, code) => {
    const { gateway, events, counted } = harness(async () => Promise.reject(failure));
    const answer = responseOf(await gateway.handle(request('GET', '/fed/k')));
    expect(counted).toEqual([`exchange ${failure instanceof TokenServiceError ? failure.kind : 'unreachable'}`, 'exchanged']);
    expect(answer.status).toBe(status);
    expect(bodyText(answer.body)).toContain(`<Code>${code}</Code>`);
    expect(bodyText(answer.body)).not.toContain(ROLE);
    expect(events).toEqual([
      expect.objectContaining({ level: 'error', event: 'oidc-exchange', role: ROLE, code: (failure as TokenServiceError).code ?? 'NetworkError' }),
    ]);
  });

  it('answers HEAD failures without a body', async () => {
    const { gateway } = harness(async () => Promise.reject(new TokenServiceError('refused', 'AccessDenied', 'no', 403)));
    const answer = responseOf(await gateway.handle(request('HEAD', '/fed/k')));
    expect(answer).toMatchObject({ status: 403, body: null });
  });

  it('does not remember a failure: the next request exchanges again and succeeds', async () => {
    let fail = true;
    const { gateway, exchanges } = harness(async () => {
      if (fail) throw new TokenServiceError('unreachable', 'ECONNREFUSED', 'down');
      return { accessKeyId: 'ASIANEW', secretAccessKey: 's', sessionToken: 't', expiresAt: NOW + 3_600_000 };
    });
    expect(responseOf(await gateway.handle(request('GET', '/fed/k'))).status).toBe(503);
    fail = false;
    const dispatch = await gateway.handle(request('GET', '/fed/k'));
    expect(dispatch.kind).toBe('forward');
    expect(exchanges).toHaveLength(2);
  });
});

describe('start-up', () => {
  it('refuses to construct with an unusable provider key, naming the variable', () => {
    const config = parseConfig(CONFIG, { OIDC_PROVIDER_KEY: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----', OIDC_PROVIDER_ISSUER: ISSUER });
    expect(() => new Gateway(config, { client: async () => Promise.reject(new Error('unused')) })).toThrow(ConfigError);
    expect(() => new Gateway(config, { client: async () => Promise.reject(new Error('unused')) })).toThrow(/environment OIDC_PROVIDER_KEY: is not a readable RSA key/);
  });

  it('refuses a certificate that belongs to another key', () => {
    const other = generateProviderKey();
    const config = parseConfig('', { OIDC_PROVIDER_KEY: key.pkcs8, OIDC_PROVIDER_ISSUER: ISSUER, OIDC_PROVIDER_CERT: other.cert });
    expect(() => new Gateway(config, { client: async () => Promise.reject(new Error('unused')) })).toThrow(
      'environment OIDC_PROVIDER_CERT: the certificate is for a different key than OIDC_PROVIDER_KEY',
    );
  });
});
