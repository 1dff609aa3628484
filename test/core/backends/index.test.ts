import { parseConfig } from '../../../functions/core/config/parse';
import { Gateway } from '../../../functions/core/gateway';
import type { BackendRequest, Dispatch, ProxyRequest, ProxyResponse } from '../../../functions/core/http';
import { RequestRecord } from '../../../functions/core/observability/record';
import { traceContext } from '../../../functions/core/observability/trace';
import { buildQuery, smithySigner, type TestCredentials } from '../sigv4/smithy';
import { ALL_ACTIONS, azuriteOptions, bucketToml, credentialToml, everywhere, s3Options } from '../../support/config-toml';
import { backendRecorder } from '../../support/backend-recorder';
import { proxyRequest } from '../../support/proxy-request';

/**
 * The stores' client (createStores): every backend request the core sends itself for a client request (a
 * listing, a copy, multipart control, a batch delete, Azure's and GCS's lookups) carries the client's trace,
 * stamped after signing, as the dispatch loop does for a Forward. In process: the runtime's client is a
 * recorder answering each request with a plausible document (test/support/backend-recorder.ts).
 * test/e2e/observability.test.ts checks the same against real RGW, through a recording hop.
 */
const NOW = Date.UTC(2026, 5, 1, 12);
const HOST = 'gateway.test';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const TRACESTATE = 'congo=t61rcWkgMzE';
const ADMIN: TestCredentials = { accessKeyId: 'ADMINKEY000000000000', secretAccessKey: 'admin/secret/key/0000000000000000000000' };

const CONFIG = [
  bucketToml({ name: 'data', backend_type: 's3' }, s3Options('http://backend.test:9000', 'data', { accessKeyId: 'BACKENDKEY', secretAccessKey: 'backend-secret' })),
  bucketToml({ name: 'blobs', backend_type: 'azure' }, azuriteOptions('http://azure.test:10000/devstoreaccount1', 'blobs')),
  bucketToml({ name: 'cloud', backend_type: 'gcs' }, { bucket_name: 'cloud', endpoint: 'http://gcs.test:4443', api: 'json' }),
  credentialToml(ADMIN, { principal_name: 'admin' }, [everywhere([...ALL_ACTIONS, 'list_bucket_versions', 'delete_object_version'])]),
].join('\n');

