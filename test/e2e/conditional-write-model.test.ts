import { createHash } from 'node:crypto';
import type { Keys } from '../support/clients';
import { TRANSPORT_RUNTIMES, type RuntimeName } from '../support/gateway';
import { seededRandom } from '../support/random';
import { errorCode, rawRequest } from '../support/raw-request';
import { startStoreBuckets, useGatewayOverStores, type StoreBuckets } from './store-buckets';

/**
 * Conditional writes as S3 answers them, on Azure and GCS buckets, against a model of S3's rules.
 *
 * A seeded stream of PUTs and DELETEs over a few keys, with If-Match (the object's ETag quoted or not, an
 * earlier one, another, `*`) and, on PUTs, If-None-Match (`*`, an ETag), alone or together. The model keeps
 * what each key holds and says what S3 answers (public reports of AWS's answers: operations.md#conditional-writes):
 *
 * - If-None-Match other than `*`, or beside If-Match: 501 NotImplemented;
 * - If-None-Match `*`: 412 PreconditionFailed when the key holds an object;
 * - If-Match, on a write or a delete: 404 NoSuchKey when it holds none, 412 when no tag matches its ETag,
 *   `*` matching any; a delete without it is 204 whatever the key holds;
 *
 * and every answer is checked, then what the key holds: a refused write changes nothing. A PUT answers its
 * body's hex MD5 as ETag, as S3 does; some PUTs write a body written before, whose ETag an earlier one is. An S3-compatible
 * store evaluates them itself: RGW departs from S3 here (backends.md), so S3 buckets are not held to this.
 * CONDITIONAL_WRITES sets the stream's length.
 */
const WRITER: Keys = { accessKeyId: 'CONDWRITER0000000000', secretAccessKey: 'cond/writer/secret/00000000000000000000' };
const WRITES = Number(process.env.CONDITIONAL_WRITES ?? 60);
const KEYS = ['a', 'b', 'c'];

let stores: StoreBuckets;

beforeAll(async () => {
  stores = await startStoreBuckets('condw', { rgw: false });
}, 180_000);

afterAll(() => stores?.stop());

/** What a key holds in the model: its body and ETag, and the ETags it held before. */
interface Held {
  body?: string;
  etag?: string;
  readonly earlier: string[];
}

/** The status S3 answers a PUT with `conditions` over `held` (a DELETE: 204 for 200). */
function s3Status(conditions: Record<string, string>, held: Held): number {
  const ifMatch = conditions['if-match'];
  const ifNoneMatch = conditions['if-none-match'];
  if (ifNoneMatch !== undefined && (ifNoneMatch !== '*' || ifMatch !== undefined)) return 501;
  if (ifNoneMatch !== undefined) return held.etag === undefined ? 200 : 412;
  if (ifMatch === undefined) return 200;
  if (held.etag === undefined) return 404;
  return ifMatch === '*' || ifMatch.replace(/"/g, '') === held.etag.replace(/"/g, '') ? 200 : 412;
}

const CODES: Readonly<Record<number, string>> = { 404: 'NoSuchKey', 412: 'PreconditionFailed', 501: 'NotImplemented' };

function randomConditions(random: () => number, held: Held): Record<string, string> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const tags = [held.etag, held.etag?.replace(/"/g, ''), held.earlier[0], '"0123456789abcdef0123456789abcdef"', '*'].filter((t): t is string => t !== undefined);
  const out: Record<string, string> = {};
  if (random() < 0.6) out['if-match'] = pick(tags);
  if (random() < 0.4) out['if-none-match'] = random() < 0.8 ? '*' : pick(tags);
  return out;
}

describe.each(TRANSPORT_RUNTIMES)('conditional writes through the gateway (%s runtime)', (runtime: RuntimeName) => {
  const gw = useGatewayOverStores(runtime, () => stores, WRITER, ['put_object', 'get_object', 'delete_object']);

  it.each(['azure', 'gcs'])('a %s bucket answers as S3 and writes and deletes only what S3 would', async (bucket) => {
    const random = seededRandom(bucket.length * 17 + runtime.length);
    const model = new Map(KEYS.map((k): [string, Held] => [k, { earlier: [] }]));
    const mismatches: string[] = [];
    for (let i = 0; i < WRITES; i++) {
      const key = KEYS[Math.floor(random() * KEYS.length)];
      const held = model.get(key) as Held;
      const target = `/${bucket}/${runtime}/${key}`;
      if (random() < 0.25) {
        // A delete, conditional or not: S3 answers If-Match on a delete as on a write, with 204 for success.
        const conditions: Record<string, string> = random() < 0.6 ? { 'if-match': randomConditions(random, held)['if-match'] ?? '*' } : {};
        const expected = s3Status(conditions, held);
        const del = await rawRequest(gw.endpoint, { method: 'DELETE', target, headers: conditions }, WRITER);
        if (del.status !== (expected === 200 ? 204 : expected) || (expected !== 200 && errorCode(del.body) !== CODES[expected])) {
          mismatches.push(`DELETE ${key} holding ${held.etag ?? 'nothing'}, ${JSON.stringify(conditions)}: ${del.status} ${errorCode(del.body) ?? ''}, expected ${expected}`);
        }
        if (del.status === 204) {
          if (held.etag !== undefined) held.earlier.unshift(held.etag);
          held.body = held.etag = undefined;
        }
        const get = await rawRequest(gw.endpoint, { method: 'GET', target }, WRITER);
        const holds = get.status === 200 ? get.body : undefined;
        if (holds !== held.body) mismatches.push(`${key} after DELETE ${JSON.stringify(conditions)}: holds ${JSON.stringify(holds)}, expected ${JSON.stringify(held.body)}`);
        continue;
      }
      const conditions = randomConditions(random, held);
      const body = random() < 0.3 ? 'written again' : `write ${i}`;
      const expected = s3Status(conditions, held);
      const put = await rawRequest(gw.endpoint, { method: 'PUT', target, headers: conditions, body }, WRITER);
      if (put.status !== expected || (expected !== 200 && errorCode(put.body) !== CODES[expected])) {
        mismatches.push(`${key} holding ${held.etag ?? 'nothing'}, ${JSON.stringify(conditions)}: ${put.status} ${errorCode(put.body) ?? ''}, expected ${expected}`);
      }
      if (put.status === 200) {
        if (held.etag !== undefined) held.earlier.unshift(held.etag);
        held.body = body;
        held.etag = String(put.headers.etag);
        if (held.etag !== `"${createHash('md5').update(body).digest('hex')}"`) mismatches.push(`${key}: PUT answered ETag ${held.etag} for ${JSON.stringify(body)}`);
      }
      const get = await rawRequest(gw.endpoint, { method: 'GET', target }, WRITER);
      const holds = get.status === 200 ? get.body : undefined;
      if (holds !== held.body) mismatches.push(`${key} after ${JSON.stringify(conditions)}: holds ${JSON.stringify(holds)}, expected ${JSON.stringify(held.body)}`);
    }
    expect(mismatches).toEqual([]);
  }, 300_000);
});
