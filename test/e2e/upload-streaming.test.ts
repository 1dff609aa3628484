import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac } from 'node:crypto';
import { startS3rver, type S3rver } from '../../scripts/s3rver';
import { ADAPTER_RUNTIMES, RUNTIME_LIMITS, startGateway, type RunningGateway } from '../support/gateway';
import { bucketToml, credentialToml, s3Options } from '../support/config-toml';
import { S3RVER_KEYS, peakRssGrowth, pipeRequest } from '../support/large-bodies';
import { Sha256 } from '../support/raw-request';

/**
 * Uploads stream: the gateway's memory stays flat however large the body, for a plain PUT (the client's
 * body piped through), a PUT whose signed SHA-256 is verified on the way, and an aws-chunked PUT with
 * signed chunks (decoded and verified on the way).
 * Measured as the gateway process's RSS growth while 384 MiB flow through it, never as a timing: six times
 * the 64 MB budget, so a body held whole (or any fraction of it above a sixth) shows. The bench streams 384 MiB.
 *
 * A runtime whose platform caps request bodies (Lambda: about 4.5 MB, `RUNTIME_LIMITS`) cannot take such a
 * PUT by design: the same requests there get the front's 413 before the function runs, and nothing reaches
 * the backend.
 */
const VOLUME = 384 * 1024 * 1024;
const CHUNK = 1024 * 1024;
const RSS_BUDGET = 64 * 1024 * 1024;
const KEYS = { accessKeyId: 'STREAMKEY00000000000', secretAccessKey: 'stream/secret/key/000000000000000000000' };
const EMPTY = createHash('sha256').update('').digest('hex');

let backend: S3rver;

beforeAll(async () => {
  backend = await startS3rver({ buckets: ['big'] });
}, 60_000);

afterAll(() => backend?.stop());

function config(): string {
  return [
    bucketToml({ name: 'big', backend_type: 's3' }, s3Options(backend.endpoint, 'big', S3RVER_KEYS)),
    credentialToml(KEYS, { principal_name: 'streamer' }, [{ bucket: 'big', actions: ['put_object', 'head_object'] }]),
  ].join('\n');
}

/** The same 1 MiB block over and over: what matters is the volume, not the content. */
const block = Buffer.alloc(CHUNK, 'z');
const blockHash = createHash('sha256').update(block).digest('hex');

/** Signs the request head with the reference signer; returns the headers and the seed signature. */
async function signHead(endpoint: string, path: string, headers: Record<string, string>, date: Date): Promise<{ headers: Record<string, string>; seed: string }> {
  const url = new URL(endpoint);
  const signer = new SignatureV4({ credentials: KEYS, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false, applyChecksum: false });
  const signed = await signer.sign({ method: 'PUT', protocol: 'http:', hostname: url.hostname, port: Number(url.port), path, headers: { host: url.host, ...headers } }, { signingDate: date });
  return { headers: signed.headers, seed: /Signature=([0-9a-f]{64})/.exec(signed.headers.authorization)?.[1] ?? '' };
}

/** A signed aws-chunked body of `size` bytes generated as it is sent, chunk signatures chained from `seed`. */
function* signedChunks(size: number, seed: string, date: Date): Generator<Buffer> {
  const iso = date.toISOString().replace(/[-:]|\.\d{3}/g, '');
  const scope = `${iso.slice(0, 8)}/us-east-1/s3/aws4_request`;
  const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();
  const key = hmac(hmac(hmac(hmac(`AWS4${KEYS.secretAccessKey}`, iso.slice(0, 8)), 'us-east-1'), 's3'), 'aws4_request');
  let previous = seed;
  const sign = (hash: string): string => {
    previous = hmac(key, `AWS4-HMAC-SHA256-PAYLOAD\n${iso}\n${scope}\n${previous}\n${EMPTY}\n${hash}`).toString('hex');
    return previous;
  };
  for (let sent = 0; sent < size; sent += CHUNK) {
    yield Buffer.from(`${CHUNK.toString(16)};chunk-signature=${sign(blockHash)}\r\n`);
    yield block;
    yield Buffer.from('\r\n');
  }
  yield Buffer.from(`0;chunk-signature=${sign(EMPTY)}\r\n\r\n`);
}

