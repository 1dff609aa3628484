import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { startS3rver, type S3rver } from '../../scripts/s3rver';
import { RUNTIMES, startGateway, type RunningGateway } from '../support/gateway';
import { Sha256 } from '../support/raw-request';
import { maxRequestBytes } from './write-fixtures';

/**
 * Uploads stream: the gateway's memory stays flat however large the body, for a plain PUT (the client's
 * body piped through), a PUT whose signed SHA-256 is verified on the way, and an aws-chunked PUT with
 * signed chunks (decoded and verified on the way).
 * Measured as the gateway process tree's RSS growth while up to 1 GiB (the runtime's largest request) flows through
 * it, never as a timing.
 */
const GiB = 1024 ** 3;
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
  return `
[[buckets]]
name = "big"
backend_type = "s3"
[buckets.backend_options]
endpoint = "${backend.endpoint}"
bucket_name = "big"
access_key_id = "S3RVER"
secret_access_key = "S3RVER"

[[credentials]]
access_key_id = "${KEYS.accessKeyId}"
secret_access_key = "${KEYS.secretAccessKey}"
principal_name = "streamer"
[[credentials.allowed_scopes]]
bucket = "big"
prefixes = []
actions = ["put_object", "head_object"]
`;
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

function put(endpoint: string, path: string, headers: Record<string, string>, body: Iterable<Buffer>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${endpoint}${path}`, { method: 'PUT', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    Readable.from(body).pipe(req);
  });
}

async function withPeakRss(gw: RunningGateway, work: () => Promise<void>): Promise<number> {
  const baseline = gw.rss();
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, gw.rss())), 50);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return peak - baseline;
}

describe.each(RUNTIMES)('streaming uploads through the %s runtime', (runtime) => {
  let gw: RunningGateway;
  /**
   * The largest body the runtime's platform accepts, up to 1 GiB, in whole MiB with room for framing: the
   * edge's 100 MB (RUNTIME_LIMITS). A body below the RSS budget would prove nothing: a runtime that buffers
   * requests into a 6 MB payload (Lambda) is not measured.
   */
  const size = Math.min(GiB, Math.floor((maxRequestBytes(runtime) - 1_000_000) / CHUNK) * CHUNK);
  const label = size === GiB ? '1 GiB' : `${size / CHUNK} MiB`;
  const itLarge = size > RSS_BUDGET ? it : it.skip;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config() });
  }, 60_000);

  afterAll(() => gw?.stop());

  itLarge(`streams a ${label} plain PUT with RSS growth under 64 MB`, async () => {
    const { headers } = await signHead(gw.endpoint, '/big/plain.bin', { 'content-length': String(size), 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }, new Date());
    let status = 0;
    const growth = await withPeakRss(gw, async () => {
      status = await put(gw.endpoint, '/big/plain.bin', headers, (function* () {
        for (let sent = 0; sent < size; sent += CHUNK) yield block;
      })());
    });
    expect(status).toBe(200);
    expect(growth).toBeLessThan(RSS_BUDGET);
    const head = await fetch(`${backend.endpoint}/big/plain.bin`, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(size));
  }, 300_000);

  itLarge(`verifies the signed SHA-256 of a ${label} PUT as it streams, with RSS growth under 64 MB`, async () => {
    const hash = createHash('sha256');
    for (let sent = 0; sent < size; sent += CHUNK) hash.update(block);
    const { headers } = await signHead(gw.endpoint, '/big/hashed.bin', { 'content-length': String(size), 'x-amz-content-sha256': hash.digest('hex') }, new Date());
    let status = 0;
    const growth = await withPeakRss(gw, async () => {
      status = await put(gw.endpoint, '/big/hashed.bin', headers, (function* () {
        for (let sent = 0; sent < size; sent += CHUNK) yield block;
      })());
    });
    expect(status).toBe(200);
    expect(growth).toBeLessThan(RSS_BUDGET);
  }, 300_000);

  itLarge(`decodes a ${label} signed aws-chunked PUT (1 MiB chunks) with RSS growth under 64 MB`, async () => {
    const date = new Date();
    const { headers, seed } = await signHead(gw.endpoint, '/big/chunked.bin', {
      'content-length': String(framedLength(size)),
      'content-encoding': 'aws-chunked',
      'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
      'x-amz-decoded-content-length': String(size),
    }, date);
    let status = 0;
    const growth = await withPeakRss(gw, async () => {
      status = await put(gw.endpoint, '/big/chunked.bin', headers, signedChunks(size, seed, date));
    });
    expect(status).toBe(200);
    expect(growth).toBeLessThan(RSS_BUDGET);
    const head = await fetch(`${backend.endpoint}/big/chunked.bin`, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(size));
  }, 300_000);
});
