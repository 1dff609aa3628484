import { parseConfig } from '../../../functions/core/config/parse';
import { Gateway } from '../../../functions/core/gateway';
import type { BackendRequest, ProxyRequest } from '../../../functions/core/http';
import { buildQuery, smithySigner, type TestCredentials } from '../sigv4/smithy';
import { ALL_ACTIONS, bucketToml, credentialToml, everywhere, s3Options } from '../../support/config-toml';
import { backendRecorder } from '../../support/backend-recorder';
import { proxyRequest } from '../../support/proxy-request';

/**
 * Who pays (`request_payer`, backends/s3.ts `S3Store.sign`): every backend request of a bucket with
 * `request_payer = "requester"` carries `x-amz-request-payer: requester`, signed; no request of any other
 * bucket carries it, whatever the client sends. Gateway.handle in process, every S3 operation that reaches a
 * backend: the Forward it returns and every request the core sends itself (test/support/backend-recorder.ts).
 * test/e2e/request-payer.test.ts shows the same on the wire, against RGW.
 */
const NOW = Date.UTC(2026, 5, 1, 12);
const HOST = 'gateway.test';
const ADMIN: TestCredentials = { accessKeyId: 'ADMINKEY000000000000', secretAccessKey: 'admin/secret/key/0000000000000000000000' };
const BACKEND_KEYS = { accessKeyId: 'BACKENDKEY', secretAccessKey: 'backend-secret' };
const PAYER = 'x-amz-request-payer';

const CONFIG = [
  bucketToml({ name: 'paid', backend_type: 's3' }, s3Options('http://backend.test:9000', 'paid-store', BACKEND_KEYS, { request_payer: 'requester' })),
  bucketToml({ name: 'owned', backend_type: 's3', anonymous_access: true }, s3Options('http://backend.test:9000', 'owned-store', BACKEND_KEYS)),
  credentialToml(ADMIN, {}, [everywhere([...ALL_ACTIONS, 'list_bucket_versions', 'delete_object_version', 'get_object_tagging', 'put_object_tagging', 'delete_object_tagging'])]),
].join('\n');

