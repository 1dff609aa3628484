import type { Keys } from '../support/clients';
import { ADAPTER_RUNTIMES, TRANSPORT_RUNTIMES, reportedLength, type RuntimeName } from '../support/gateway';
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
 * Reads of one part (`?partNumber=`) of those objects, uploaded whole, are checked against S3's rules the
 * same way.
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

/** An answer as a mismatch reports it: the body by its length. */
function brief(a: Answer): string {
  return JSON.stringify({ ...a, body: a.body === undefined ? undefined : `${a.body.length / 2} bytes` });
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

/** A part read: its number (sometimes one S3 refuses) and, now and then, a Range beside it. */
function randomPartRead(random: () => number): { readonly partNumber: string; readonly range?: string } {
  const numbers = ['1', '1', '1', '2', '3', '10000', '0', '10001', '-1', 'one', '1.5'];
  const partNumber = numbers[Math.floor(random() * numbers.length)];
  // Only well-formed ranges: whether S3 looks at a malformed one beside a part number is not known.
  return random() < 0.2 ? { partNumber, range: `bytes=${Math.floor(random() * 1000)}-` } : { partNumber };
}

/**
 * What S3 answers a read of one part of an object uploaded whole (the only kind an Azure or GCS bucket holds,
 * and the kind PutObject makes on S3): part 1 is the whole object as a range, 206 with its Content-Range
 * (an empty object has none and is 200); any other part is 416 InvalidPartNumber; a number outside 1-10000 is
 * 400 InvalidArgument, and a Range beside the part number 400 InvalidRequest.
 */
function s3PartAnswer(read: { readonly partNumber: string; readonly range?: string }, body: Buffer): Answer {
  if (!/^\d+$/.test(read.partNumber) || Number(read.partNumber) < 1 || Number(read.partNumber) > 10000) return { status: 400, code: 'InvalidArgument' };
  if (read.range !== undefined) return { status: 400, code: 'InvalidRequest' };
  if (read.partNumber !== '1') return { status: 416, code: 'InvalidPartNumber' };
  if (body.length === 0) return { status: 200, body: '' };
  return { status: 206, contentRange: `bytes 0-${body.length - 1}/${body.length}`, body: body.toString('hex') };
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
        mismatches.push(`${key} Range: ${JSON.stringify(range)}: ${brief(got)}, S3 ${brief(expected)}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 300_000);
});

// Every adapter: a refused part drops the store's answer, which each runtime does its own way.
describe.each(ADAPTER_RUNTIMES)('part reads through the gateway (%s runtime)', (runtime: RuntimeName) => {
  const gw = useGatewayOverStores(runtime, () => stores, READER, ['get_object', 'head_object']);

  it.each(['s3', 'azure', 'gcs'])('a %s bucket answers every part read (?partNumber=) as S3 does, GET and HEAD alike', async (bucket) => {
    const random = seededRandom(bucket.length * 17 + runtime.length);
    const mismatches: string[] = [];
    for (let i = 0; i < READS / 2; i++) {
      const read = randomPartRead(random);
      const key = random() < 0.2 ? 'empty.bin' : 'r.bin';
      const body = key === 'r.bin' ? BODY : Buffer.alloc(0);
      const expected = s3PartAnswer(read, body);
      const headers: Record<string, string> = read.range === undefined ? {} : { range: read.range };
      const request = { target: `/${bucket}/${key}?partNumber=${encodeURIComponent(read.partNumber)}`, headers };
      const got = answer(await rawRequest(gw.endpoint, { method: 'GET', ...request }, READER));
      if (JSON.stringify(got) !== JSON.stringify(expected)) mismatches.push(`GET ${request.target} ${JSON.stringify(headers)}: ${brief(got)}, S3 ${brief(expected)}`);
      // A HEAD answers with the GET's status and headers, and no body.
      const head = await rawRequest(gw.endpoint, { method: 'HEAD', ...request }, READER);
      const length = expected.status < 300 ? reportedLength(runtime, body.length) : undefined;
      const expectedHead = { status: expected.status, contentRange: expected.contentRange, length: length === undefined ? undefined : String(length) };
      const gotHead = { status: head.status, contentRange: head.headers['content-range'], length: head.status < 300 ? head.headers['content-length'] : undefined };
      if (JSON.stringify(gotHead) !== JSON.stringify(expectedHead)) mismatches.push(`HEAD ${request.target}: ${JSON.stringify(gotHead)}, S3 ${JSON.stringify(expectedHead)}`);
    }
    expect(mismatches).toEqual([]);
  }, 300_000);
});
