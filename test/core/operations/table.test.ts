import { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { EXTRAS, type Access } from '../../../functions/core/auth/authorize';
import { parseConfig } from '../../../functions/core/config/parse';
import { ACTIONS, type Action } from '../../../functions/core/config/types';
import { Gateway } from '../../../functions/core/gateway';
import type { BackendClient, Dispatch, ProxyRequest } from '../../../functions/core/http';
import { OPERATIONS, type Descriptor, type Route } from '../../../functions/core/operations/table';
import { Query } from '../../../functions/core/query';
import { routeS3, type OperationName } from '../../../functions/core/routing';
import { bucketToml, credentialToml, s3Options } from '../../support/config-toml';
import { proxyRequest } from '../../support/proxy-request';
import { buildQuery, smithySigner, type TestCredentials } from '../sigv4/smithy';

/**
 * The operation table, walked row by row through Gateway.handle: a caller holding no scope is refused every
 * operation with 403 before anything reaches a backend, and a caller holding exactly the row's action gets
 * past authorization. Each request is built from the row's own route, so the walk also checks that routing
 * finds the row again.
 */
const HOST = 'gateway.test';
const NOBODY: TestCredentials = { accessKeyId: 'NOBODYKEY00000000000', secretAccessKey: 'nobody/secret/key/000000000000000000000' };

/** One key per action, scoped to bucket `b` with that action alone. */
const keyFor = (action: string): TestCredentials => ({
  accessKeyId: `K${action.toUpperCase().replace(/_/g, '')}`.padEnd(20, '0').slice(0, 32),
  secretAccessKey: `secret/for/${action}`.padEnd(40, '0'),
});
/** Keys holding two actions: a copy's write and the read of its source, a versioned call's two actions. */
const pairKey = (a: string, b: string): TestCredentials => keyFor(`${a}_${b}`);
const PAIRS: ReadonlyArray<readonly [Action, Action]> = [
  ['put_object', 'get_object'],
  ['upload_part', 'get_object'],
  ['get_object_tagging', 'get_object_version'],
  ['put_object_tagging', 'get_object_version'],
  ['delete_object_tagging', 'get_object_version'],
];

const CONFIG = [
  bucketToml({ name: 'b', backend_type: 's3' }, s3Options('http://backend.test:9000', 'data', { accessKeyId: 'BACKENDKEY', secretAccessKey: 'backend-secret' })),
  credentialToml(NOBODY, { principal_name: 'nobody' }, []),
  ...ACTIONS.map((action) => credentialToml(keyFor(action), { principal_name: action }, [{ bucket: 'b', actions: [action] }])),
  ...PAIRS.map(([a, b]) => credentialToml(pairKey(a, b), { principal_name: `${a}+${b}` }, [{ bucket: 'b', actions: [a, b] }])),
].join('\n');

let backendCalls = 0;
const countingClient: BackendClient = async () => {
  backendCalls++;
  throw new Error('connect ECONNREFUSED (no network in this spec)');
};
const gateway = new Gateway(parseConfig(CONFIG), { client: countingClient });

type BucketRow = Exclude<OperationName, 'ListBuckets' | 'CreateBucket'>;
const ROWS = (Object.keys(OPERATIONS) as OperationName[]).filter((name): name is BucketRow => typeof OPERATIONS[name].access === 'object');
const accessOf = (name: BucketRow): Access => (OPERATIONS[name] as Descriptor<BucketRow>).access as Access;

/** A request the row's route answers: its method, a path of its target, its sub-resource, parameters and header. */
function requestParts(route: Route, versionId?: string): { method: string; path: string; query: Record<string, string>; headers: Record<string, string> } {
  const path = route.target === 'service' ? '/' : route.target === 'bucket' ? '/b' : '/b/dir/k';
  const query: Record<string, string> = {};
  if (route.subresource !== undefined) query[route.subresource] = route.subresource === 'uploadId' ? 'u1' : '';
  for (const name of route.query ?? []) query[name] = name === 'partNumber' ? '1' : 'x';
  if (versionId !== undefined) query.versionId = versionId;
  const headers: Record<string, string> = { 'content-length': '0' };
  if (route.header !== undefined) headers[route.header] = '/b/source';
  return { method: route.method, path, query, headers };
}

async function signedRequest(keys: TestCredentials, name: BucketRow, versionId?: string): Promise<ProxyRequest> {
  const { method, path, query, headers } = requestParts(OPERATIONS[name].route, versionId);
  return signed(keys, method, path, query, headers);
}

async function signed(keys: TestCredentials, method: string, path: string, query: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<ProxyRequest> {
  const all = { host: HOST, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...headers };
  const out = await smithySigner(keys, 'us-east-1').sign({ method, protocol: 'http:', hostname: HOST, path, query, headers: all }, { signingDate: new Date() });
  return proxyRequest(method, path, buildQuery(query), out.headers);
}

const BOUNDARY = '----table-walk-boundary';
/** A browser form upload to `b`, signed by `keys`' presigned POST policy. */
async function formRequest(keys: TestCredentials): Promise<ProxyRequest> {
  const client = new S3Client({ region: 'us-east-1', endpoint: `http://${HOST}`, forcePathStyle: true, credentials: keys });
  const { fields } = await createPresignedPost(client, { Bucket: 'b', Key: 'dir/k', Expires: 300 });
  const parts = [...Object.entries(fields).map(([n, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`)];
  parts.push(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="f.txt"\r\n\r\nhello\r\n--${BOUNDARY}--\r\n`);
  const body = new TextEncoder().encode(parts.join(''));
  const request = proxyRequest('POST', '/b', '', { host: HOST, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(body.length) });
  return { ...request, body: () => new ReadableStream({ start: (c) => (c.enqueue(body), c.close()) }) };
}

/** The caller holding exactly what a row needs: its action (or its version's two), and a copy's source read. */
function exactKey(name: BucketRow, versioned: boolean): TestCredentials {
  const access = accessOf(name);
  const action = versioned && access.versioned ? access.versioned.action : access.action;
  const also = versioned ? access.versioned?.also : OPERATIONS[name].route.header === 'x-amz-copy-source' ? 'get_object' : undefined;
  return also === undefined ? keyFor(action) : pairKey(action, also);
}

/** The code of a 403 answer; a HEAD's error has no body, as on S3, so its status alone says it. */
function refusedCode(dispatch: Dispatch): string | undefined {
  if (dispatch.kind !== 'response' || dispatch.response.status !== 403) return undefined;
  if (dispatch.response.body === null) return 'AccessDenied';
  return /<Code>([^<]*)<\/Code>/.exec(String(dispatch.response.body))?.[1];
}

const request = (keys: TestCredentials, name: BucketRow, versionId?: string): Promise<ProxyRequest> =>
  name === 'PostObject' ? formRequest(keys) : signedRequest(keys, name, versionId);

/** Every row, and again naming a version where the row has a version variant on an object. */
const CASES: ReadonlyArray<readonly [string, BucketRow, string | undefined]> = [
  ...ROWS.map((name) => [name, name, undefined] as const),
  ...ROWS.filter((name) => accessOf(name).versioned !== undefined && OPERATIONS[name].route.target === 'object').map((name) => [`${name}?versionId`, name, 'v1'] as const),
];

describe('the operation table, walked through Gateway.handle', () => {
  beforeEach(() => {
    backendCalls = 0;
  });

  it.each(CASES)('%s: its route routes back to it', (_label, name, versionId) => {
    if (name === 'PostObject') return expect(OPERATIONS.PostObject.route).toEqual({ method: 'POST', target: 'bucket' });
    const { method, path, query, headers } = requestParts(OPERATIONS[name].route, versionId);
    expect(routeS3(method, path, new Query(buildQuery(query)), new Headers(headers)).name).toBe(name);
  });

  it.each(CASES)('%s: a caller holding no scope is refused with 403, and no backend is asked', async (_label, name, versionId) => {
    const dispatch = await gateway.handle(await request(NOBODY, name, versionId));
    expect(refusedCode(dispatch)).toBe('AccessDenied');
    expect(backendCalls).toBe(0);
  });

  it.each(CASES)('%s: a caller holding exactly its action gets past authorization', async (_label, name, versionId) => {
    const dispatch = await gateway.handle(await request(exactKey(name, versionId !== undefined), name, versionId));
    expect(refusedCode(dispatch)).toBeUndefined();
  });

  it('ListBuckets needs any signed caller; CreateBucket is refused to everyone', async () => {
    expect(OPERATIONS.ListBuckets.access).toBe('signed caller');
    expect(refusedCode(await gateway.handle(proxyRequest('GET', '/', '', { host: HOST })))).toBe('AccessDenied');
    const listed = await gateway.handle(await signed(NOBODY, 'GET', '/'));
    expect(listed.kind === 'response' && listed.response.status).toBe(200);
    expect(OPERATIONS.CreateBucket.access).toBe('refused');
    expect(refusedCode(await gateway.handle(await signed(keyFor('put_object'), 'PUT', '/new-bucket')))).toBe('AccessDenied');
    expect(backendCalls).toBe(0);
  });
});

describe('the operation table: a row cannot be added without saying what it needs', () => {
  it('types every bucket row with an access', () => {
    // @ts-expect-error a row without `access` does not compile
    const missing: Descriptor<'GetObject'> = { route: { method: 'GET', target: 'object' }, handler: OPERATIONS.GetObject.handler };
    expect(missing).toBeDefined();
  });

  it('names only known actions, and every action of the configuration is asked for by some row or extra', () => {
    const asked = new Set<string>();
    for (const name of ROWS) {
      const access = accessOf(name);
      asked.add(access.action);
      if (access.versioned) asked.add(access.versioned.action);
      if (access.versioned?.also) asked.add(access.versioned.also);
      for (const extra of access.extras ?? []) asked.add(extra.action);
    }
    expect([...asked].filter((a) => !(ACTIONS as readonly string[]).includes(a))).toEqual([]);
    expect(ACTIONS.filter((a) => !asked.has(a))).toEqual([]);
  });
});

describe('the header extras: what asks for an action beside the write', () => {
  const asks = (headers: Record<string, string>, extra: keyof typeof EXTRAS): boolean => EXTRAS[extra].present(new Headers(headers));

  it('any canned ACL but private, and any grant, asks for put_object_acl (private is every object\'s ACL anyway: rclone sends it by default)', () => {
    expect(asks({ 'x-amz-acl': 'public-read' }, 'acl')).toBe(true);
    expect(asks({ 'x-amz-acl': 'bucket-owner-full-control' }, 'acl')).toBe(true);
    expect(asks({ 'x-amz-grant-read': 'id="x"' }, 'acl')).toBe(true);
    expect(asks({ 'x-amz-acl': 'private' }, 'acl')).toBe(false);
    expect(asks({ 'x-amz-acl': ' Private ' }, 'acl')).toBe(false);
    expect(asks({}, 'acl')).toBe(false);
  });

  it('a copy\'s tags ask for put_object_tagging only when they replace the source\'s', () => {
    expect(asks({ 'x-amz-tagging': 'a=b' }, 'copyTagging')).toBe(false);
    expect(asks({ 'x-amz-tagging': 'a=b', 'x-amz-tagging-directive': 'COPY' }, 'copyTagging')).toBe(false);
    expect(asks({ 'x-amz-tagging': 'a=b', 'x-amz-tagging-directive': 'REPLACE' }, 'copyTagging')).toBe(true);
  });

  it('either lock retention header asks for put_object_retention; the bypass only when it is true', () => {
    expect(asks({ 'x-amz-object-lock-mode': 'GOVERNANCE' }, 'retention')).toBe(true);
    expect(asks({ 'x-amz-object-lock-retain-until-date': '2030-01-01T00:00:00Z' }, 'retention')).toBe(true);
    expect(asks({ 'x-amz-object-lock-legal-hold': 'OFF' }, 'legalHold')).toBe(true);
    expect(asks({ 'x-amz-bypass-governance-retention': 'true' }, 'bypassGovernance')).toBe(true);
    expect(asks({ 'x-amz-bypass-governance-retention': 'false' }, 'bypassGovernance')).toBe(false);
  });
});
