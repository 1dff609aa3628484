import { createHash } from 'node:crypto';
import { buildChunkedUpload, checksumOf, sendUpload, type ChunkedPayload, type TrailerChecksum } from '../support/aws-chunked';
import type { Keys } from '../support/clients';
import { TRANSPORT_RUNTIMES, type RuntimeName } from '../support/gateway';
import { seededRandom } from '../support/random';
import { errorCode, rawRequest, type RawResponse } from '../support/raw-request';
import { startStoreBuckets, useGatewayOverStores, type StoreBuckets } from './store-buckets';

/**
 * Upload integrity on every kind of bucket, against a model of S3's rules.
 *
 * A seeded stream of PUTs, each declaring its content in some of the ways S3 knows: a signed SHA-256,
 * Content-MD5, `x-amz-checksum-*` headers or an aws-chunked trailer, and `x-amz-sdk-checksum-algorithm`,
 * each right, wrong or malformed. The model says which answers S3 gives (from public reports of AWS's
 * answers: operations.md#upload-integrity):
 *
 * - a malformed declaration is refused before the body: several checksums, a checksum value that is not
 *   its algorithm's length in base64, or an SDK algorithm naming another (or none) with InvalidRequest, a
 *   malformed Content-MD5 with InvalidDigest;
 * - content that does not match what was declared is refused after it: XAmzContentSHA256Mismatch or
 *   BadDigest;
 * - only an upload that passes every check is stored, byte for byte; a refused one leaves nothing (NoSuchKey).
 *
 * Where a request breaks several rules, any of their answers is S3's. INTEGRITY_PUTS sets the stream's length.
 */
const WRITER: Keys = { accessKeyId: 'INTEGRITYWRITER00000', secretAccessKey: 'integrity/writer/secret/0000000000000000' };
const PUTS = Number(process.env.INTEGRITY_PUTS ?? 40);
const ALGORITHMS: readonly TrailerChecksum[] = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'];

type State = 'right' | 'wrong' | 'malformed';
type Framing = 'unsigned' | 'sha256' | 'sha256-wrong' | ChunkedPayload;

/** One generated upload: how its content is framed and what it declares. */
interface Upload {
  readonly body: Buffer;
  readonly framing: Framing;
  readonly md5?: State;
  readonly checksums: ReadonlyArray<{ readonly algorithm: TrailerChecksum; readonly state: State }>;
  readonly trailer?: { readonly algorithm: TrailerChecksum; readonly state: 'right' | 'wrong' };
  readonly sdk?: string;
}

/** The codes S3 may answer an upload with; empty when it stores it. */
function expectedRefusals(u: Upload): string[] {
  const before: string[] = [];
  const named = [...u.checksums.map((c) => c.algorithm), ...(u.trailer ? [u.trailer.algorithm] : [])];
  if (named.length > 1 || u.checksums.some((c) => c.state === 'malformed')) before.push('InvalidRequest');
  if (u.sdk !== undefined && (named.length === 0 || u.sdk.toLowerCase() !== named[0])) before.push('InvalidRequest');
  if (u.md5 === 'malformed') before.push('InvalidDigest');
  if (before.length > 0) return before;
  const after: string[] = [];
  if (u.framing === 'sha256-wrong') after.push('XAmzContentSHA256Mismatch');
  if (u.md5 === 'wrong' || u.checksums.some((c) => c.state === 'wrong') || u.trailer?.state === 'wrong') after.push('BadDigest');
  return after;
}

function generate(random: () => number): Upload {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const length = pick([0, 1, 17, Math.floor(random() * 3000)]);
  const body = Buffer.from(Array.from({ length }, () => Math.floor(random() * 256)));
  const framing = pick<Framing>(['unsigned', 'sha256', 'sha256-wrong', 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD', 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER', 'STREAMING-UNSIGNED-PAYLOAD-TRAILER']);
  const states: readonly State[] = ['right', 'right', 'wrong', 'malformed'];
  const md5 = random() < 0.4 ? pick(states) : undefined;
  const count = pick([0, 0, 0, 1, 1, 2]);
  const checksums = Array.from({ length: count }, () => ({ algorithm: pick(ALGORITHMS), state: pick(states) })).filter(
    (c, i, all) => all.findIndex((o) => o.algorithm === c.algorithm) === i,
  );
  // A signed trailer form always ends with a signed trailer; the unsigned one may announce none.
  const trailer = framing === 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER' || (framing === 'STREAMING-UNSIGNED-PAYLOAD-TRAILER' && random() < 0.7) ? { algorithm: pick(ALGORITHMS), state: pick(['right', 'right', 'wrong'] as const) } : undefined;
  const named = checksums[0]?.algorithm ?? trailer?.algorithm;
  const sdk = random() < 0.4 ? (random() < 0.7 && named !== undefined ? named : pick(ALGORITHMS)) : undefined;
  return { body, framing, md5, checksums, trailer, sdk: sdk === undefined ? undefined : random() < 0.5 ? sdk.toUpperCase() : sdk };
}

