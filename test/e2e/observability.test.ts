import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { AssumeRoleWithWebIdentityCommand, STSClient, STSServiceException } from '@aws-sdk/client-sts';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { presignedUrl } from './browsers-fixtures';
import { ADMIN } from './fixtures';
import { awsCli, jsClient, type Keys } from '../support/clients';
import { READ_ACTIONS, bucketToml, credentialToml, everywhere, roleToml, rgwOptions, s3Options } from '../support/config-toml';
import { freePort, startGateway, type RunningGateway, type RuntimeName } from '../support/gateway';
import { startOidcIssuer, type OidcIssuer } from '../support/oidc-issuer';
import { startPrometheus, type Prometheus } from '../support/prometheus';
import { rawRequest } from '../support/raw-request';
import { startRecordingHop, type RecordedRequest, type RecordingHop } from '../support/recording-hop';
import { createBucket, startRgw, type Rgw } from '../support/rgw';

/**
 * Operating the gateway (issue 24), with real parts: Ceph RGW behind it, a local HTTPS OIDC issuer for STS
 * sessions, aws-cli and the JS SDK as clients, a real Prometheus scraping the Node server's METRICS_PORT, and
 * the Lambda handler's EMF lines. Every identity kind's audit fields, the trace carried to RGW (seen by a
 * recording hop in front of it) and back into the log, and no secret or token anywhere in what the gateway
 * logged. The trace reaches RGW on forwarded requests and on the gateway's own (listings, copies, multipart
 * control, batch deletes).
 */
const ROLE_ARN = 'arn:aws:iam::000000000000:role/ci';
const SUBJECT = 'repo:acme/widgets:ref:refs/heads/main';
const SESSION_TOKEN_KEY = randomBytes(32).toString('base64');
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
/** The trace an instrumented SDK client sends with the requests the gateway answers with its own backend calls. */
const SDK_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SDK_PARENT_ID = 'b7ad6b7169203331';
const SDK_TRACESTATE = 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE';
const A_BYTES = 1000;
const B_BYTES = 500;

let rgw: Rgw;
/** Between the gateway and RGW: what each backend request carried. */
let hop: RecordingHop;
let issuer: OidcIssuer;
let workdir: string;

beforeAll(async () => {
  [rgw, issuer] = await Promise.all([startRgw(), startOidcIssuer()]);
  await createBucket(rgw, 'data');
  hop = await startRecordingHop(rgw.endpoint);
  workdir = mkdtempSync(join(tmpdir(), 'observability-'));
  writeFileSync(join(workdir, 'a.txt'), 'a'.repeat(A_BYTES));
  writeFileSync(join(workdir, 'b.txt'), 'b'.repeat(B_BYTES));
}, 180_000);

