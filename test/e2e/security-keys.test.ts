import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { encodeKey } from '../../functions/core/keys';
import type { Keys } from '../support/clients';
import { bucketToml, credentialToml, s3Options } from '../support/config-toml';
import { RUNTIMES, RUNTIME_LIMITS, startGateway, type RunningGateway, type RuntimeName } from '../support/gateway';
import { seededRandom } from '../support/random';
import { errorCode, rawRequest } from '../support/raw-request';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';

/**
 * The key a request is authorized for is the key it reads and writes. A writer may touch `up/…`, `one` (and
 * `one/…`) and `é/…` in one bucket; a seeded stream of signed PUTs, GETs and DELETEs names keys built to
 * look like paths and escapes (`..` and `.` segments, empty segments, `%`, `%41`, `%2F`, `+`, spaces,
 * non-ASCII, names that begin like a grant), sent with the canonical encoding SDKs use and sometimes with a
 * `/` written `%2F`. Each answer must be what S3's rules give for the decoded key: 400 InvalidRequest for a
 * key the gateway refuses, 403 AccessDenied outside the grants, else the operation; and RGW must then hold
 * exactly the keys the stream wrote and did not delete, every one inside the grants.
 *
 * On a runtime whose platform resolves dot segments first (the edge), a signed request with them is
 * verified against the resolved path and refused: 403 SignatureDoesNotMatch, nothing written.
 */
const WRITER: Keys = { accessKeyId: 'KEYSWRITER0000000000', secretAccessKey: 'keys/writer/secret/00000000000000000000' };
const GRANTS = ['up/', 'one', 'é/'];
const PARTS = ['up', 'one', 'é', 'x', '..', '.', '', '%', '%41', '%2F', '+', 'a b', '~', '日本', 'one.txt', 'upx', 'É', '%25', '?', '#'];
const REQUESTS = Number(process.env.KEY_REQUESTS ?? 150);

let rgw: Rgw;
let direct: S3Client;

beforeAll(async () => {
  rgw = await startRgw();
  await createBucket(rgw, 'keys');
  direct = rgwS3Client(rgw);
}, 120_000);

afterAll(async () => {
  direct?.destroy();
  await rgw?.stop();
});

/** Whether the writer's grants cover `key` (configuration.md: `one` covers `one` and `one/…`). */
function granted(key: string): boolean {
  return GRANTS.some((p) => (p.endsWith('/') ? key.startsWith(p) : key === p || key.startsWith(`${p}/`)));
}

/** The gateway's rule for a key it refuses (operations.md, Object keys). */
function refused(key: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /(?:^|\/)\.{0,2}(?:\/|$)/.test(key) || /[\u0000-\u001f\u007f]/.test(key);
}

async function storedUnder(prefix: string): Promise<string[]> {
  const page = await direct.send(new ListObjectsV2Command({ Bucket: 'keys', Prefix: prefix }));
  return (page.Contents ?? []).map((c) => c.Key ?? '');
}

describe.each(RUNTIMES)('keys as authorized are keys as stored (%s runtime)', (runtime: RuntimeName) => {
  let gw: RunningGateway;
  const resolvesDots = RUNTIME_LIMITS[runtime].resolvesDotSegments === true;

  beforeAll(async () => {
    const config = [
      bucketToml({ name: 'priv', backend_type: 's3' }, s3Options(rgw.endpoint, 'keys', rgw, { backend_prefix: `${runtime}/` })),
      credentialToml(WRITER, { principal_name: 'writer' }, [{ bucket: 'priv', prefixes: GRANTS, actions: ['put_object', 'get_object', 'head_object', 'delete_object'] }]),
    ].join('\n');
    gw = await startGateway(runtime, { config });
  }, 60_000);

  afterAll(() => gw?.stop());

  it('every answer is the rules\' for the decoded key, and RGW holds just what was written inside the grants', async () => {
    const random = seededRandom(runtime.length * 101 + 7);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
    const written = new Set<string>();
    const mismatches: string[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const parts = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(PARTS));
      const key = (random() < 0.4 ? pick(['up/', 'one/', 'é/']) : '') + parts.join('/');
      // An empty key addresses the bucket itself: another operation.
      if (key === '') continue;
      const method = pick(['PUT', 'PUT', 'GET', 'DELETE']);
      // As SDKs encode it; now and then with a `/` written `%2F`, which S3 decodes to the same key.
      let path = encodeKey(key);
      if (random() < 0.2) path = path.replace('/', '%2F');
      const dots = path.split('/').some((segment) => segment === '.' || segment === '..');
      const res = await rawRequest(gw.endpoint, { method, target: `/priv/${path}`, body: method === 'PUT' ? key : undefined }, WRITER);
      let expected: string;
      if (resolvesDots && dots) expected = '403 SignatureDoesNotMatch';
      else if (refused(key)) expected = '400 InvalidRequest';
      else if (!granted(key)) expected = '403 AccessDenied';
      else if (method === 'PUT') expected = '200';
      else if (method === 'DELETE') expected = '204';
      else expected = written.has(key) ? '200' : '404 NoSuchKey';
      const got = res.status >= 300 ? `${res.status} ${errorCode(res.body)}` : String(res.status);
      if (got !== expected) mismatches.push(`${method} /priv/${path} (key ${JSON.stringify(key)}): ${got}, expected ${expected}`);
      if (got === '200' && method === 'GET' && res.body !== key) mismatches.push(`GET /priv/${path}: read ${JSON.stringify(res.body)}`);
      if (got === '200' && method === 'PUT') written.add(key);
      if (got === '204') written.delete(key);
    }
    expect(mismatches).toEqual([]);
    const stored = (await storedUnder(`${runtime}/`)).map((k) => k.slice(runtime.length + 1));
    expect(stored.sort()).toEqual([...written].sort());
    expect(stored.filter((k) => !granted(k))).toEqual([]);
    expect(written.size).toBeGreaterThan(5);
  }, 300_000);
});