const hash = (algorithm: 'md5' | 'sha256', data: Buffer, encoding: 'base64' | 'hex'): string => createHash(algorithm).update(data).digest(encoding);
const OTHER = Buffer.from('other content');

function digestValue(algorithm: TrailerChecksum | 'md5', state: State, body: Buffer): string {
  const of = (data: Buffer): string => (algorithm === 'md5' ? hash('md5', data, 'base64') : checksumOf(algorithm, data));
  if (state === 'right') return of(body);
  if (state === 'wrong') return of(OTHER);
  return of(body).slice(2);
}

/** The upload's declarations as headers, without its framing's. */
function declarationHeaders(u: Upload): Record<string, string> {
  const headers: Record<string, string> = {};
  if (u.md5 !== undefined) headers['content-md5'] = digestValue('md5', u.md5, u.body);
  for (const c of u.checksums) headers[`x-amz-checksum-${c.algorithm}`] = digestValue(c.algorithm, c.state, u.body);
  if (u.sdk !== undefined) headers['x-amz-sdk-checksum-algorithm'] = u.sdk;
  return headers;
}

async function send(endpoint: string, target: string, u: Upload): Promise<RawResponse> {
  const headers = declarationHeaders(u);
  if (u.framing === 'unsigned' || u.framing === 'sha256' || u.framing === 'sha256-wrong') {
    if (u.framing !== 'unsigned') headers['x-amz-content-sha256'] = hash('sha256', u.framing === 'sha256' ? u.body : OTHER, 'hex');
    return rawRequest(endpoint, { method: 'PUT', target, headers, body: u.body }, WRITER);
  }
  const checksum = u.trailer && { algorithm: u.trailer.algorithm, value: u.trailer.state === 'wrong' ? checksumOf(u.trailer.algorithm, OTHER) : undefined };
  const upload = await buildChunkedUpload(endpoint, WRITER, { target, payload: u.framing, data: u.body, chunkSize: 1024, checksum, headers });
  return sendUpload(endpoint, upload);
}

let stores: StoreBuckets;

beforeAll(async () => {
  stores = await startStoreBuckets('integrity');
}, 180_000);

afterAll(() => stores?.stop());

describe.each(TRANSPORT_RUNTIMES)('upload integrity through the gateway (%s runtime)', (runtime: RuntimeName) => {
  const gw = useGatewayOverStores(runtime, () => stores, WRITER, ['put_object', 'get_object']);

  it.each(['s3', 'azure', 'gcs'])('a %s bucket stores what passes every check and nothing else', async (bucket) => {
    const random = seededRandom(bucket.length * 31 + runtime.length);
    const mismatches: string[] = [];
    for (let i = 0; i < PUTS; i++) {
      const upload = generate(random);
      const target = `/${bucket}/integrity-${runtime}-${i}`;
      const refusals = expectedRefusals(upload);
      const put = await send(gw.endpoint, target, upload);
      const get = await rawRequest(gw.endpoint, { method: 'GET', target }, WRITER);
      const described = `${JSON.stringify({ ...upload, body: upload.body.length })}: PUT ${put.status} ${errorCode(put.body) ?? ''}, GET ${get.status}`;
      if (refusals.length === 0) {
        if (put.status !== 200 || get.status !== 200 || !get.bytes.equals(upload.body)) mismatches.push(`${described}, expected it stored`);
      } else if (put.status !== 400 || !refusals.includes(errorCode(put.body) ?? '') || get.status !== 404) {
        mismatches.push(`${described}, expected 400 ${refusals.join(' or ')} and nothing stored`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 300_000);
});
