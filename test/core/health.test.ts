import { parseConfig } from '../../functions/core/config/parse';
import { Gateway } from '../../functions/core/gateway';
import { HEALTH_PATH } from '../../functions/core/health';
import type { BackendRequest, ProxyRequest } from '../../functions/core/http';
import { generateProviderKey, type ProviderKeyPem } from '../support/provider-key';
import { bucketToml, credentialToml, everywhere } from '../support/config-toml';
import { bodyText, responseOf, targetRequest } from '../support/proxy-request';

/**
 * `/.health`, through the core as every runtime calls it: what a load balancer's probe gets, and what it
 * never causes (a backend request, a token exchange, a look at the configuration).
 */

let key: ProviderKeyPem;
beforeAll(() => {
  key = generateProviderKey();
});

const CONFIG = [
  bucketToml({ name: 'b', backend_type: 's3', anonymous_access: true }, { endpoint: 'http://127.0.0.1:1', bucket_name: 'b' }),
  bucketToml(
    { name: 'fed', backend_type: 's3' },
    { endpoint: 'https://s3.eu-west-1.amazonaws.com', bucket_name: 'real', region: 'eu-west-1', auth_type: 'oidc', oidc_role_arn: 'arn:aws:iam::111122223333:role/gateway' },
  ),
  credentialToml({ accessKeyId: 'AKIDHEALTH', secretAccessKey: 'health-secret' }, { principal_name: 'ops' }, [everywhere(['get_object'])]),
].join('\n');

interface Harness {
  readonly gateway: Gateway;
  /** Every backend request and token exchange the gateway attempted. */
  readonly outbound: string[];
}

function harness(config = CONFIG): Harness {
  const outbound: string[] = [];
  const env = { SESSION_TOKEN_KEY: Buffer.alloc(32, 7).toString('base64'), OIDC_PROVIDER_KEY: key.pkcs8, OIDC_PROVIDER_ISSUER: 'https://gateway.example.com' };
  const gateway = new Gateway(parseConfig(config, env), {
    client: async (request: BackendRequest) => {
      outbound.push(`backend ${request.method} ${request.url}`);
      throw new Error('no backend in this spec');
    },
    tokenExchange: async (request) => {
      outbound.push(`exchange ${request.roleArn}`);
      throw new Error('no token service in this spec');
    },
  });
  return { gateway, outbound };
}

function request(method: string, target: string, headers: Record<string, string> = {}): ProxyRequest {
  return targetRequest(method, target, { host: 'gateway.example.com', ...headers }, 'REQ0000000000001');
}

describe('GET /.health', () => {
  it('GIVEN a running gateway WHEN probed THEN 200 {"status":"ok"} as JSON, never cached, with a request id', async () => {
    const { gateway } = harness();
    const answer = responseOf(await gateway.handle(request('GET', HEALTH_PATH)));
    expect(answer.status).toBe(200);
    expect(JSON.parse(bodyText(answer.body))).toEqual({ status: 'ok' });
    expect(answer.headers).toEqual({
      'content-type': 'application/json',
      'content-length': '15',
      'cache-control': 'no-store',
      'x-amz-request-id': 'REQ0000000000001',
    });
  });

  it('GIVEN HEAD WHEN probed THEN the same status and length, without a body', async () => {
    const { gateway } = harness();
    const answer = responseOf(await gateway.handle(request('HEAD', HEALTH_PATH)));
    expect(answer).toMatchObject({ status: 200, body: null });
    expect(answer.headers['content-length']).toBe('15');
  });

  it('GIVEN a query string (a probe\'s cache buster) WHEN probed THEN it is ignored', async () => {
    const { gateway } = harness();
    expect(responseOf(await gateway.handle(request('GET', `${HEALTH_PATH}?t=1700000000&Action=GetCallerIdentity`))).status).toBe(200);
  });

  it('GIVEN unreachable backends and an OIDC-federated bucket WHEN probed THEN no backend and no token service is contacted', async () => {
    const { gateway, outbound } = harness();
    for (let i = 0; i < 3; i++) expect(responseOf(await gateway.handle(request('GET', HEALTH_PATH))).status).toBe(200);
    expect(outbound).toEqual([]);
    // The same gateway does reach its backend for a bucket request: the probe's silence is not a broken harness.
    expect((await gateway.handle(request('GET', '/b/k'))).kind).toBe('forward');
  });

  it.each([
    ['no credentials', {}],
    ['a signature that does not verify', { authorization: 'AWS4-HMAC-SHA256 Credential=AKIDHEALTH/20300101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00' }],
    ['an unknown access key', { authorization: 'AWS4-HMAC-SHA256 Credential=NOSUCHKEY/20300101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00' }],
    ['a session token that is not one', { 'x-amz-security-token': 'forged' }],
  ])('GIVEN %s WHEN probed THEN 200: the endpoint is unauthenticated and checks nothing', async (_case, headers) => {
    const { gateway } = harness();
    expect(responseOf(await gateway.handle(request('GET', HEALTH_PATH, headers))).status).toBe(200);
  });

  it('GIVEN any deployment WHEN probed THEN the body is the status alone: no version, bucket, backend or setting', async () => {
    const { gateway } = harness();
    const body = bodyText(responseOf(await gateway.handle(request('GET', HEALTH_PATH))).body);
    expect(Object.keys(JSON.parse(body))).toEqual(['status']);
    for (const secret of ['127.0.0.1', 'fed', 'real', 'eu-west-1', 'AKIDHEALTH', 'ops', 'gateway']) expect(body).not.toContain(secret);
  });

  it('GIVEN a path-mapped deployment WHEN probed THEN the same answer: the path maps to no account', async () => {
    const mapped = '[path_mapping]\nsegments = 2\nseparator = "--"\n' + CONFIG.replaceAll('name = "b"', 'name = "acct--b"').replaceAll('name = "fed"', 'name = "acct--fed"');
    const { gateway } = harness(mapped);
    expect(responseOf(await gateway.handle(request('GET', HEALTH_PATH))).status).toBe(200);
  });
});

