/**
 * What a signature covers decides what a request does, through Gateway.handle with the backend recorded:
 * headers a signature leaves out are refused before routing and authorization (nothing reaches the backend),
 * an anonymous request cannot become a copy, and a credential scoped to another service is refused.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';
import { parseConfig } from '../../../functions/core/config/parse';
import { Gateway } from '../../../functions/core/gateway';
import type { BackendRequest, Dispatch, ProxyRequest, ProxyResponse } from '../../../functions/core/http';
import { NodeSha256, buildQuery, smithySigner, type TestCredentials } from '../sigv4/smithy';
import { bucketToml, credentialToml, s3Options } from '../../support/config-toml';
import { proxyRequest } from '../../support/proxy-request';

const NOW = Date.UTC(2026, 5, 1, 12);
const HOST = 'gateway.test';
/** May read `priv/secret/` and write `pub/uploads/`; `pub` is anonymous-readable. */
const UPLOADER: TestCredentials = { accessKeyId: 'UPLOADERKEY000000000', secretAccessKey: 'uploader/secret/0000000000000000000000' };

const BACKEND_KEYS = { accessKeyId: 'backend', secretAccessKey: 'backend-secret' };
const CONFIG = [
  bucketToml({ name: 'pub', backend_type: 's3', anonymous_access: true }, s3Options('http://127.0.0.1:9', 'pub-backend', BACKEND_KEYS)),
  bucketToml({ name: 'priv', backend_type: 's3' }, s3Options('http://127.0.0.1:9', 'priv-backend', BACKEND_KEYS)),
  credentialToml(UPLOADER, { principal_name: 'uploader' }, [
    { bucket: 'priv', prefixes: ['secret/'], actions: ['get_object', 'head_object'] },
    { bucket: 'pub', prefixes: ['uploads/'], actions: ['put_object'] },
  ]),
].join('\n');

const COPY_RESULT = '<CopyObjectResult><ETag>"e"</ETag><LastModified>2026-06-01T12:00:00.000Z</LastModified></CopyObjectResult>';

/** What the core asked the backend for: requests it sent itself, and the Forward it handed the adapter. */
interface Outcome {
  readonly status: number;
  readonly body: string;
  readonly backend: readonly BackendRequest[];
  readonly forward?: BackendRequest;
}

function gateway(backend: BackendRequest[]): Gateway {
  return new Gateway(parseConfig(CONFIG), {
    now: () => NOW,
    client: async (request) => {
      backend.push(request);
      return { status: 200, headers: new Headers({ 'content-type': 'application/xml' }), body: new Blob([COPY_RESULT]).stream() };
    },
  });
}

async function run(request: ProxyRequest): Promise<Outcome> {
  const backend: BackendRequest[] = [];
  const dispatch: Dispatch = await gateway(backend).handle(request);
  if (dispatch.kind === 'forward') return { status: 200, body: '', backend, forward: dispatch.request };
  if (dispatch.kind === 'needs-body') throw new Error('unexpected NeedsBody');
  return { status: dispatch.response.status, body: text(dispatch.response), backend };
}

function text(response: ProxyResponse): string {
  return typeof response.body === 'string' ? response.body : '';
}

function element(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
}

function smithyRequest(method: string, path: string, headers: Record<string, string>): HttpRequest {
  return { method, protocol: 'https:', hostname: HOST, path, query: {}, headers: { host: HOST, ...headers } };
}

/** boto3's presigned URL: host signed, UNSIGNED-PAYLOAD, nothing else. */
async function presignedUrlQuery(method: string, path: string, keys = UPLOADER, service = 's3'): Promise<string> {
  const payload = new Set(['x-amz-content-sha256']);
  const signer = new SignatureV4({ credentials: keys, region: 'us-east-1', service, sha256: NodeSha256, uriEscapePath: false, applyChecksum: false });
  const signed = await signer.presign(smithyRequest(method, path, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }), {
    signingDate: new Date(NOW),
    expiresIn: 900,
    unsignableHeaders: payload,
    unhoistableHeaders: payload,
  });
  return buildQuery((signed.query ?? {}) as Record<string, string>);
}

/** A header-signed request over `signed` (host, x-amz-content-sha256 and x-amz-date always), sent with `added`. */
async function headerSigned(method: string, path: string, signed: Record<string, string>, added: Record<string, string> = {}, service = 's3'): Promise<ProxyRequest> {
  const signer =
    service === 's3'
      ? smithySigner(UPLOADER, 'us-east-1')
      : new SignatureV4({ credentials: UPLOADER, region: 'us-east-1', service, sha256: NodeSha256, uriEscapePath: false, applyChecksum: false });
  const out = await signer.sign(smithyRequest(method, path, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...signed }), { signingDate: new Date(NOW) });
  return proxyRequest(method, path, '', { ...out.headers, ...added });
}

const COPY_SOURCE = { 'x-amz-copy-source': '/priv/secret/s.txt', 'content-length': '0' };