interface Req {
  readonly method: string;
  readonly path: string;
  readonly query?: Record<string, string>;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

const TAGGING = '<Tagging><TagSet><Tag><Key>a</Key><Value>1</Value></Tag></TagSet></Tagging>';
const COMPLETE = '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"p1"</ETag></Part></CompleteMultipartUpload>';
const DELETE = '<Delete><Object><Key>k</Key></Object></Delete>';
const UPLOAD = { uploadId: 'u1' };

/** Every S3 operation that reaches an S3 backend, on bucket `b`. */
const OPERATIONS: ReadonlyArray<[string, (b: string) => Req]> = [
  ['GetObject', (b) => ({ method: 'GET', path: `/${b}/k` })],
  ['GetObject of a version', (b) => ({ method: 'GET', path: `/${b}/k`, query: { versionId: 'v1' } })],
  ['HeadObject', (b) => ({ method: 'HEAD', path: `/${b}/k` })],
  ['GetObjectAttributes', (b) => ({ method: 'GET', path: `/${b}/k`, query: { attributes: '' }, headers: { 'x-amz-object-attributes': 'ETag' } })],
  ['PutObject', (b) => ({ method: 'PUT', path: `/${b}/k`, headers: { 'content-length': '5' }, body: 'hello' })],
  ['DeleteObject', (b) => ({ method: 'DELETE', path: `/${b}/k` })],
  ['DeleteObject of a version', (b) => ({ method: 'DELETE', path: `/${b}/k`, query: { versionId: 'v1' } })],
  ['GetObjectTagging', (b) => ({ method: 'GET', path: `/${b}/k`, query: { tagging: '' } })],
  ['PutObjectTagging', (b) => ({ method: 'PUT', path: `/${b}/k`, query: { tagging: '' }, headers: { 'content-length': String(TAGGING.length) }, body: TAGGING })],
  ['DeleteObjectTagging', (b) => ({ method: 'DELETE', path: `/${b}/k`, query: { tagging: '' } })],
  ['CopyObject', (b) => ({ method: 'PUT', path: `/${b}/k`, headers: { 'x-amz-copy-source': `/${b}/src` } })],
  ['CreateMultipartUpload', (b) => ({ method: 'POST', path: `/${b}/k`, query: { uploads: '' } })],
  ['UploadPart', (b) => ({ method: 'PUT', path: `/${b}/k`, query: { partNumber: '1', ...UPLOAD }, headers: { 'content-length': '5' }, body: 'hello' })],
  ['UploadPartCopy', (b) => ({ method: 'PUT', path: `/${b}/k`, query: { partNumber: '1', ...UPLOAD }, headers: { 'x-amz-copy-source': `/${b}/src` } })],
  ['ListParts', (b) => ({ method: 'GET', path: `/${b}/k`, query: UPLOAD })],
  ['CompleteMultipartUpload (and its HEAD)', (b) => ({ method: 'POST', path: `/${b}/k`, query: UPLOAD, body: COMPLETE })],
  ['AbortMultipartUpload', (b) => ({ method: 'DELETE', path: `/${b}/k`, query: UPLOAD })],
  ['ListMultipartUploads', (b) => ({ method: 'GET', path: `/${b}`, query: { uploads: '' } })],
  ['ListObjects (V1)', (b) => ({ method: 'GET', path: `/${b}` })],
  ['ListObjectsV2', (b) => ({ method: 'GET', path: `/${b}`, query: { 'list-type': '2' } })],
  ['ListObjectVersions', (b) => ({ method: 'GET', path: `/${b}`, query: { versions: '' } })],
  ['DeleteObjects', (b) => ({ method: 'POST', path: `/${b}`, query: { delete: '' }, body: DELETE })],
  ['GetBucketVersioning', (b) => ({ method: 'GET', path: `/${b}`, query: { versioning: '' } })],
];

/** Header-signed as the SDKs sign, every header given signed. */
async function signed(r: Req): Promise<ProxyRequest> {
  const headers = { host: HOST, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...r.headers };
  const out = await smithySigner(ADMIN, 'us-east-1').sign(
    { method: r.method, protocol: 'http:', hostname: HOST, path: r.path, query: r.query ?? {}, headers },
    { signingDate: new Date(NOW) },
  );
  return proxyRequest(r.method, r.path, buildQuery(r.query ?? {}), out.headers);
}

/** Every backend request a client request makes: those the core sends itself, then its Forward's. */
async function backendRequests(request: ProxyRequest, body = ''): Promise<BackendRequest[]> {
  const seen: BackendRequest[] = [];
  const gateway = new Gateway(parseConfig(CONFIG, {}), { client: backendRecorder(seen), now: () => NOW });
  let result = await gateway.handle(request);
  if (result.kind === 'needs-body') result = await result.withBody(new TextEncoder().encode(body));
  if (result.kind === 'forward') return [...seen, result.request];
  if (result.kind === 'response' && result.response.status >= 300) throw new Error(`answered ${result.response.status}: ${String(result.response.body)}`);
  return seen;
}

/** The names a backend request's SigV4 Authorization header signs. */
function signedHeaders(request: BackendRequest): string[] {
  return /SignedHeaders=([^,]+)/.exec(request.headers.authorization ?? '')?.[1].split(';') ?? [];
}

describe('request_payer = "requester": the gateway\'s backend account pays, on every backend request', () => {
  it.each(OPERATIONS)('GIVEN a requester-pays bucket WHEN a client sends %s THEN each backend request carries x-amz-request-payer: requester, signed', async (_, make) => {
    const req = make('paid');
    const sent = await backendRequests(await signed(req), req.body);
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent) {
      expect(request.headers[PAYER]).toBe('requester');
      expect(signedHeaders(request)).toContain(PAYER);
    }
  });

  it.each(OPERATIONS)('GIVEN a bucket whose owner pays WHEN a client sends %s with x-amz-request-payer, signed THEN no backend request carries it', async (_, make) => {
    const req = make('owned');
    const sent = await backendRequests(await signed({ ...req, headers: { ...req.headers, [PAYER]: 'requester' } }), req.body);
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent) {
      expect(request.headers).not.toHaveProperty(PAYER);
      expect(signedHeaders(request)).not.toContain(PAYER);
    }
  });

  it.each([
    ['GetObject', 'GET', ''],
    ['HeadObject', 'HEAD', ''],
    ['ListObjectsV2', 'GET', 'list-type=2'],
  ])('GIVEN an anonymous bucket whose owner pays WHEN an anonymous caller sends %s with x-amz-request-payer THEN the backend never sees it', async (_, method, query) => {
    const path = query === '' ? '/owned/k' : '/owned';
    const sent = await backendRequests(proxyRequest(method, path, query, { host: HOST, [PAYER]: 'requester' }));
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent) expect(request.headers).not.toHaveProperty(PAYER);
  });

  it.each([
    ['CopyObject', {}],
    ['UploadPartCopy', { partNumber: '1', ...UPLOAD }],
  ])('GIVEN a requester-pays source WHEN %s copies it into a bucket whose owner pays THEN the copy, which reads the source, carries it signed', async (_, query) => {
    const sent = await backendRequests(await signed({ method: 'PUT', path: '/owned/k', query, headers: { 'x-amz-copy-source': '/paid/src' } }));
    expect(sent).toHaveLength(1);
    expect(sent[0].headers['x-amz-copy-source']).toBe('/paid-store/src');
    expect(sent[0].headers[PAYER]).toBe('requester');
    expect(signedHeaders(sent[0])).toContain(PAYER);
  });
});