describe('/.health with virtual-hosted buckets', () => {
  const VIRTUAL = `virtual_host_domains = ["gw.example.com"]\n${CONFIG}`;

  it.each([
    ['the bare domain', 'gw.example.com'],
    ['a host outside the domains (an instance address)', '10.0.0.7:8080'],
  ])('GIVEN %s WHEN probed THEN it is the health endpoint: the request names no bucket', async (_where, host) => {
    const { gateway, outbound } = harness(VIRTUAL);
    const answer = responseOf(await gateway.handle(request('GET', HEALTH_PATH, { host })));
    expect({ status: answer.status, body: bodyText(answer.body) }).toEqual({ status: 200, body: '{"status":"ok"}' });
    expect(outbound).toEqual([]);
  });

  it.each(['GET', 'HEAD'])('GIVEN a bucket\'s own host WHEN %s /.health THEN it is that bucket\'s object ".health", forwarded to its backend', async (method) => {
    const { gateway } = harness(VIRTUAL);
    const dispatch = await gateway.handle(request(method, HEALTH_PATH, { host: 'b.gw.example.com' }));
    expect(dispatch.kind).toBe('forward');
    if (dispatch.kind === 'forward') expect(dispatch.request.url).toBe('http://127.0.0.1:1/b/.health');
  });

  it('GIVEN a bucket\'s own host WHEN an anonymous PUT /.health THEN S3 authorizes it as a write (403), not the probe\'s 405', async () => {
    const { gateway } = harness(VIRTUAL);
    const answer = responseOf(await gateway.handle(request('PUT', HEALTH_PATH, { host: 'b.gw.example.com', 'content-length': '0' })));
    expect(answer.status).toBe(403);
    expect(bodyText(answer.body)).toContain('<Code>AccessDenied</Code>');
  });

  it('GIVEN a bucket\'s own host while draining WHEN GET /.health THEN still the object, never the 503 probe', async () => {
    const { gateway } = harness(VIRTUAL);
    gateway.startDraining();
    expect((await gateway.handle(request('GET', HEALTH_PATH, { host: 'b.gw.example.com' }))).kind).toBe('forward');
  });
});

describe('/.health while draining', () => {
  it('GIVEN startDraining WHEN probed THEN 503 {"status":"draining"}, so a load balancer stops sending', async () => {
    const { gateway } = harness();
    gateway.startDraining();
    const answer = responseOf(await gateway.handle(request('GET', HEALTH_PATH)));
    expect(answer.status).toBe(503);
    expect(JSON.parse(bodyText(answer.body))).toEqual({ status: 'draining' });
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(responseOf(await gateway.handle(request('HEAD', HEALTH_PATH))).status).toBe(503);
  });

  it('GIVEN startDraining WHEN a bucket request arrives THEN it is still served', async () => {
    const { gateway } = harness();
    gateway.startDraining();
    expect((await gateway.handle(request('GET', '/b/k'))).kind).toBe('forward');
  });
});

describe('/.health: what it is not', () => {
  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('GIVEN %s WHEN sent THEN 405 MethodNotAllowed with Allow: GET, HEAD', async (method) => {
    const { gateway, outbound } = harness();
    const answer = responseOf(await gateway.handle(request(method, HEALTH_PATH, { 'content-type': 'application/x-www-form-urlencoded' })));
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, HEAD');
    expect(bodyText(answer.body)).toContain('<Code>MethodNotAllowed</Code>');
    expect(bodyText(answer.body)).toContain(`<Method>${method}</Method>`);
    expect(outbound).toEqual([]);
  });

  it.each(['/.health/', '/.health/k', '/.HEALTH', '/%2Ehealth'])('GIVEN %s WHEN requested THEN it is S3 routing\'s (no such bucket), not the probe', async (path) => {
    const { gateway } = harness();
    const answer = responseOf(await gateway.handle(request('GET', path)));
    expect(answer.status).toBe(404);
    expect(bodyText(answer.body)).toContain('<Code>NoSuchBucket</Code>');
  });
});