describe('GIVEN the uploader\'s presigned PUT for pub/uploads/x', () => {
  it('WHEN sent with an unsigned x-amz-copy-source THEN 403 AccessDenied names it and nothing reaches the backend', async () => {
    const out = await run(proxyRequest('PUT', '/pub/uploads/x', await presignedUrlQuery('PUT', '/pub/uploads/x'), { host: HOST, ...COPY_SOURCE }));
    expect(out.status).toBe(403);
    expect(element(out.body, 'Code')).toBe('AccessDenied');
    expect(element(out.body, 'Message')).toBe('There were headers present in the request which were not signed');
    expect(element(out.body, 'HeadersNotSigned')).toBe('x-amz-copy-source');
    expect(out.backend).toEqual([]);
    expect(out.forward).toBeUndefined();
  });

  it.each([
    ['x-amz-acl', 'public-read'],
    ['x-amz-meta-n', 'v'],
    ['x-amz-tagging', 'k=v'],
    ['x-amz-website-redirect-location', '/elsewhere'],
  ])('WHEN sent with an unsigned %s THEN it is refused and no upload is forwarded', async (name, value) => {
    const out = await run(proxyRequest('PUT', '/pub/uploads/x', await presignedUrlQuery('PUT', '/pub/uploads/x'), { host: HOST, 'content-length': '1', [name]: value }));
    expect([out.status, element(out.body, 'HeadersNotSigned')]).toEqual([403, name]);
    expect(out.forward).toBeUndefined();
  });

  it('WHEN sent as signed, with an unsigned Content-Type THEN the upload is forwarded with no x-amz-* object header', async () => {
    const out = await run(proxyRequest('PUT', '/pub/uploads/x', await presignedUrlQuery('PUT', '/pub/uploads/x'), { host: HOST, 'content-length': '1', 'content-type': 'text/plain' }));
    expect(out.forward?.method).toBe('PUT');
    expect(out.forward?.url).toBe('http://127.0.0.1:9/pub-backend/uploads/x');
    expect(out.forward?.headers['content-type']).toBe('text/plain');
    expect(Object.keys(out.forward?.headers ?? {}).filter((n) => n.startsWith('x-amz-') && !['x-amz-date', 'x-amz-content-sha256'].includes(n))).toEqual([]);
  });
});

describe('GIVEN a captured header-signed PUT that signed host;x-amz-content-sha256;x-amz-date', () => {
  it('WHEN replayed with an added x-amz-copy-source THEN 403 AccessDenied and nothing reaches the backend', async () => {
    const out = await run(await headerSigned('PUT', '/pub/uploads/x', {}, COPY_SOURCE));
    expect([out.status, element(out.body, 'Code'), element(out.body, 'HeadersNotSigned')]).toEqual([403, 'AccessDenied', 'x-amz-copy-source']);
    expect(out.backend).toEqual([]);
  });

  it('WHEN the copy source was signed THEN the copy is the signer\'s own, authorized and sent to the backend', async () => {
    const out = await run(await headerSigned('PUT', '/pub/uploads/x', { 'x-amz-copy-source': '/priv/secret/s.txt' }));
    expect(out.status).toBe(200);
    expect(out.backend.map((r) => [r.method, r.url, r.headers['x-amz-copy-source']])).toEqual([['PUT', 'http://127.0.0.1:9/pub-backend/uploads/x', '/priv-backend/secret/s.txt']]);
  });
});

describe('GIVEN an anonymous caller', () => {
  it('WHEN a PUT carries x-amz-copy-source THEN it is refused before routing, and nothing reaches the backend', async () => {
    const out = await run(proxyRequest('PUT', '/pub/uploads/x', '', { host: HOST, ...COPY_SOURCE }));
    expect([out.status, element(out.body, 'Code')]).toEqual([403, 'AccessDenied']);
    expect(out.backend).toEqual([]);
  });

  it('WHEN a GET of the public bucket carries x-amz-* headers THEN only the read headers are forwarded', async () => {
    const out = await run(
      proxyRequest('GET', '/pub/k', '', {
        host: HOST,
        'x-amz-checksum-mode': 'ENABLED',
        'x-amz-acl': 'public-read',
        'x-amz-meta-n': 'v',
        'x-amz-tagging': 'k=v',
        'x-amz-metadata-directive': 'REPLACE',
        range: 'bytes=0-1',
      }),
    );
    const forwarded = Object.keys(out.forward?.headers ?? {}).filter((n) => !['host', 'x-amz-date', 'x-amz-content-sha256', 'authorization'].includes(n));
    expect(forwarded.sort()).toEqual(['range', 'x-amz-checksum-mode']);
  });
});

describe('GIVEN a credential scoped to another service (…/us-east-1/iam/aws4_request)', () => {
  it('WHEN it signs the Authorization header THEN 400 AuthorizationHeaderMalformed names the service', async () => {
    const out = await run(await headerSigned('GET', '/priv/secret/s.txt', {}, {}, 'iam'));
    expect(out.status).toBe(400);
    expect(element(out.body, 'Code')).toBe('AuthorizationHeaderMalformed');
    expect(element(out.body, 'Message')).toBe('The authorization header is malformed; incorrect service &quot;iam&quot;. This endpoint belongs to &quot;s3&quot;.');
    expect(out.forward).toBeUndefined();
  });

  it('WHEN it presigns a URL THEN 400 AuthorizationQueryParametersError names the service', async () => {
    const out = await run(proxyRequest('GET', '/priv/secret/s.txt', await presignedUrlQuery('GET', '/priv/secret/s.txt', UPLOADER, 'iam'), { host: HOST }));
    expect(out.status).toBe(400);
    expect(element(out.body, 'Code')).toBe('AuthorizationQueryParametersError');
    expect(element(out.body, 'Message')).toBe('Error parsing the X-Amz-Credential parameter; incorrect service &quot;iam&quot;. This endpoint belongs to &quot;s3&quot;.');
    expect(out.forward).toBeUndefined();
  });

  it('WHEN the same key signs for s3 THEN the read is served', async () => {
    const out = await run(await headerSigned('GET', '/priv/secret/s.txt', {}));
    expect(out.forward?.url).toBe('http://127.0.0.1:9/priv-backend/secret/s.txt');
  });
});
