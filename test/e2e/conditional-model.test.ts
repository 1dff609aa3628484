import { createHash } from 'node:crypto';
import type { Keys } from '../support/clients';
import { TRANSPORT_RUNTIMES, type RuntimeName } from '../support/gateway';
import { seededRandom } from '../support/random';
import { errorCode, rawRequest } from '../support/raw-request';
import { startStoreBuckets, useGatewayOverStores, type StoreBuckets } from './store-buckets';

/**
 * Conditional reads as S3 answers them, on Azure and GCS buckets: a seeded stream of GETs and HEADs with any
 * combination of If-Match, If-None-Match, If-Modified-Since and If-Unmodified-Since (the object's ETag,
 * another, `*`, a weak one, lists; dates before, at and after its Last-Modified, far off, or not dates at
 * all; tags quoted or bare, which S3 compares alike), each answer compared with RFC 9110's order, which S3 follows: If-Match (412), else
 * If-Unmodified-Since (412); then If-None-Match (304), else If-Modified-Since (304). A header that is not
 * a date is ignored. The ETag is the object's hex MD5, as S3's for an object uploaded whole, and some GETs
 * read a range (206 where the conditions hold). An S3-compatible store evaluates them itself, and the gateway passes them on: RGW
 * departs from S3 in places (backends.md), so S3 buckets are not held to this here.
 */
const READER: Keys = { accessKeyId: 'CONDREADER0000000000', secretAccessKey: 'cond/reader/secret/00000000000000000000' };
const READS = Number(process.env.CONDITIONAL_READS ?? 120);

let stores: StoreBuckets;

beforeAll(async () => {
  stores = await startStoreBuckets('cond', { rgw: false });
  await stores.put('c.txt', 'conditional');
}, 180_000);

afterAll(() => stores?.stop());

interface Conditions {
  readonly 'if-match'?: string;
  readonly 'if-none-match'?: string;
  readonly 'if-modified-since'?: string;
  readonly 'if-unmodified-since'?: string;
}

const OTHER = '"0123456789abcdef0123456789abcdef"';

function randomConditions(random: () => number, etag: string, lastModified: number): Conditions {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  // The ETag bare too: AWS's Java SDK v1 sends it so, and S3 compares tags whether quoted or not.
  const tag = (): string => pick([etag, etag.replace(/"/g, ''), OTHER, '*', `${OTHER}, ${etag}`, `${OTHER}, "x"`]);
  const date = (): string => {
    const at = pick([lastModified - 1000, lastModified, lastModified + 1000, Date.UTC(2000, 0, 1), Number.NaN]);
    // Not an empty one: the edge's platform drops it, and the signature over it fails there (deploy-edge.md).
    return Number.isNaN(at) ? pick(['yesterday', 'Sat, 31 Feb 2026 25:00:00 GMT', '2026-13-45']) : new Date(at).toUTCString();
  };
  const out: Record<string, string> = {};
  if (random() < 0.4) out['if-match'] = tag();
  if (random() < 0.4) out['if-none-match'] = random() < 0.15 ? `W/${etag}` : tag();
  if (random() < 0.4) out['if-modified-since'] = date();
  if (random() < 0.4) out['if-unmodified-since'] = random() < 0.2 ? new Date(Date.UTC(2100, 0, 1)).toUTCString() : date();
  return out;
}

/** The status S3 answers `conditions` with, for an object of `etag` last modified at `lastModified`. */
function s3Status(conditions: Conditions, etag: string, lastModified: number): number {
  const list = (value: string): string[] => value.split(',').map((t) => t.trim());
  const bare = (t: string): string => t.replace(/^"(.*)"$/, '$1');
  const strong = (value: string): boolean => list(value).some((t) => t === '*' || (!t.startsWith('W/') && bare(t) === bare(etag)));
  const weak = (value: string): boolean => list(value).some((t) => t === '*' || bare(t.replace(/^W\//, '')) === bare(etag));
  const seconds = (value: string | undefined): number | undefined => {
    const at = value === undefined || value === '' ? Number.NaN : Date.parse(value);
    return Number.isNaN(at) ? undefined : Math.floor(at / 1000);
  };
  const modified = Math.floor(lastModified / 1000);
  const unmodifiedSince = seconds(conditions['if-unmodified-since']);
  const modifiedSince = seconds(conditions['if-modified-since']);
  if (conditions['if-match'] !== undefined) {
    if (!strong(conditions['if-match'])) return 412;
  } else if (unmodifiedSince !== undefined && modified > unmodifiedSince) return 412;
  if (conditions['if-none-match'] !== undefined) {
    if (weak(conditions['if-none-match'])) return 304;
  } else if (modifiedSince !== undefined && modified <= modifiedSince) return 304;
  return 200;
}

describe.each(TRANSPORT_RUNTIMES)('conditional reads through the gateway (%s runtime)', (runtime: RuntimeName) => {
  const gw = useGatewayOverStores(runtime, () => stores, READER, ['get_object', 'head_object']);

  it.each(['azure', 'gcs'])('a %s bucket answers every combination as S3 does', async (bucket) => {
    const head = await rawRequest(gw.endpoint, { method: 'HEAD', target: `/${bucket}/c.txt` }, READER);
    const etag = String(head.headers.etag);
    const lastModified = Date.parse(String(head.headers['last-modified']));
    expect(etag).toBe(`"${createHash('md5').update('conditional').digest('hex')}"`);
    const random = seededRandom(bucket.length * 17 + runtime.length);
    const mismatches: string[] = [];
    for (let i = 0; i < READS; i++) {
      const conditions = randomConditions(random, etag, lastModified);
      const method = random() < 0.5 ? 'GET' : 'HEAD';
      const range = method === 'GET' && random() < 0.3 ? random() < 0.5 ? 'bytes=4-' : 'bytes=-7' : undefined;
      const headers: Record<string, string> = range === undefined ? { ...conditions } : { ...conditions, range };
      const res = await rawRequest(gw.endpoint, { method, target: `/${bucket}/c.txt`, headers }, READER);
      const condition = s3Status(conditions, etag, lastModified);
      const expected = condition === 200 && range !== undefined ? 206 : condition;
      const body = method === 'GET' && res.status < 300 ? res.body : undefined;
      if (res.status !== expected || (body !== undefined && body !== (range === undefined ? 'conditional' : 'itional'))) {
        mismatches.push(`${method} ${JSON.stringify(headers)}: ${res.status} ${errorCode(res.body) ?? ''}, S3 ${expected}`);
      }
      if (res.status === 412 && method === 'GET') expect(errorCode(res.body)).toBe('PreconditionFailed');
    }
    expect(mismatches).toEqual([]);
  }, 300_000);
});
