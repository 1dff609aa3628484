import { parseConfig } from '../../functions/core/config/parse';
import { Gateway } from '../../functions/core/gateway';
import type { BackendClient, Dispatch, ProxyRequest, ProxyResponse } from '../../functions/core/http';
import { buildQuery, smithySigner, type TestCredentials } from './sigv4/smithy';

/**
 * Gateway.handle on the S3 path, in process and with no network: which dispatch each request gets (a
 * Forward and what it signs, a NeedsBody and its bound, or an error), with the clock frozen. The backend
 * client refuses every call, so a request that would reach a backend over the core's own client shows up as
 * 503 ServiceUnavailable; everything else never calls it. Real backends are driven in test/e2e/.
 */
const NOW = Date.UTC(2026, 5, 1, 12);
const HOST = 'gateway.test';

const ADMIN: TestCredentials = { accessKeyId: 'ADMINKEY000000000000', secretAccessKey: 'admin/secret/key/0000000000000000000000' };
const READER: TestCredentials = { accessKeyId: 'READERKEY00000000000', secretAccessKey: 'reader/secret/key/000000000000000000000' };

const CONFIG = `
[[buckets]]
name = "open"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "http://backend.test:9000"
bucket_name = "data"
backend_prefix = "tenant/"
access_key_id = "BACKENDKEY"
secret_access_key = "backend-secret"

[[buckets]]
name = "blobs"
backend_type = "azure"
[buckets.backend_options]
account_name = "devstoreaccount1"
container_name = "blobs"
endpoint = "http://azure.test:10000/devstoreaccount1"
access_key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

[[credentials]]
access_key_id = "${ADMIN.accessKeyId}"
secret_access_key = "${ADMIN.secretAccessKey}"
principal_name = "admin"
[[credentials.allowed_scopes]]
bucket = "*"
actions = ["get_object", "get_object_version", "head_object", "put_object", "delete_object", "list_bucket",
  "create_multipart_upload", "upload_part", "complete_multipart_upload", "abort_multipart_upload"]

[[credentials]]
access_key_id = "${READER.accessKeyId}"
secret_access_key = "${READER.secretAccessKey}"
principal_name = "reader"
[[credentials.allowed_scopes]]
bucket = "open"
prefixes = ["reports/"]
actions = ["get_object", "head_object", "list_bucket"]
`;

const noNetwork: BackendClient = async () => {
  throw new Error('connect ECONNREFUSED (no network in this spec)');
};

function gateway(env: Record<string, string> = {}): Gateway {
  return new Gateway(parseConfig(CONFIG, env), { client: noNetwork, now: () => NOW });
}

let counter = 0;

interface Req {
  readonly method: string;
  readonly path: string;
  readonly query?: Record<string, string>;
  readonly headers?: Record<string, string>;
}

function proxyRequest(method: string, path: string, rawQuery: string, headers: Record<string, string>): ProxyRequest {
  return {
    method,
    requestId: `REQ${++counter}`,
    rawPath: path,
    rawQuery,
    headers: new Headers(headers),
    body: () => new ReadableStream({ start: (c) => c.close() }),
  };
}

function anonymous(r: Req): ProxyRequest {
  return proxyRequest(r.method, r.path, buildQuery(r.query ?? {}), { host: HOST, ...r.headers });
}

/** Header-signed the way the SDKs sign: every header sent, `x-amz-content-sha256` included. */
async function signed(keys: TestCredentials, r: Req): Promise<ProxyRequest> {
  const headers = { host: HOST, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...r.headers };
  const out = await smithySigner(keys, 'us-east-1').sign(
    { method: r.method, protocol: 'http:', hostname: HOST, path: r.path, query: r.query ?? {}, headers },
    { signingDate: new Date(NOW) },
  );
  return proxyRequest(r.method, r.path, buildQuery(r.query ?? {}), out.headers);
}

function response(dispatch: Dispatch): ProxyResponse {
  if (dispatch.kind !== 'response') throw new Error(`expected a response, got ${dispatch.kind}`);
  return dispatch.response;
}

function errorCode(dispatch: Dispatch): string | undefined {
  const body = response(dispatch).body;
  return typeof body === 'string' ? /<Code>([^<]*)<\/Code>/.exec(body)?.[1] : undefined;
}

