import { parseConfig } from '../../functions/core/config/parse';
import { Gateway } from '../../functions/core/gateway';
import { isRewriteBody, type BackendClient, type BackendRequest, type Dispatch, type ProxyRequest, type ProxyResponse } from '../../functions/core/http';
import { buildQuery, smithySigner, type TestCredentials } from './sigv4/smithy';
import { ALL_ACTIONS, READ_ACTIONS, azuriteOptions, bucketToml, credentialToml, everywhere, s3Options, tableToml } from '../support/config-toml';
import { proxyRequest } from '../support/proxy-request';

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
/** In `open`: writes, deletes and tags of current objects; none of the version actions. */
const WRITER: TestCredentials = { accessKeyId: 'WRITERKEY00000000000', secretAccessKey: 'writer/secret/key/000000000000000000000' };

const BACKEND = s3Options('http://backend.test:9000', 'data', { accessKeyId: 'BACKENDKEY', secretAccessKey: 'backend-secret' });
const TAGGING = ['get_object_tagging', 'put_object_tagging', 'delete_object_tagging'];
/** What an object's ACL and lock headers need beside the write (issue 44). */
const ACL_AND_LOCKS = ['put_object_acl', 'put_object_retention', 'put_object_legal_hold', 'bypass_governance_retention'];
const CREDENTIALS = [
  credentialToml(ADMIN, { principal_name: 'admin' }, [everywhere([...ALL_ACTIONS, 'list_bucket_versions', 'delete_object_version', ...TAGGING, ...ACL_AND_LOCKS])]),
  credentialToml(READER, { principal_name: 'reader' }, [{ bucket: 'open', prefixes: ['reports/'], actions: READ_ACTIONS }]),
].join('\n');

const CONFIG = [
  bucketToml({ name: 'open', backend_type: 's3', anonymous_access: true }, { ...BACKEND, backend_prefix: 'tenant/' }),
  bucketToml({ name: 'blobs', backend_type: 'azure' }, azuriteOptions('http://azure.test:10000/devstoreaccount1', 'blobs')),
  CREDENTIALS,
].join('\n');

const WRITER_CREDENTIALS = credentialToml(WRITER, { principal_name: 'writer' }, [
  { bucket: 'open', actions: ['put_object', 'delete_object', 'upload_part', ...TAGGING] },
]);

/** The same backend as two mapped buckets, `acme:widgets` and `acme:gadgets`, under `[path_mapping]`. */
const MAPPED_CONFIG = [
  tableToml('[path_mapping]', { segments: 2 }),
  ...['acme:widgets', 'acme:gadgets'].map((name) => bucketToml({ name, backend_type: 's3' }, BACKEND)),
  CREDENTIALS,
].join('\n');

const noNetwork: BackendClient = async () => {
  throw new Error('connect ECONNREFUSED (no network in this spec)');
};

function gateway(env: Record<string, string> = {}, client: BackendClient = noNetwork, config = CONFIG + WRITER_CREDENTIALS): Gateway {
  return new Gateway(parseConfig(config, env), { client, now: () => NOW });
}

interface Req {
  readonly method: string;
  readonly path: string;
  readonly query?: Record<string, string>;
  readonly headers?: Record<string, string>;
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