afterAll(async () => {
  await Promise.all([hop?.stop(), rgw?.stop(), issuer?.stop()]);
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

function config(): string {
  return [
    bucketToml({ name: 'data', backend_type: 's3', anonymous_access: true }, rgwOptions({ endpoint: hop.endpoint, accessKeyId: rgw.accessKeyId }, 'data')),
    bucketToml(
      { name: 'down', backend_type: 's3', anonymous_access: true },
      s3Options('http://127.0.0.1:1', 'down', { accessKeyId: 'AKIDDOWN', secretAccessKey: 'down-backend-secret' }),
    ),
    credentialToml(ADMIN, { principal_name: 'admin' }, [everywhere([...READ_ACTIONS, 'put_object', 'delete_object', 'create_multipart_upload', 'upload_part', 'complete_multipart_upload'])]),
    roleToml({ role_id: ROLE_ARN, name: 'CI', trusted_oidc_issuers: [issuer.url], subject_conditions: ['repo:acme/*:ref:refs/heads/main'] }, [
      { bucket: 'data', prefixes: ['ci/'], actions: ['get_object', 'put_object'] },
    ]),
  ].join('\n');
}

/** What the traffic used that must never be logged. */
interface Secrets {
  readonly values: string[];
}

interface LogEntry extends Record<string, unknown> {
  readonly requestId: string;
  readonly operation?: string;
  readonly key?: string;
}

/**
 * The same traffic on every runtime: a static key (aws-cli), an STS session (SDK for the exchange, aws-cli
 * for S3), anonymous reads with a client's traceparent, a presigned GET, a bucket that does not exist, one
 * whose backend is down, and a refused token exchange. Returns what must stay out of the log.
 */
async function traffic(gw: RunningGateway): Promise<Secrets> {
  const values = [ADMIN.secretAccessKey, rgw.secretAccessKey, SESSION_TOKEN_KEY, 'down-backend-secret'];
  const put = await awsCli('v2', gw.endpoint, ADMIN, ['s3api', 'put-object', '--bucket', 'data', '--key', 'obs/a.txt', '--body', join(workdir, 'a.txt')]);
  expect(put).toMatchObject({ code: 0 });
  const sdk = jsClient(gw.endpoint, ADMIN);
  for (let i = 0; i < 2; i++) await (await sdk.send(new GetObjectCommand({ Bucket: 'data', Key: 'obs/a.txt' }))).Body?.transformToString();
  sdk.destroy();

  const token = await issuer.mint();
  const sts = new STSClient({ region: 'us-east-1', endpoint: gw.endpoint, maxAttempts: 1 });
  const assumed = await sts.send(new AssumeRoleWithWebIdentityCommand({ RoleArn: ROLE_ARN, RoleSessionName: 'ci', WebIdentityToken: token }));
  const refusedToken = `${token.slice(0, -8)}AAAAAAAA`;
  const refused = await sts.send(new AssumeRoleWithWebIdentityCommand({ RoleArn: ROLE_ARN, RoleSessionName: 'ci', WebIdentityToken: refusedToken })).catch((err: unknown) => err);
  sts.destroy();
  expect((refused as STSServiceException).name).toBe('InvalidIdentityTokenException');
  const c = assumed.Credentials!;
  const session: Keys = { accessKeyId: c.AccessKeyId!, secretAccessKey: c.SecretAccessKey!, sessionToken: c.SessionToken! };
  values.push(token, refusedToken, session.secretAccessKey, session.sessionToken!);
  expect(await awsCli('v2', gw.endpoint, session, ['s3api', 'put-object', '--bucket', 'data', '--key', 'ci/b.txt', '--body', join(workdir, 'b.txt')])).toMatchObject({ code: 0 });
  expect(await awsCli('v2', gw.endpoint, session, ['s3api', 'get-object', '--bucket', 'data', '--key', 'ci/b.txt', join(workdir, 'b.out')])).toMatchObject({ code: 0 });

  const traced = await rawRequest(gw.endpoint, { method: 'GET', target: '/data/obs/a.txt', headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } });
  expect(traced.status).toBe(200);
  const url = await presignedUrl(gw.endpoint, ADMIN, 'GET', '/data/obs/a.txt');
  values.push(new URL(url).searchParams.get('X-Amz-Signature')!);
  expect((await fetch(url)).status).toBe(200);
  expect((await rawRequest(gw.endpoint, { method: 'GET', target: '/nosuch/x', headers: { traceparent: 'garbage' } })).status).toBe(404);
  expect((await rawRequest(gw.endpoint, { method: 'GET', target: '/down/x' })).status).toBe(503);
  await sdkTracedTraffic(gw);
  return { values };
}

/** A JS SDK client whose every request carries SDK_TRACE_ID, as an instrumented application's requests do. */
function tracedClient(gw: RunningGateway): S3Client {
  const client = jsClient(gw.endpoint, ADMIN);
  client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers: Record<string, string> };
      request.headers.traceparent = `00-${SDK_TRACE_ID}-${SDK_PARENT_ID}-01`;
      request.headers.tracestate = SDK_TRACESTATE;
      return next(args);
    },
    { step: 'build' },
  );
  return client;
}

/**
 * Requests the gateway serves with backend calls of its own (a listing, a copy, multipart control, a batch
 * delete), and an UploadPart it forwards, all in the SDK client's trace. The log names every line's span.
 */