describe('Gateway.handle, S3 path', () => {
  describe('reads become Forwards signed for the backend', () => {
    it('GIVEN an anonymous bucket WHEN anyone GETs a key THEN the Forward names the backend bucket, the prefix and the encoded key', async () => {
      const dispatch = await gateway().handle(anonymous({ method: 'GET', path: '/open/a%20b/c.txt', headers: { range: 'bytes=0-9' } }));
      expect(dispatch.kind).toBe('forward');
      if (dispatch.kind !== 'forward') return;
      expect(dispatch.request.method).toBe('GET');
      expect(dispatch.request.url).toBe('http://backend.test:9000/data/tenant/a%20b/c.txt');
      expect(dispatch.request.headers.range).toBe('bytes=0-9');
      expect(dispatch.request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=BACKENDKEY\//);
    });

    it('GIVEN a key scoped to reports/ WHEN it HEADs a key inside THEN it is forwarded, and outside THEN AccessDenied', async () => {
      const gw = gateway();
      expect((await gw.handle(await signed(READER, { method: 'HEAD', path: '/open/reports/q1.csv' }))).kind).toBe('forward');
      const outside = await gw.handle(await signed(READER, { method: 'GET', path: '/open/private/q1.csv' }));
      expect(response(outside).status).toBe(403);
      expect(errorCode(outside)).toBe('AccessDenied');
    });

    it('GIVEN get_object only WHEN a version is named THEN AccessDenied, since get_object_version is never implied', async () => {
      const dispatch = await gateway().handle(await signed(READER, { method: 'GET', path: '/open/reports/q1.csv', query: { versionId: 'v1' } }));
      expect(errorCode(dispatch)).toBe('AccessDenied');
    });

    it('GIVEN an Azure bucket WHEN a version is read THEN 501 NotImplemented', async () => {
      const dispatch = await gateway().handle(await signed(ADMIN, { method: 'GET', path: '/blobs/k', query: { versionId: 'v1' } }));
      expect(response(dispatch).status).toBe(501);
    });
  });

  describe('writes', () => {
    it('GIVEN a signed PUT in scope THEN a Forward streams the client body with its declared length', async () => {
      const dispatch = await gateway().handle(await signed(ADMIN, { method: 'PUT', path: '/open/up/x.bin', headers: { 'content-length': '11', 'content-type': 'text/plain' } }));
      expect(dispatch.kind).toBe('forward');
      if (dispatch.kind !== 'forward') return;
      expect(dispatch.request.body).toBe('client');
      expect(dispatch.request.headers['content-length']).toBe('11');
      expect(dispatch.request.headers['content-type']).toBe('text/plain');
      expect(dispatch.request.headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    });

    it('GIVEN an anonymous caller WHEN it PUTs to an anonymous bucket THEN AccessDenied: anonymous access is read-only', async () => {
      const dispatch = await gateway().handle(anonymous({ method: 'PUT', path: '/open/x', headers: { 'content-length': '1' } }));
      expect(response(dispatch).status).toBe(403);
      expect(errorCode(dispatch)).toBe('AccessDenied');
    });

    it('GIVEN a read-only key WHEN it PUTs inside its prefix THEN AccessDenied', async () => {
      const dispatch = await gateway().handle(await signed(READER, { method: 'PUT', path: '/open/reports/x', headers: { 'content-length': '1' } }));
      expect(errorCode(dispatch)).toBe('AccessDenied');
    });

    it('GIVEN MAX_UPLOAD_BYTES WHEN a PUT declares more THEN 400 EntityTooLarge before anything is forwarded', async () => {
      const dispatch = await gateway({ MAX_UPLOAD_BYTES: '10' }).handle(await signed(ADMIN, { method: 'PUT', path: '/open/x', headers: { 'content-length': '11' } }));
      expect(response(dispatch).status).toBe(400);
      expect(errorCode(dispatch)).toBe('EntityTooLarge');
    });

    it('GIVEN no declared length WHEN a PUT arrives THEN 411 MissingContentLength', async () => {
      const dispatch = await gateway().handle(await signed(ADMIN, { method: 'PUT', path: '/open/x', headers: { 'transfer-encoding': 'chunked' } }));
      expect(response(dispatch).status).toBe(411);
    });
  });

  describe('bodies the core reads are NeedsBody with a bound', () => {
    it('DeleteObjects collects at most 2 MiB, and MAX_UPLOAD_BYTES lowers it', async () => {
      const headers = { 'content-length': '100', 'content-md5': 'AAAAAAAAAAAAAAAAAAAAAA==' };
      const plain = await gateway().handle(await signed(ADMIN, { method: 'POST', path: '/open', query: { delete: '' }, headers }));
      expect(plain.kind === 'needs-body' && plain.maxBytes).toBe(2 * 1024 * 1024);
      const limited = await gateway({ MAX_UPLOAD_BYTES: '1000' }).handle(await signed(ADMIN, { method: 'POST', path: '/open', query: { delete: '' }, headers }));
      expect(limited.kind === 'needs-body' && limited.maxBytes).toBe(1000);
    });

    it('CompleteMultipartUpload collects at most 4 MiB', async () => {
      const dispatch = await gateway().handle(await signed(ADMIN, { method: 'POST', path: '/open/big.bin', query: { uploadId: 'u1' }, headers: { 'content-length': '100' } }));
      expect(dispatch.kind === 'needs-body' && dispatch.maxBytes).toBe(4 * 1024 * 1024);
    });

    it('GIVEN an anonymous caller WHEN it batch-deletes THEN AccessDenied without reading the body', async () => {
      const dispatch = await gateway().handle(anonymous({ method: 'POST', path: '/open', query: { delete: '' }, headers: { 'content-length': '100' } }));
      expect(errorCode(dispatch)).toBe('AccessDenied');
    });

    it('GIVEN an Azure bucket WHEN an authorized caller batch-deletes THEN 501 NotImplemented, after authorization', async () => {
      const dispatch = await gateway().handle(await signed(ADMIN, { method: 'POST', path: '/blobs', query: { delete: '' }, headers: { 'content-length': '100' } }));
      expect(response(dispatch).status).toBe(501);
      const refused = await gateway().handle(await signed(READER, { method: 'POST', path: '/blobs', query: { delete: '' }, headers: { 'content-length': '100' } }));
      expect(errorCode(refused)).toBe('AccessDenied');
    });
  });

  describe('errors', () => {
    it.each([
      ['an unknown virtual bucket', '/nope/k', 404, 'NoSuchBucket'],
      ['a key with a dot segment', '/open/a/../k', 400, 'InvalidRequest'],
      ['a key with an empty segment', '/open/a//k', 400, 'InvalidRequest'],
    ])('%s (%s) is %i %s', async (_what, path, status, code) => {
      const dispatch = await gateway().handle(await signed(ADMIN, { method: 'GET', path }));
      expect(response(dispatch).status).toBe(status);
      expect(errorCode(dispatch)).toBe(code);
    });

    it('GIVEN a sub-resource the gateway does not serve THEN 501 NotImplemented, never a neighbouring operation', async () => {
      const dispatch = await gateway().handle(await signed(ADMIN, { method: 'GET', path: '/open/k', query: { acl: '' } }));
      expect(response(dispatch).status).toBe(501);
    });

    it('GIVEN an unknown access key THEN 403 InvalidAccessKeyId', async () => {
      const dispatch = await gateway().handle(await signed({ accessKeyId: 'NOSUCHKEY00000000000', secretAccessKey: 'x' }, { method: 'GET', path: '/open/k' }));
      expect(errorCode(dispatch)).toBe('InvalidAccessKeyId');
    });

    it('GIVEN a listing THEN the core asks the backend itself, and an unreachable backend is 503', async () => {
      const dispatch = await gateway().handle(await signed(ADMIN, { method: 'GET', path: '/open', query: { 'list-type': '2' } }));
      expect(response(dispatch).status).toBe(503);
      expect(errorCode(dispatch)).toBe('ServiceUnavailable');
    });

    it('every error carries the request id in its header and body', async () => {
      const req = await signed(READER, { method: 'PUT', path: '/open/x', headers: { 'content-length': '1' } });
      const res = response(await gateway().handle(req));
      expect(res.headers['x-amz-request-id']).toBe(req.requestId);
      expect(res.body).toContain(`<RequestId>${req.requestId}</RequestId>`);
    });
  });
});