    describe('a part of an object (?partNumber=)', () => {
      const forward = async (r: Req): Promise<Extract<Dispatch, { kind: 'forward' }>> => {
        const dispatch = await gateway().handle(await signed(ADMIN, r));
        if (dispatch.kind !== 'forward') throw new Error(`expected a forward, got ${dispatch.kind}`);
        return dispatch;
      };
      const OBJECT = { etag: '"e"', 'content-length': '10', 'last-modified': 'Mon, 01 Jun 2026 12:00:00 GMT' };

      it('GIVEN an S3 bucket THEN the part number goes to the store, which keeps the parts, and its part passes as it is', async () => {
        const dispatch = await forward({ method: 'GET', path: '/open/k', query: { partNumber: '2' } });
        expect(dispatch.request.url).toBe('http://backend.test:9000/data/tenant/k?partNumber=2');
        const part = { ...OBJECT, etag: '"d-2"', 'content-range': 'bytes 5-9/10', 'content-length': '5', 'x-amz-mp-parts-count': '2' };
        expect(dispatch.respond(206, new Headers(part))).toMatchObject({ status: 206, headers: { 'content-range': 'bytes 5-9/10', 'x-amz-mp-parts-count': '2' } });
      });

      it('GIVEN an S3 store that ignores the part number (RGW 16 answers 200 and the whole object) THEN the object is read as one part', async () => {
        const first = await forward({ method: 'GET', path: '/open/k', query: { partNumber: '1' } });
        expect(first.respond(200, new Headers(OBJECT))).toMatchObject({ status: 206, headers: { 'content-range': 'bytes 0-9/10' } });
        const second = await forward({ method: 'GET', path: '/open/k', query: { partNumber: '2' } });
        expect(second.respond(200, new Headers(OBJECT))).toMatchObject({ status: 416, errorCode: 'InvalidPartNumber' });
      });

      it('GIVEN an S3 store that ignores the part number WHEN a later part of an object uploaded in parts is read THEN 501, never the whole object again', async () => {
        const second = await forward({ method: 'GET', path: '/open/k', query: { partNumber: '2' } });
        expect(second.respond(200, new Headers({ ...OBJECT, etag: '"d-2"' }))).toMatchObject({ status: 501, errorCode: 'NotImplemented' });
      });

      it('GIVEN an Azure bucket WHEN part 1 is read THEN the whole object is sent as S3 sends a part of one uploaded whole: 206 with its range', async () => {
        const get = await forward({ method: 'GET', path: '/blobs/k', query: { partNumber: '1' } });
        expect(get.request.url).not.toMatch(/partNumber/);
        expect(get.request.headers.range).toBeUndefined();
        expect(get.respond(200, new Headers(OBJECT))).toMatchObject({ status: 206, headers: { 'content-range': 'bytes 0-9/10', 'content-length': '10', etag: '"e"' } });
        const head = await forward({ method: 'HEAD', path: '/blobs/k', query: { partNumber: '1' } });
        expect(head.respond(200, new Headers(OBJECT))).toMatchObject({ status: 206, headers: { 'content-range': 'bytes 0-9/10' } });
      });

      it('GIVEN an empty Azure blob WHEN part 1 is read THEN 200: an empty object has no range', async () => {
        const get = await forward({ method: 'GET', path: '/blobs/k', query: { partNumber: '1' } });
        const answer = get.respond(200, new Headers({ ...OBJECT, 'content-length': '0' }));
        expect(answer).toMatchObject({ status: 200 });
        expect(answer).not.toHaveProperty(['headers', 'content-range']);
      });

      it('GIVEN an Azure bucket WHEN part 2 is read THEN 416 InvalidPartNumber, or NoSuchKey with its document when there is no blob', async () => {
        const get = await forward({ method: 'GET', path: '/blobs/k', query: { partNumber: '2' } });
        const answer = get.respond(200, new Headers(OBJECT));
        expect(answer).toMatchObject({ status: 416, errorCode: 'InvalidPartNumber' });
        expect(answer).toHaveProperty('body', expect.stringContaining('<Message>The requested partnumber is not satisfiable</Message>'));
        expect(get.respond(404, new Headers({ 'x-ms-error-code': 'BlobNotFound' }))).toMatchObject({ status: 404, errorCode: 'NoSuchKey', body: expect.stringContaining('<Code>NoSuchKey</Code>') });
      });

      it('GIVEN a Range and a part number THEN 400 InvalidRequest, on every store', async () => {
        for (const path of ['/open/k', '/blobs/k']) {
          const dispatch = await gateway().handle(await signed(ADMIN, { method: 'GET', path, query: { partNumber: '1' }, headers: { range: 'bytes=0-1' } }));
          expect({ status: response(dispatch).status, code: errorCode(dispatch) }).toEqual({ status: 400, code: 'InvalidRequest' });
          expect(response(dispatch).body).toContain('Cannot specify both Range header and partNumber query parameter');
        }
      });
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

    it('GIVEN no MAX_UPLOAD_BYTES WHEN a PUT, a part or an aws-chunked PUT declares more than S3\'s 5 GiB THEN 400 EntityTooLarge, and 5 GiB itself is forwarded', async () => {
      const fiveGiB = 5 * 1024 ** 3;
      for (const req of [
        { method: 'PUT', path: '/open/x', headers: { 'content-length': String(fiveGiB + 1) } },
        { method: 'PUT', path: '/open/x', query: { partNumber: '1', uploadId: 'u' }, headers: { 'content-length': String(fiveGiB + 1) } },
        {
          method: 'PUT',
          path: '/open/x',
          headers: { 'content-encoding': 'aws-chunked', 'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER', 'x-amz-decoded-content-length': String(fiveGiB + 1), 'transfer-encoding': 'chunked' },
        },
      ] as Req[]) {
        const dispatch = await gateway().handle(await signed(ADMIN, req));
        expect(errorCode(dispatch)).toBe('EntityTooLarge');
        expect(text(response(dispatch))).toContain('<MaxSizeAllowed>5368709120</MaxSizeAllowed>');
      }
      const fits = await gateway().handle(await signed(ADMIN, { method: 'PUT', path: '/open/x', headers: { 'content-length': String(fiveGiB) } }));
      expect(fits.kind).toBe('forward');
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

    it('GIVEN an Azure bucket WHEN an authorized caller batch-deletes THEN its body is read as on an S3 bucket; an unauthorized one is refused first', async () => {
      const dispatch = await gateway().handle(await signed(ADMIN, { method: 'POST', path: '/blobs', query: { delete: '' }, headers: { 'content-length': '100' } }));
      expect(dispatch.kind === 'needs-body' && dispatch.maxBytes).toBe(2 * 1024 * 1024);
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

/** A backend that answers every request the core sends itself with `answer`, recording what it was sent. */
interface Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

function scripted(answer: (request: BackendRequest) => Answer, seen: BackendRequest[] = []): BackendClient {
  return async (request) => {
    seen.push(request);
    const a = answer(request);
    return { status: a.status, headers: new Headers(a.headers ?? {}), body: a.body === undefined ? null : new Response(a.body).body };
  };
}

function text(res: ProxyResponse): string {
  return typeof res.body === 'string' ? res.body : new TextDecoder().decode(res.body as Uint8Array);
}

/** The backend's own error document: its request id, bucket and host id must never reach the client. */
const BACKEND_ERROR = (code: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message></Message><BucketName>data</BucketName><RequestId>tx-backend-1</RequestId><HostId>backend-host</HostId></Error>`;

/** Presigned the way @aws-sdk/s3-request-presigner presigns: every `x-amz-*` header hoisted into the query. */
async function presigned(keys: TestCredentials, r: Req, unhoistableHeaders = new Set<string>()): Promise<ProxyRequest> {
  const out = await smithySigner(keys, 'us-east-1').presign(
    { method: r.method, protocol: 'http:', hostname: HOST, path: r.path, query: r.query ?? {}, headers: { host: HOST, 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD', ...r.headers } },
    { signingDate: new Date(NOW), expiresIn: 900, unhoistableHeaders },
  );
  const query = Object.fromEntries(Object.entries(out.query ?? {}).map(([k, v]) => [k, v as string]));
  return proxyRequest(r.method, r.path, buildQuery(query), out.headers);
}

describe('Gateway.handle, versions, part copies, tags and CreateBucket (issue 20)', () => {
  describe('CreateBucket never reaches a backend', () => {
    it.each([
      ['the admin, on a virtual bucket', ADMIN, '/open', 409, 'BucketAlreadyOwnedByYou'],
      ['a key with a read scope on it (any scope makes it the owner)', READER, '/open', 409, 'BucketAlreadyOwnedByYou'],
      ['a key without a scope on that bucket', READER, '/blobs', 403, 'AccessDenied'],
      ['the admin, on a name that is no virtual bucket', ADMIN, '/new-bucket', 403, 'AccessDenied'],
    ])('%s: %s → %i %s', async (_who, keys, path, status, code) => {
      const res = response(await gateway().handle(await signed(keys, { method: 'PUT', path })));
      expect(res.status).toBe(status);
      expect(errorCode({ kind: 'response', response: res })).toBe(code);
      if (status === 409) expect(res.body).toContain(`<BucketName>${path.slice(1)}</BucketName>`);
    });

    it('an anonymous caller is refused, even on a bucket open to reads', async () => {
      const dispatch = await gateway().handle(anonymous({ method: 'PUT', path: '/open' }));
      expect(response(dispatch).status).toBe(403);
    });

    it('with [path_mapping], the client-level bucket answers for its mapped buckets', async () => {
      const gw = gateway({}, noNetwork, MAPPED_CONFIG);
      expect(errorCode(await gw.handle(await signed(ADMIN, { method: 'PUT', path: '/acme' })))).toBe('BucketAlreadyOwnedByYou');
      expect(errorCode(await gw.handle(await signed(ADMIN, { method: 'PUT', path: '/nobody' })))).toBe('AccessDenied');
      expect(errorCode(await gw.handle(await signed(ADMIN, { method: 'PUT', path: '/acme:widgets' })))).toBe('AccessDenied');
    });
  });

  describe('authorization comes first; Azure answers 501 after it', () => {
    it.each<[string, TestCredentials, Req, string]>([
      ['list_bucket does not list versions', READER, { method: 'GET', path: '/open', query: { versions: '', prefix: 'reports/' } }, 'AccessDenied'],
      ['delete_object does not delete a version', WRITER, { method: 'DELETE', path: '/open/k', query: { versionId: 'v1' } }, 'AccessDenied'],
      ['a tag of a version needs get_object_version', WRITER, { method: 'GET', path: '/open/k', query: { tagging: '', versionId: 'v1' } }, 'AccessDenied'],
      ['tags need the tagging actions', READER, { method: 'GET', path: '/open/reports/k', query: { tagging: '' } }, 'AccessDenied'],
      ['a part copy needs a read of the source', WRITER, { method: 'PUT', path: '/open/k', query: { partNumber: '1', uploadId: 'u' }, headers: { 'x-amz-copy-source': '/open/src' } }, 'AccessDenied'],
      ['an Azure bucket has no versions to list', ADMIN, { method: 'GET', path: '/blobs', query: { versions: '' } }, 'NotImplemented'],
      ['an Azure bucket has no versions to delete', ADMIN, { method: 'DELETE', path: '/blobs/k', query: { versionId: 'v1' } }, 'NotImplemented'],
      ['an Azure bucket has no versions to tag', ADMIN, { method: 'PUT', path: '/blobs/k', query: { tagging: '', versionId: 'v1' }, headers: { 'content-length': '10' } }, 'NotImplemented'],
      ['a part copy into an Azure bucket reads its upload id first (from another store: 501 then)', ADMIN, { method: 'PUT', path: '/blobs/k', query: { partNumber: '1', uploadId: 'u' }, headers: { 'x-amz-copy-source': '/open/src' } }, 'NoSuchUpload'],
      ['an Azure version read, once authorized', ADMIN, { method: 'HEAD', path: '/blobs/k', query: { versionId: 'v1' } }, ''],
    ])('%s', async (_what, keys, req, code) => {
      const res = response(await gateway().handle(await signed(keys, req)));
      if (code === '') expect(res.status).toBe(501);
      else expect(errorCode({ kind: 'response', response: res })).toBe(code);
    });

    it('anonymous callers get none of the added operations, even on a bucket open to reads', async () => {
      for (const req of [
        { method: 'GET', path: '/open', query: { versions: '' } } as Req,
        { method: 'GET', path: '/open/k', query: { tagging: '' } },
        { method: 'DELETE', path: '/open/k', query: { versionId: 'v1' } },
      ]) {
        expect(response(await gateway().handle(anonymous(req))).status).toBe(403);
      }
    });

    it('DeleteObjects with delete_object_version alone gets past the bucket stage; with neither it is refused', async () => {
      const versionsOnly = `${CONFIG}\n${credentialToml(WRITER, { principal_name: 'pruner' }, [{ bucket: 'open', actions: ['delete_object_version'] }])}`;
      const req = { method: 'POST', path: '/open', query: { delete: '' }, headers: { 'content-length': '100' } };
      expect((await gateway({}, noNetwork, versionsOnly).handle(await signed(WRITER, req))).kind).toBe('needs-body');
      expect(errorCode(await gateway().handle(await signed(READER, req)))).toBe('AccessDenied');
    });
  });

  describe('what reaches the backend', () => {
    it('a versioned DELETE is a Forward naming exactly that version', async () => {
      const dispatch = await gateway().handle(await signed(ADMIN, { method: 'DELETE', path: '/open/a b', query: { versionId: 'v/1' } }));
      expect(dispatch.kind === 'forward' && dispatch.request.url).toBe('http://backend.test:9000/data/tenant/a%20b?versionId=v%2F1');
    });

    it('a conditional DELETE signs If-Match on the backend request, its tag bare; with a versionId it is 501 as on S3', async () => {
      const dispatch = await gateway().handle(await signed(ADMIN, { method: 'DELETE', path: '/open/k', headers: { 'if-match': '"e1"' } }));
      expect(dispatch.kind === 'forward' && dispatch.request.headers['if-match']).toBe('e1');
      expect(dispatch.kind === 'forward' && dispatch.request.headers.authorization).toContain('if-match');
      const versioned = await gateway().handle(await signed(ADMIN, { method: 'DELETE', path: '/open/k', query: { versionId: 'v1' }, headers: { 'if-match': '"e1"' } }));
      expect(errorCode(versioned)).toBe('NotImplemented');
    });

    it('object lock headers reach an S3 backend, signed, from a caller holding their actions: dropped, a locked object would be deletable', async () => {
      const lock = { 'x-amz-object-lock-mode': 'COMPLIANCE', 'x-amz-object-lock-retain-until-date': '2099-01-01T00:00:00Z', 'x-amz-object-lock-legal-hold': 'ON' };
      const put = await gateway().handle(await signed(ADMIN, { method: 'PUT', path: '/open/locked', headers: { 'content-length': '0', ...lock } }));
      expect(put.kind === 'forward' && put.request.headers).toMatchObject(lock);
      expect(put.kind === 'forward' && put.request.headers.authorization).toContain('x-amz-object-lock-mode');
    });

    it.each([
      ['x-amz-object-lock-mode', { 'x-amz-object-lock-mode': 'COMPLIANCE', 'x-amz-object-lock-retain-until-date': '2099-01-01T00:00:00Z' }, 'put_object_retention'],
      ['x-amz-object-lock-legal-hold', { 'x-amz-object-lock-legal-hold': 'ON' }, 'put_object_legal_hold'],
      ['x-amz-acl', { 'x-amz-acl': 'public-read' }, 'put_object_acl'],
      ['x-amz-grant-read', { 'x-amz-grant-read': 'uri="http://acs.amazonaws.com/groups/global/AllUsers"' }, 'put_object_acl'],
    ])('%s from a caller with put_object alone is 403 naming %s, before any backend request', async (_header, headers, action) => {
      const put = await gateway().handle(await signed(WRITER, { method: 'PUT', path: '/open/x', headers: { 'content-length': '0', ...headers } }));
      expect(errorCode(put)).toBe('AccessDenied');
      expect(text(response(put))).toContain(`may not ${action} on open/x`);
    });

    it('a write or delete comparing an ETag needs get_object as well: a writer without it is AccessDenied, also per DeleteObjects entry', async () => {
      for (const method of ['PUT', 'DELETE']) {
        const compared = await gateway().handle(await signed(WRITER, { method, path: '/open/k', headers: { 'content-length': '0', 'if-match': '"e1"' } }));
        expect(errorCode(compared)).toBe('AccessDenied');
        const exists = await gateway().handle(await signed(WRITER, { method, path: '/open/k', headers: { 'content-length': '0', 'if-match': '*' } }));
        expect(exists.kind).toBe('forward');
      }
      const req = await signed(WRITER, { method: 'POST', path: '/open', query: { delete: '' }, headers: { 'content-length': '100' } });
      const seen: BackendRequest[] = [];
      const dispatch = await gateway({}, scripted(() => ({ status: 200, body: '<DeleteResult><Deleted><Key>tenant/b</Key></Deleted></DeleteResult>' }), seen)).handle(req);
      if (dispatch.kind !== 'needs-body') throw new Error(`expected needs-body, got ${dispatch.kind}`);
      const res = response(await dispatch.withBody(new TextEncoder().encode('<Delete><Object><Key>a</Key><ETag>"e1"</ETag></Object><Object><Key>b</Key></Object></Delete>')));
      expect(text(res)).toMatch(/<Error><Key>a<\/Key><Code>AccessDenied<\/Code>/);
      expect(new TextDecoder().decode(seen[0].body as Uint8Array)).not.toContain('tenant/a');
    });

    it('DeleteObjects passes each entry\'s ETag on, for the backend to delete only that object', async () => {
      const seen: BackendRequest[] = [];
      const req = await signed(ADMIN, { method: 'POST', path: '/open', query: { delete: '' }, headers: { 'content-length': '100' } });
      const dispatch = await gateway({}, scripted(() => ({ status: 200, body: '<DeleteResult><Deleted><Key>tenant/a</Key></Deleted></DeleteResult>' }), seen)).handle(req);
      if (dispatch.kind !== 'needs-body') throw new Error(`expected needs-body, got ${dispatch.kind}`);
      await dispatch.withBody(new TextEncoder().encode('<Delete><Object><Key>a</Key><ETag>"e1"</ETag></Object><Object><Key>b</Key></Object></Delete>'));
      const sent = new TextDecoder().decode(seen[0].body as Uint8Array);
      expect(sent).toContain('<Object><Key>tenant/a</Key><ETag>&quot;e1&quot;</ETag></Object><Object><Key>tenant/b</Key></Object>');
    });

    it('a malformed Content-MD5 is refused before an S3 backend is asked, a well-formed one is left to it; on Azure the gateway checks it', async () => {
      const malformed = await gateway().handle(await signed(ADMIN, { method: 'PUT', path: '/open/k', headers: { 'content-length': '1', 'content-md5': 'abc' } }));
      expect(errorCode(malformed)).toBe('InvalidDigest');
      const s3 = await gateway().handle(await signed(ADMIN, { method: 'PUT', path: '/open/k', headers: { 'content-length': '1', 'content-md5': 'AAAAAAAAAAAAAAAAAAAAAA==' } }));
      expect(s3.kind === 'forward' && s3.request.body).toBe('client');
      const azure = await gateway().handle(await signed(ADMIN, { method: 'PUT', path: '/blobs/k', headers: { 'content-length': '1', 'content-md5': 'AAAAAAAAAAAAAAAAAAAAAA==' } }));
      expect(azure.kind === 'forward' && azure.request.body).toBeInstanceOf(ReadableStream);
    });

    it('tagging is forwarded with ?tagging (and the version), the tag set streaming as a body, its Content-MD5 left to the S3 backend', async () => {
      const get = await gateway().handle(await signed(ADMIN, { method: 'GET', path: '/open/k', query: { tagging: '', versionId: 'v1' } }));
      expect(get.kind === 'forward' && get.request.url).toBe('http://backend.test:9000/data/tenant/k?tagging=&versionId=v1');
      const put = await gateway().handle(await signed(WRITER, { method: 'PUT', path: '/open/k', query: { tagging: '' }, headers: { 'content-length': '80', 'content-md5': 'AAAAAAAAAAAAAAAAAAAAAA==' } }));
      expect(put.kind).toBe('forward');
      if (put.kind !== 'forward') return;
      expect(put.request.method).toBe('PUT');
      expect(put.request.body).toBe('client');
      expect(put.request.headers['content-md5']).toBe('AAAAAAAAAAAAAAAAAAAAAA==');
    });

    it('UploadPartCopy sends the source in the backend\'s bucket and key space, with the range and preconditions', async () => {
      const seen: BackendRequest[] = [];
      const client = scripted(() => ({ status: 200, body: '<CopyPartResult><ETag>"e"</ETag></CopyPartResult>' }), seen);
      const res = response(
        await gateway({}, client).handle(
          await signed(ADMIN, {
            method: 'PUT',
            path: '/open/big.bin',
            query: { partNumber: '2', uploadId: 'u1' },
            headers: { 'x-amz-copy-source': '/open/src%20file?versionId=v1', 'x-amz-copy-source-range': 'bytes=0-9', 'x-amz-copy-source-if-match': '"e"' },
          }),
        ),
      );
      expect(res.status).toBe(200);
      expect(text(res)).toContain('<ETag>"e"</ETag>');
      expect(seen[0].url).toBe('http://backend.test:9000/data/tenant/big.bin?partNumber=2&uploadId=u1');
      expect(seen[0].headers).toMatchObject({
        'x-amz-copy-source': '/data/tenant/src%20file?versionId=v1',
        'x-amz-copy-source-range': 'bytes=0-9',
        'x-amz-copy-source-if-match': '"e"',
      });
    });
  });

  describe('the request id a client sees is the same in the header and in every error body', () => {
    const copyHeaders = { 'x-amz-copy-source': '/open/src' };
    it.each<[string, Req]>([
      ['CopyObject', { method: 'PUT', path: '/open/dst', headers: copyHeaders }],
      ['UploadPartCopy', { method: 'PUT', path: '/open/dst', query: { partNumber: '1', uploadId: 'u' }, headers: copyHeaders }],
    ])('%s: an <Error> inside a 200 is rewritten with the gateway\'s id, keeping the 200', async (_op, req) => {
      const signedReq = await signed(ADMIN, req);
      const res = response(await gateway({}, scripted(() => ({ status: 200, headers: { 'x-amz-request-id': 'tx-backend-1' }, body: BACKEND_ERROR('InternalError') }))).handle(signedReq));
      expect(res.status).toBe(200);
      expect(res.headers['x-amz-request-id']).toBe(signedReq.requestId);
      expect(text(res)).toContain(`<RequestId>${signedReq.requestId}</RequestId>`);
      expect(text(res)).not.toMatch(/tx-backend-1|backend-host|<BucketName>/);
    });

    it('CompleteMultipartUpload: an <Error> inside a 200, likewise', async () => {
      const req = await signed(ADMIN, { method: 'POST', path: '/open/big.bin', query: { uploadId: 'u1' }, headers: { 'content-length': '100' } });
      const dispatch = await gateway({}, scripted(() => ({ status: 200, body: BACKEND_ERROR('InternalError') }))).handle(req);
      if (dispatch.kind !== 'needs-body') throw new Error(`expected needs-body, got ${dispatch.kind}`);
      const body = new TextEncoder().encode('<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"e"</ETag></Part></CompleteMultipartUpload>');
      const res = response(await dispatch.withBody(body));
      expect(res.headers['x-amz-request-id']).toBe(req.requestId);
      expect(text(res)).toContain(`<RequestId>${req.requestId}</RequestId>`);
      expect(text(res)).not.toContain('tx-backend-1');
    });

    it('UploadPartCopy: the backend\'s 412 passes through with its code, under the gateway\'s id', async () => {
      const req = await signed(ADMIN, { method: 'PUT', path: '/open/dst', query: { partNumber: '1', uploadId: 'u' }, headers: { ...copyHeaders, 'x-amz-copy-source-if-match': '"stale"' } });
      const res = response(await gateway({}, scripted(() => ({ status: 412, body: BACKEND_ERROR('PreconditionFailed') }))).handle(req));
      expect(res.status).toBe(412);
      expect(errorCode({ kind: 'response', response: res })).toBe('PreconditionFailed');
      expect(text(res)).toContain(`<RequestId>${req.requestId}</RequestId>`);
    });

    it('a forwarded error (GET, DELETE of a version, tagging) is rewritten with the gateway\'s id', async () => {
      for (const r of [
        { method: 'GET', path: '/open/missing' } as Req,
        { method: 'DELETE', path: '/open/k', query: { versionId: 'v1' } },
        { method: 'GET', path: '/open/k', query: { tagging: '' } },
      ]) {
        const req = await signed(ADMIN, r);
        const dispatch = await gateway().handle(req);
        if (dispatch.kind !== 'forward') throw new Error(`expected a forward, got ${dispatch.kind}`);
        const answer = dispatch.respond(404, new Headers({ 'x-amz-request-id': 'tx-backend-1', 'content-type': 'application/xml' }));
        if (!isRewriteBody(answer)) throw new Error('expected the error body to be rewritten');
        const res = answer.rewrite(new TextEncoder().encode(BACKEND_ERROR('NoSuchKey')));
        expect(res.headers['x-amz-request-id']).toBe(req.requestId);
        expect(text(res)).toContain(`<RequestId>${req.requestId}</RequestId>`);
        expect(text(res)).not.toContain('tx-backend-1');
      }
    });

    it('a listing error, likewise', async () => {
      const req = await signed(ADMIN, { method: 'GET', path: '/open', query: { versions: '' } });
      const res = response(await gateway({}, scripted(() => ({ status: 503, headers: { 'x-amz-request-id': 'tx-backend-1' }, body: BACKEND_ERROR('SlowDown') }))).handle(req));
      expect(res.status).toBe(503);
      expect(res.headers['x-amz-request-id']).toBe(req.requestId);
      expect(text(res)).toContain(`<RequestId>${req.requestId}</RequestId>`);
    });
  });

  describe('listing details S3 clients rely on', () => {
    const EMPTY = '<ListBucketResult><Name>data</Name><IsTruncated>false</IsTruncated></ListBucketResult>';

    it('an empty continuation-token is echoed back as ContinuationToken', async () => {
      const res = response(await gateway({}, scripted(() => ({ status: 200, body: EMPTY }))).handle(await signed(ADMIN, { method: 'GET', path: '/open', query: { 'list-type': '2', 'continuation-token': '' } })));
      expect(text(res)).toContain('<ContinuationToken></ContinuationToken>');
    });

    it('with encoding-type=url, V1 leaves its Prefix as sent (botocore does not decode it); V2 encodes it', async () => {
      const gw = gateway({}, scripted(() => ({ status: 200, body: EMPTY })));
      const v1 = response(await gw.handle(await signed(ADMIN, { method: 'GET', path: '/open', query: { prefix: '\n', 'encoding-type': 'url' } })));
      expect(text(v1)).toContain('<Prefix>\n</Prefix>');
      const v2 = response(await gw.handle(await signed(ADMIN, { method: 'GET', path: '/open', query: { 'list-type': '2', prefix: '\n', 'encoding-type': 'url' } })));
      expect(text(v2)).toContain('<Prefix>%0A</Prefix>');
      const plain = response(await gw.handle(await signed(ADMIN, { method: 'GET', path: '/open', query: { 'list-type': '2', prefix: '\n' } })));
      expect(text(plain)).toContain('<Prefix>\n</Prefix>');
    });

    it('ListObjectVersions keeps the backend\'s interleaving of versions and delete markers, owned by the gateway', async () => {
      const page =
        '<ListVersionsResult><IsTruncated>false</IsTruncated>' +
        '<DeleteMarker><Key>tenant/z</Key><VersionId>d2</VersionId><IsLatest>true</IsLatest><Owner><ID>rgw-user</ID></Owner></DeleteMarker>' +
        '<Version><Key>tenant/z</Key><VersionId>v1</VersionId><IsLatest>false</IsLatest><Owner><ID>rgw-user</ID></Owner></Version>' +
        '<DeleteMarker><Key>tenant/zz</Key><VersionId>d3</VersionId><IsLatest>true</IsLatest></DeleteMarker></ListVersionsResult>';
      const seen: BackendRequest[] = [];
      const res = response(await gateway({}, scripted(() => ({ status: 200, body: page }), seen)).handle(await signed(ADMIN, { method: 'GET', path: '/open', query: { versions: '' } })));
      expect(seen[0].url).toBe('http://backend.test:9000/data/?versions=&encoding-type=url&max-keys=1000&prefix=tenant%2F');
      const order = [...text(res).matchAll(/<(Version|DeleteMarker)><Key>([^<]*)<\/Key><VersionId>([^<]*)</g)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
      expect(order).toEqual(['DeleteMarker z d2', 'Version z v1', 'DeleteMarker zz d3']);
      expect(text(res)).not.toContain('rgw-user');
    });
  });

  describe('GetBucketVersioning', () => {
    const versioning = { method: 'GET', path: '/open', query: { versioning: '' } };

    it("an S3 bucket shows its backend bucket's Status and MfaDelete, and nothing else", async () => {
      const answer = '<VersioningConfiguration><Status>Suspended</Status><MfaDelete>Disabled</MfaDelete><Owner>rgw-user</Owner></VersioningConfiguration>';
      const seen: BackendRequest[] = [];
      const res = response(await gateway({}, scripted(() => ({ status: 200, body: answer }), seen)).handle(await signed(READER, versioning)));
      expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET http://backend.test:9000/data/?versioning=']);
      expect(text(res)).toContain('<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Suspended</Status><MfaDelete>Disabled</MfaDelete></VersioningConfiguration>');
    });

    it("passes the backend's refusal on in the client's terms", async () => {
      const refusal = { status: 403, body: '<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>' };
      const res = response(await gateway({}, scripted(() => refusal)).handle(await signed(ADMIN, versioning)));
      expect([res.status, errorCode({ kind: 'response', response: res })]).toEqual([403, 'AccessDenied']);
    });

    it('an Azure bucket, which serves no versions here, answers as one never versioned, without a backend call', async () => {
      const res = response(await gateway({}, noNetwork).handle(await signed(ADMIN, { method: 'GET', path: '/blobs', query: { versioning: '' } })));
      expect(text(res)).toMatch(/<VersioningConfiguration xmlns="[^"]+"><\/VersioningConfiguration>$/);
    });

    it('is refused to an anonymous caller, even on a bucket open to reads', async () => {
      expect(errorCode(await gateway({}, noNetwork).handle(anonymous(versioning)))).toBe('AccessDenied');
    });
  });

  describe('presigned URLs: signed x-amz-* query parameters are the headers they stand for', () => {
    it('a presigned PUT with x-amz-copy-source is a copy, never an empty PutObject over the destination', async () => {
      const seen: BackendRequest[] = [];
      const client = scripted(() => ({ status: 200, body: '<CopyObjectResult><ETag>"e"</ETag></CopyObjectResult>' }), seen);
      const req = await presigned(ADMIN, { method: 'PUT', path: '/open/dst', headers: { 'x-amz-copy-source': '/open/src', 'x-amz-metadata-directive': 'COPY' } });
      expect(req.rawQuery).toContain('x-amz-copy-source=');
      const dispatch = await gateway({}, client).handle(req);
      expect(text(response(dispatch))).toContain('CopyObjectResult');
      expect(seen[0].method).toBe('PUT');
      expect(seen[0].headers['x-amz-copy-source']).toBe('/data/tenant/src');
      expect(seen[0].headers['x-amz-metadata-directive']).toBe('COPY');
    });

    it('a presigned PUT with metadata forwards the metadata, signed on the backend request', async () => {
      const req = await presigned(WRITER, { method: 'PUT', path: '/open/k', headers: { 'x-amz-meta-colour': 'blue' } });
      const dispatch = await gateway().handle(Object.assign(req, { headers: new Headers({ host: HOST, 'content-length': '4' }) }));
      expect(dispatch.kind === 'forward' && dispatch.request.headers['x-amz-meta-colour']).toBe('blue');
    });

    it('a parameter also sent as a (signed) header is 400 InvalidArgument', async () => {
      const headers = { 'content-length': '4', 'x-amz-meta-colour': 'blue' };
      const both = await presigned(WRITER, { method: 'PUT', path: '/open/k', query: { 'x-amz-meta-colour': 'red' }, headers }, new Set(['x-amz-meta-colour']));
      const res = response(await gateway().handle(both));
      expect(res.status).toBe(400);
      expect(errorCode({ kind: 'response', response: res })).toBe('InvalidArgument');
    });

    it('an anonymous request\'s x-amz-* parameters are not headers: an anonymous PUT is refused as a write', async () => {
      const dispatch = await gateway().handle(anonymous({ method: 'PUT', path: '/open/dst', query: { 'x-amz-copy-source': '/open/src' } }));
      expect(errorCode(dispatch)).toBe('AccessDenied');
    });
  });

  describe('with [path_mapping], multipart answers name what the client addressed', () => {
    it('CreateMultipartUpload: Bucket is the client-level bucket, Key starts with the mapped segment', async () => {
      const client = scripted(() => ({ status: 200, body: '<InitiateMultipartUploadResult><Bucket>data</Bucket><Key>k</Key><UploadId>u1</UploadId></InitiateMultipartUploadResult>' }));
      const res = response(await gateway({}, client, MAPPED_CONFIG).handle(await signed(ADMIN, { method: 'POST', path: '/acme/widgets/dir/k', query: { uploads: '' } })));
      expect(text(res)).toContain('<Bucket>acme</Bucket><Key>widgets/dir/k</Key><UploadId>u1</UploadId>');
      expect(text(res)).not.toContain('acme:widgets');
    });

    it('ListParts and CompleteMultipartUpload likewise, Location included', async () => {
      const list = scripted(() => ({ status: 200, body: '<ListPartsResult><Bucket>data</Bucket><Key>dir/k</Key><UploadId>u1</UploadId></ListPartsResult>' }));
      const parts = response(await gateway({}, list, MAPPED_CONFIG).handle(await signed(ADMIN, { method: 'GET', path: '/acme/widgets/dir/k', query: { uploadId: 'u1' } })));
      expect(text(parts)).toContain('<Bucket>acme</Bucket><Key>widgets/dir/k</Key>');
      const done = scripted(() => ({ status: 200, body: '<CompleteMultipartUploadResult><ETag>"e-1"</ETag></CompleteMultipartUploadResult>' }));
      const dispatch = await gateway({}, done, MAPPED_CONFIG).handle(await signed(ADMIN, { method: 'POST', path: '/acme/widgets/dir/k', query: { uploadId: 'u1' }, headers: { 'content-length': '10' } }));
      if (dispatch.kind !== 'needs-body') throw new Error(`expected needs-body, got ${dispatch.kind}`);
      const res = response(await dispatch.withBody(new TextEncoder().encode('<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"e"</ETag></Part></CompleteMultipartUpload>')));
      expect(text(res)).toContain('<Location>/acme/widgets/dir/k</Location><Bucket>acme</Bucket><Key>widgets/dir/k</Key>');
    });

    it('ListMultipartUploads and ListObjectVersions on the client-level bucket serve the one mapped bucket the prefix names; any other prefix is 501', async () => {
      const seen: BackendRequest[] = [];
      const uploads = scripted(() => ({ status: 200, body: '<ListMultipartUploadsResult><IsTruncated>false</IsTruncated><Upload><Key>dir/k</Key><UploadId>u1</UploadId></Upload></ListMultipartUploadsResult>' }), seen);
      const res = response(await gateway({}, uploads, MAPPED_CONFIG).handle(await signed(ADMIN, { method: 'GET', path: '/acme', query: { uploads: '', prefix: 'widgets/dir/' } })));
      expect(seen[0].url).toContain('prefix=dir%2F');
      expect(text(res)).toContain('<Bucket>acme</Bucket>');
      expect(text(res)).toContain('<Key>widgets/dir/k</Key>');
      const wide = await gateway({}, uploads, MAPPED_CONFIG).handle(await signed(ADMIN, { method: 'GET', path: '/acme', query: { versions: '', prefix: 'wid' } }));
      expect(response(wide).status).toBe(501);
    });
  });
});