async function sdkTracedTraffic(gw: RunningGateway): Promise<void> {
  const sdk = tracedClient(gw);
  try {
    expect((await sdk.send(new ListObjectsV2Command({ Bucket: 'data', Prefix: 'obs/' }))).KeyCount).toBe(1);
    await sdk.send(new CopyObjectCommand({ Bucket: 'data', Key: 'traced/copy.txt', CopySource: 'data/obs/a.txt' }));
    const { UploadId } = await sdk.send(new CreateMultipartUploadCommand({ Bucket: 'data', Key: 'traced/mpu.txt' }));
    const { ETag } = await sdk.send(new UploadPartCommand({ Bucket: 'data', Key: 'traced/mpu.txt', UploadId, PartNumber: 1, Body: 'part one' }));
    await sdk.send(new CompleteMultipartUploadCommand({ Bucket: 'data', Key: 'traced/mpu.txt', UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag }] } }));
    const deleted = await sdk.send(new DeleteObjectsCommand({ Bucket: 'data', Delete: { Objects: [{ Key: 'traced/copy.txt' }, { Key: 'traced/mpu.txt' }] } }));
    expect(deleted.Deleted?.map((d) => d.Key).sort()).toEqual(['traced/copy.txt', 'traced/mpu.txt']);
  } finally {
    sdk.destroy();
  }
}

/** The requests RGW received in the trace of `entry`'s request, with its span (the gateway's) as parent. */
function atBackend(entry: LogEntry): RecordedRequest[] {
  return hop.requests.filter((r) => r.headers.traceparent === `00-${String(entry.traceId)}-${String(entry.spanId)}-01`);
}

/** Each SDK-traced operation, and how its main backend request (the gateway's own call, or the Forward) looks. */
const OWN_CALLS: ReadonlyArray<[string, (r: RecordedRequest) => boolean]> = [
  ['ListObjects', (r) => r.method === 'GET' && r.path.includes('list-type=2')],
  ['CopyObject', (r) => r.method === 'PUT' && String(r.headers['x-amz-copy-source']).endsWith('obs/a.txt')],
  ['CreateMultipartUpload', (r) => r.method === 'POST' && /[?&]uploads(=|&|$)/.test(r.path)],
  ['UploadPart', (r) => r.method === 'PUT' && r.path.includes('partNumber=1')],
  ['CompleteMultipartUpload', (r) => r.method === 'POST' && r.path.includes('uploadId=')],
  ['DeleteObjects', (r) => r.method === 'POST' && /[?&]delete(=|&|$)/.test(r.path)],
];

/**
 * Every backend request of a traced request reached RGW in the client's trace, with the gateway's span as
 * its parent (the span its log line names) and the client's tracestate, outside what the gateway signed.
 */
function expectTracesAtBackend(entries: LogEntry[]): void {
  const get = only(entries, (e) => e.parentSpanId === PARENT_ID);
  expect(atBackend(get)).toEqual([expect.objectContaining({ method: 'GET', path: '/data/obs/a.txt' })]);
  expect(atBackend(get)[0].headers).not.toHaveProperty('tracestate');
  for (const [operation, isItsRequest] of OWN_CALLS) {
    const entry = only(entries, (e) => e.traceId === SDK_TRACE_ID && e.operation === operation);
    expect(entry).toMatchObject({ parentSpanId: SDK_PARENT_ID, status: 200 });
    // Named, so a failure says whose backend request went without the trace. Complete may send a HEAD too.
    const sent = atBackend(entry);
    expect({ operation, reached: sent.some(isItsRequest) }).toEqual({ operation, reached: true });
    for (const request of sent) {
      expect(request.headers.tracestate).toBe(SDK_TRACESTATE);
      const signedHeaders = /SignedHeaders=([^,]*)/.exec(String(request.headers.authorization))?.[1];
      expect(signedHeaders).toContain('host');
      expect(signedHeaders).not.toMatch(/traceparent|tracestate/);
    }
  }
}

/** The access-log lines the gateway wrote (stdout), parsed. */
function accessLog(gw: RunningGateway): LogEntry[] {
  return gw
    .logs()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"requestId"') && line.includes('"status"'))
    .map((line) => JSON.parse(line) as LogEntry);
}

function only(entries: LogEntry[], match: (e: LogEntry) => boolean): LogEntry {
  const found = entries.filter(match);
  expect(found).toHaveLength(1);
  return found[0];
}

