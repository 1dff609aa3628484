import type { Keys } from '../support/clients';
import { TRANSPORT_RUNTIMES, type RuntimeName } from '../support/gateway';
import { seededRandom } from '../support/random';
import { errorCode, rawRequest, type RawResponse } from '../support/raw-request';
import { startStoreBuckets, useGatewayOverStores, type StoreBuckets } from './store-buckets';

/**
 * Ranged reads as S3 answers them, on every kind of bucket: a seeded stream of `Range` headers (single
 * ranges, suffixes, open ends, ends past the object, starts past it, zero-length suffixes, several ranges,
 * malformed ones) read from a 1,000-byte and an empty object through the gateway, each answer compared with
 * S3's rules (the model below): one range of bytes is 206 with its `Content-Range`, or 416 InvalidRange when
 * it selects no byte; any other header is ignored, and the whole object is 200. Each store reads the headers
 * S3 ignores its own way (RGW answers some with 416 or a part, Azure refuses them, the storage emulators
 * answer a range past the end with the whole object or an empty part); the gateway answers as S3 does.
 */
const READER: Keys = { accessKeyId: 'RANGEREADER000000000', secretAccessKey: 'range/reader/secret/0000000000000000000' };
const BODY = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) % 256));
const READS = Number(process.env.RANGE_READS ?? 120);

let stores: StoreBuckets;

beforeAll(async () => {
  stores = await startStoreBuckets('ranges');
  await stores.put('r.bin', BODY);
  await stores.put('empty.bin', Buffer.alloc(0));
}, 180_000);

afterAll(() => stores?.stop());

function randomRange(random: () => number): string {
  const n = (max: number): number => Math.floor(random() * max);
  const pos = (): number => (random() < 0.8 ? n(1000) : 995 + n(20));
  const r = random();
  if (r < 0.35) {
    const a = pos();
    return `bytes=${a}-${a + n(300)}`;
  }
  if (r < 0.5) return `bytes=${pos()}-`;
  if (r < 0.62) return `bytes=-${random() < 0.1 ? 0 : 1 + n(1200)}`;
  if (r < 0.7) return `bytes=${pos()}-${n(1000)}`; // the end may come before the start
  if (r < 0.78) return `bytes=${pos()}-${pos()},${pos()}-${pos()}`;
  return [
    'bytes=',
    'bytes=-',
    'bytes=a-b',
    'bytes 0-10',
    'items=0-10',
    'bytes=0-10 ',
    'bytes= 0-10',
    'bytes=00-09',
    'bytes=1e2-200',
    'bytes=0x10-20',
    'bytes=+1-5',
    'bytes=-+5',
    'bytes=99999999999999999999-',
    'bytes=0-99999999999999999999',
    'BYTES=0-10',
    'bytes=0-10,',
    'bytes=,0-10',
  ][n(17)];
}

interface Answer {
  readonly status: number;
  readonly code?: string;
  readonly contentRange?: string;
  readonly body?: string;
}

function answer(res: RawResponse): Answer {
  if (res.status >= 300) return { status: res.status, code: errorCode(res.body) };
  const contentRange = res.headers['content-range'];
  return { status: res.status, contentRange: typeof contentRange === 'string' ? contentRange : undefined, body: res.bytes.toString('hex') };
}

/** What S3 answers `range` with for `body`. */
function s3Answer(range: string, body: Buffer): Answer {
  const whole: Answer = { status: 200, body: body.toString('hex') };
  const m = /^bytes=(.*)$/i.exec(range.trim());
  if (m === null) return whole;
  const specs = m[1].split(',').map((spec) => spec.trim()).filter(Boolean);
  const spec = specs.length === 1 ? /^(\d*)-(\d*)$/.exec(specs[0]) : null;
  if (spec === null || (spec[1] === '' && spec[2] === '')) return whole;
  const size = body.length;
  let first: number;
  let last: number;
  if (spec[1] === '') {
    if (Number(spec[2]) === 0 || size === 0) return { status: 416, code: 'InvalidRange' };
    first = Math.max(0, size - Number(spec[2]));
    last = size - 1;
  } else {
    first = Number(spec[1]);
    if (spec[2] !== '' && Number(spec[2]) < first) return whole;
    if (first >= size) return { status: 416, code: 'InvalidRange' };
    last = spec[2] === '' ? size - 1 : Math.min(Number(spec[2]), size - 1);
  }
  return { status: 206, contentRange: `bytes ${first}-${last}/${size}`, body: body.subarray(first, last + 1).toString('hex') };
}

describe.each(TRANSPORT_RUNTIMES)('ranged reads through the gateway (%s runtime)', (runtime: RuntimeName) => {
  const gw = useGatewayOverStores(runtime, () => stores, READER, ['get_object', 'head_object']);

  it.each(['s3', 'azure', 'gcs'])('a %s bucket answers every Range as S3 does', async (bucket) => {
    const random = seededRandom(bucket.length * 31 + runtime.length);
    const mismatches: string[] = [];
    for (let i = 0; i < READS; i++) {
      const range = randomRange(random);
      const key = random() < 0.1 ? 'empty.bin' : 'r.bin';
      const expected = s3Answer(range, key === 'r.bin' ? BODY : Buffer.alloc(0));
      const got = answer(await rawRequest(gw.endpoint, { method: 'GET', target: `/${bucket}/${key}`, headers: { range } }, READER));
      if (JSON.stringify(got) !== JSON.stringify(expected)) {
        const brief = (a: Answer): string => JSON.stringify({ ...a, body: a.body === undefined ? undefined : `${a.body.length / 2} bytes` });
        mismatches.push(`${key} Range: ${JSON.stringify(range)}: ${brief(got)}, S3 ${brief(expected)}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 300_000);
});