function framedLength(size: number): number {
  const header = `${CHUNK.toString(16)};chunk-signature=${'0'.repeat(64)}\r\n`.length;
  return (size / CHUNK) * (header + CHUNK + 2) + `0;chunk-signature=${'0'.repeat(64)}\r\n\r\n`.length;
}

const put = (endpoint: string, path: string, headers: Record<string, string>, body: Iterable<Buffer>): Promise<number> => pipeRequest(`${endpoint}${path}`, 'PUT', headers, body);

describe.each(ADAPTER_RUNTIMES)('streaming uploads through the %s runtime', (runtime) => {
  let gw: RunningGateway;
  const limit = RUNTIME_LIMITS[runtime].maxRequestBodyBytes;
  /** Whether a 384 MiB request body reaches the gateway on this runtime. */
  const fits = limit === undefined || framedLength(VOLUME) <= limit;
  /** The specification's name on this runtime: the streaming claim where the body fits, the refusal where it cannot. */
  const spec = (streams: string, request: string): string => (fits ? streams : `${request} is the front's 413 before the function runs; nothing is stored`);

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config() });
  }, 60_000);

  afterAll(() => gw?.stop());

  /**
   * Sends the PUT and checks the runtime's outcome: where it fits, 384 MiB stored with the gateway's RSS growth
   * under budget; where it cannot, the platform's refusal, with no access-log line (the function never ran,
   * so there is no gateway memory to measure) and nothing at the backend.
   */
  async function putAndCheck(path: string, headers: Record<string, string>, body: Iterable<Buffer>): Promise<void> {
    const head = (): Promise<Response> => fetch(`${backend.endpoint}${path}`, { method: 'HEAD' });
    if (fits) {
      let status = 0;
      const growth = await peakRssGrowth(gw, async () => {
        status = await put(gw.endpoint, path, headers, body);
      });
      expect(status).toBe(200);
      expect(growth).toBeLessThan(RSS_BUDGET);
      expect((await head()).headers.get('content-length')).toBe(String(VOLUME));
    } else {
      expect(await put(gw.endpoint, path, headers, body)).toBe(413);
      expect(gw.logs()).not.toContain(`"path":"${path}"`);
      expect((await head()).status).toBe(404);
    }
  }

  it(spec('streams a 384 MiB plain PUT with RSS growth under 64 MB', 'a 384 MiB plain PUT'), async () => {
    const { headers } = await signHead(gw.endpoint, `/big/${runtime}/plain.bin`, { 'content-length': String(VOLUME), 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }, new Date());
    await putAndCheck(`/big/${runtime}/plain.bin`, headers, (function* () {
      for (let sent = 0; sent < VOLUME; sent += CHUNK) yield block;
    })());
  }, 300_000);

  it(spec('verifies the signed SHA-256 of a 384 MiB PUT as it streams, with RSS growth under 64 MB', 'a 384 MiB PUT with a signed SHA-256'), async () => {
    const hash = createHash('sha256');
    for (let sent = 0; sent < VOLUME; sent += CHUNK) hash.update(block);
    const { headers } = await signHead(gw.endpoint, `/big/${runtime}/hashed.bin`, { 'content-length': String(VOLUME), 'x-amz-content-sha256': hash.digest('hex') }, new Date());
    await putAndCheck(`/big/${runtime}/hashed.bin`, headers, (function* () {
      for (let sent = 0; sent < VOLUME; sent += CHUNK) yield block;
    })());
  }, 300_000);

  it(spec('decodes a 384 MiB signed aws-chunked PUT (1 MiB chunks) with RSS growth under 64 MB', 'a 384 MiB signed aws-chunked PUT'), async () => {
    const date = new Date();
    const { headers, seed } = await signHead(gw.endpoint, `/big/${runtime}/chunked.bin`, {
      'content-length': String(framedLength(VOLUME)),
      'content-encoding': 'aws-chunked',
      'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
      'x-amz-decoded-content-length': String(VOLUME),
    }, date);
    await putAndCheck(`/big/${runtime}/chunked.bin`, headers, signedChunks(VOLUME, seed, date));
  }, 300_000);
});