interface Req {
  readonly method: string;
  readonly path: string;
  readonly query?: Record<string, string>;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** Header-signed as the SDKs sign, with the client's trace context as unsigned headers beside it. */
async function signed(r: Req, trace: Record<string, string>): Promise<ProxyRequest> {
  const headers = { host: HOST, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...r.headers };
  const out = await smithySigner(ADMIN, 'us-east-1').sign(
    { method: r.method, protocol: 'http:', hostname: HOST, path: r.path, query: r.query ?? {}, headers },
    { signingDate: new Date(NOW) },
  );
  return proxyRequest(r.method, r.path, buildQuery(r.query ?? {}), { ...out.headers, ...trace });
}

/** Runs the request to its response (a NeedsBody gets `r.body`), as a runtime does; Forwards are not sent. */
async function run(r: Req, trace: Record<string, string>, withRecord = true): Promise<{ seen: BackendRequest[]; record?: RequestRecord; result: Dispatch }> {
  const seen: BackendRequest[] = [];
  const gateway = new Gateway(parseConfig(CONFIG, {}), { client: backendRecorder(seen), now: () => NOW });
  const request = await signed(r, trace);
  const record = withRecord ? new RequestRecord(0, traceContext(request.headers)) : undefined;
  let result = await gateway.handle(request, record);
  if (result.kind === 'needs-body') result = await result.withBody(new TextEncoder().encode(r.body ?? ''));
  return { seen, record, result };
}

function status(result: Dispatch): number {
  return result.kind === 'response' ? (result.response as ProxyResponse).status : 0;
}

const CLIENT_TRACE = { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01`, tracestate: TRACESTATE };
const COMPLETE = '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"p1"</ETag></Part></CompleteMultipartUpload>';
const DELETE = '<Delete><Object><Key>k</Key></Object></Delete>';

const OWN_CALLS: Array<[string, Req, number]> = [
  ['ListObjectsV2', { method: 'GET', path: '/data', query: { 'list-type': '2' } }, 1],
  ['ListObjects (V1)', { method: 'GET', path: '/data' }, 1],
  ['ListObjectVersions', { method: 'GET', path: '/data', query: { versions: '' } }, 1],
  ['ListMultipartUploads', { method: 'GET', path: '/data', query: { uploads: '' } }, 1],
  ['ListParts', { method: 'GET', path: '/data/k', query: { uploadId: 'u1' } }, 1],
  ['CopyObject', { method: 'PUT', path: '/data/k', headers: { 'x-amz-copy-source': '/data/src' } }, 1],
  ['UploadPartCopy', { method: 'PUT', path: '/data/k', query: { partNumber: '1', uploadId: 'u1' }, headers: { 'x-amz-copy-source': '/data/src' } }, 1],
  ['CreateMultipartUpload', { method: 'POST', path: '/data/k', query: { uploads: '' } }, 1],
  ['CompleteMultipartUpload (and the HEAD after RGW\'s empty ETag)', { method: 'POST', path: '/data/k', query: { uploadId: 'u1' }, body: COMPLETE }, 2],
  ['DeleteObjects', { method: 'POST', path: '/data', query: { delete: '' }, body: DELETE }, 1],
  ['an Azure listing', { method: 'GET', path: '/blobs', query: { 'list-type': '2' } }, 1],
  ['a GCS listing (JSON API)', { method: 'GET', path: '/cloud', query: { 'list-type': '2' } }, 1],
  ['an Azure copy (the source\'s HEAD and tags, Copy Blob, the new blob\'s HEAD)', { method: 'PUT', path: '/blobs/k', headers: { 'x-amz-copy-source': '/blobs/src' } }, 4],
  ['an Azure DeleteObjects (one Delete Blob per key)', { method: 'POST', path: '/blobs', query: { delete: '' }, body: DELETE }, 1],
  ['a GCS copy (the source\'s resource, copyTo)', { method: 'PUT', path: '/cloud/k', headers: { 'x-amz-copy-source': '/cloud/src' } }, 2],
  ['a GCS DeleteObjects (one delete per key)', { method: 'POST', path: '/cloud', query: { delete: '' }, body: DELETE }, 1],
];

describe('createStores: the core\'s own backend requests carry the client\'s trace', () => {
  it.each(OWN_CALLS)('%s: every backend request has traceparent (the gateway\'s span) and tracestate, unsigned', async (_, req, calls) => {
    const { seen, record, result } = await run(req, CLIENT_TRACE);
    expect(status(result)).toBe(200);
    expect(seen).toHaveLength(calls);
    const span = record!.trace.spanId;
    expect(span).not.toBe(CLIENT_SPAN);
    for (const sent of seen) {
      expect(sent.headers.traceparent).toBe(`00-${TRACE_ID}-${span}-01`);
      expect(sent.headers.tracestate).toBe(TRACESTATE);
      // Signed before it was stamped: SigV4 never names it, Azure's Shared Key covers only x-ms-* headers.
      expect(sent.headers.authorization ?? '').not.toMatch(/traceparent|tracestate/);
    }
  });

  it('stamps after signing: the signed headers and signature are those of the same request without a trace', async () => {
    const req = OWN_CALLS[5][1];
    const traced = (await run(req, CLIENT_TRACE)).seen[0];
    const untraced = (await run(req, {}, false)).seen[0];
    expect(untraced.headers.traceparent).toBeUndefined();
    const { traceparent, tracestate, ...rest } = traced.headers;
    expect([traceparent, tracestate]).toEqual([expect.stringContaining(TRACE_ID), TRACESTATE]);
    expect(rest).toEqual(untraced.headers);
  });

  it('a request without a client trace still has one: a new trace id, no tracestate', async () => {
    const { seen, record } = await run(OWN_CALLS[0][1], { tracestate: 'orphan=1' });
    expect(seen[0].headers.traceparent).toBe(`00-${record!.trace.traceId}-${record!.trace.spanId}-00`);
    expect(seen[0].headers).not.toHaveProperty('tracestate');
  });

  it('the lookups a store makes before its Forward are traced too: Azure\'s blob size for a suffix range, GCS\'s object resource', async () => {
    for (const path of ['/blobs/k', '/cloud/k']) {
      const { seen, record, result } = await run({ method: 'GET', path, headers: { range: 'bytes=-4' } }, CLIENT_TRACE);
      expect(result.kind).toBe('forward');
      expect(seen).toHaveLength(1);
      expect(seen[0].headers.traceparent).toBe(`00-${TRACE_ID}-${record!.trace.spanId}-01`);
    }
  });

  it('a Forward leaves the trace to the runtime\'s dispatch loop: the core adds nothing to it', async () => {
    const { seen, result } = await run({ method: 'GET', path: '/data/k' }, CLIENT_TRACE);
    expect(seen).toHaveLength(0);
    expect(result.kind === 'forward' && result.request.headers).not.toHaveProperty('traceparent');
  });
});