/** The audit fields of every identity kind, and the trace, as the access log has them on `runtime`. */
async function expectAuditTrail(gw: RunningGateway, secrets: Secrets): Promise<LogEntry[]> {
  // The last requests' lines are written once their responses are done.
  expect(await gw.logged(/"path":"\/down\/x"/)).toBe(true);
  expect(await gw.logged(/"operation":"DeleteObjects"/)).toBe(true);
  const entries = accessLog(gw);
  expect(only(entries, (e) => e.operation === 'PutObject' && e.key === 'obs/a.txt')).toMatchObject({
    caller: 'key',
    accessKeyId: ADMIN.accessKeyId,
    action: 'put_object',
    bucket: 'data',
    bytesIn: A_BYTES,
    status: 200,
    backendType: 's3',
    backendStatus: 200,
  });
  expect(only(entries, (e) => e.operation === 'PutObject' && e.key === 'ci/b.txt')).toMatchObject({
    caller: 'session',
    accessKeyId: expect.stringMatching(/^ASIA/),
    role: ROLE_ARN,
    subject: SUBJECT,
    action: 'put_object',
    bytesIn: B_BYTES,
    status: 200,
  });
  const anonymous = only(entries, (e) => e.parentSpanId === PARENT_ID);
  expect(anonymous).toMatchObject({ caller: 'anonymous', operation: 'GetObject', action: 'get_object', traceId: TRACE_ID, bytesOut: A_BYTES, backendStatus: 200, status: 200 });
  expect(anonymous.spanId).toMatch(/^[0-9a-f]{16}$/);
  expect(anonymous).not.toHaveProperty('accessKeyId');
  const unknown = only(entries, (e) => e.path === '/nosuch/x');
  expect(unknown).toMatchObject({ caller: 'anonymous', bucket: 'nosuch', status: 404, errorCode: 'NoSuchBucket' });
  expect(unknown.traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(unknown).not.toHaveProperty('parentSpanId');
  expect(only(entries, (e) => e.path === '/down/x')).toMatchObject({ status: 503, errorCode: 'ServiceUnavailable', backendFailure: 'error', backendType: 's3' });
  const exchanges = entries.filter((e) => e.operation === 'AssumeRoleWithWebIdentity');
  expect(exchanges.map((e) => [e.status, e.errorCode])).toEqual([
    [200, undefined],
    [400, 'InvalidIdentityToken'],
  ]);
  // Whatever the gateway wrote, on stdout or stderr: no secret, token or signature of this traffic.
  const everything = gw.logs();
  for (const value of secrets.values) expect(everything.includes(value)).toBe(false);
  return entries;
}

describe('metrics, audit trail and traces on the Node server, scraped by Prometheus', () => {
  let gw: RunningGateway;
  let prometheus: Prometheus;
  let secrets: Secrets;

  beforeAll(async () => {
    const metricsPort = await freePort();
    gw = await startGateway('node', {
      config: config(),
      env: { RGW_SECRET: rgw.secretAccessKey, SESSION_TOKEN_KEY, NODE_EXTRA_CA_CERTS: issuer.caPath, METRICS_PORT: String(metricsPort) },
    });
    prometheus = await startPrometheus([`127.0.0.1:${metricsPort}`]);
    secrets = await traffic(gw);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([gw?.stop(), prometheus?.stop()]);
  });

  it('logs who did what: a static key, an STS session and anonymous callers, with their traces; no secret', async () => {
    await expectAuditTrail(gw, secrets);
  });

  it('carries each request\'s trace to RGW: forwarded requests and the gateway\'s own listing, copy, multipart and batch delete calls', async () => {
    expectTracesAtBackend(await expectAuditTrail(gw, secrets));
  });

  it('serves the metrics on METRICS_PORT only: the S3 port has no /metrics', async () => {
    const onS3Port = await rawRequest(gw.endpoint, { method: 'GET', target: '/metrics' });
    expect(onS3Port.body).not.toContain('s3gateway_requests_total');
  });

  it.each([
    ['s3gateway_requests_total{operation="PutObject",status_class="2xx",bucket="data"}', 2],
    // Static key twice, the session, anonymous and the presigned URL.
    ['s3gateway_requests_total{operation="GetObject",status_class="2xx",bucket="data"}', 5],
    ['s3gateway_request_duration_seconds_count{operation="GetObject",status_class="2xx"}', 5],
    ['s3gateway_request_ttfb_seconds_count{operation="GetObject",status_class="2xx"}', 5],
    ['s3gateway_requests_total{operation="GetObject",status_class="4xx",bucket="_other"}', 1],
    ['s3gateway_received_bytes_total{operation="PutObject",bucket="data"}', A_BYTES + B_BYTES],
    ['s3gateway_sent_bytes_total{operation="GetObject",bucket="data"}', 4 * A_BYTES + B_BYTES],
    ['s3gateway_sts_requests_total{action="AssumeRoleWithWebIdentity",outcome="Success"}', 1],
    ['s3gateway_sts_requests_total{action="AssumeRoleWithWebIdentity",outcome="InvalidIdentityToken"}', 1],
    ['s3gateway_backend_failures_total{backend_type="s3",kind="error"}', 1],
    ['s3gateway_requests_in_flight', 0],
  ])('Prometheus has %s = %d', async (expr, expected) => {
    expect(await prometheus.valueOnce(expr, expected)).toBe(expected);
  });

  it('gives a p99 latency from the histogram, within its buckets', async () => {
    const [result] = await prometheus.query('histogram_quantile(0.99, sum by (le) (s3gateway_request_duration_seconds_bucket{operation="GetObject"}))');
    const p99 = Number(result.value[1]);
    expect(p99).toBeGreaterThan(0);
    expect(p99).toBeLessThanOrEqual(300);
  });
});

/** Units the EMF specification allows. */
const EMF_UNITS = new Set(['Seconds', 'Microseconds', 'Milliseconds', 'Bytes', 'Kilobytes', 'Megabytes', 'Gigabytes', 'Terabytes', 'Bits', 'Count', 'Count/Second', 'None']);

/** Checks one line against the EMF specification's structure; returns the metric names it declares. */
function expectEmf(entry: Record<string, unknown>): string[] {
  const aws = entry._aws as { Timestamp: unknown; CloudWatchMetrics: unknown };
  expect(Number.isInteger(aws.Timestamp)).toBe(true);
  expect(Array.isArray(aws.CloudWatchMetrics)).toBe(true);
  const names: string[] = [];
  for (const directive of aws.CloudWatchMetrics as Array<{ Namespace: unknown; Dimensions: unknown; Metrics: unknown }>) {
    expect(typeof directive.Namespace).toBe('string');
    expect(Array.isArray(directive.Dimensions)).toBe(true);
    for (const set of directive.Dimensions as unknown[][]) {
      expect(set.length).toBeLessThanOrEqual(30);
      // Every dimension is a top-level string member.
      for (const name of set) expect(typeof entry[name as string]).toBe('string');
    }
    expect((directive.Metrics as unknown[]).length).toBeGreaterThan(0);
    for (const metric of directive.Metrics as Array<{ Name: string; Unit: string }>) {
      expect(EMF_UNITS.has(metric.Unit)).toBe(true);
      // Every metric's value is a top-level number member.
      expect(typeof entry[metric.Name]).toBe('number');
      names.push(metric.Name);
    }
  }
  return names;
}

describe.each<RuntimeName>(['lambda', 'web'])('audit trail and CloudWatch EMF metrics on a Lambda (%s shape)', (runtime) => {
  let gw: RunningGateway;
  let secrets: Secrets;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config(), env: { RGW_SECRET: rgw.secretAccessKey, SESSION_TOKEN_KEY, NODE_EXTRA_CA_CERTS: issuer.caPath } });
    secrets = await traffic(gw);
  }, 180_000);

  afterAll(() => gw?.stop());

  it('logs who did what in EMF lines: every access-log line declares its metrics as the specification says', async () => {
    const entries = await expectAuditTrail(gw, secrets);
    for (const entry of entries) expect(expectEmf(entry)).toEqual(expect.arrayContaining(['Requests', 'Latency']));
    const get = only(entries, (e) => e.parentSpanId === PARENT_ID);
    expect(get).toMatchObject({ Operation: 'GetObject', StatusClass: '2xx', Bucket: 'data', Requests: 1, BytesOut: A_BYTES });
    expect(only(entries, (e) => e.path === '/nosuch/x')).toMatchObject({ Bucket: '_other', StatusClass: '4xx' });
    expect(only(entries, (e) => e.path === '/down/x')).toMatchObject({ BackendType: 's3', Failure: 'error', BackendFailures: 1 });
    const refused = only(entries, (e) => e.errorCode === 'InvalidIdentityToken');
    expect(refused).toMatchObject({ Action: 'AssumeRoleWithWebIdentity', Outcome: 'InvalidIdentityToken', StsRequests: 1 });
    expect(expectEmf(refused)).toContain('StsRequests');
  });

  it('carries each request\'s trace to RGW: forwarded requests and the gateway\'s own listing, copy, multipart and batch delete calls', async () => {
    expectTracesAtBackend(await expectAuditTrail(gw, secrets));
  });
});
