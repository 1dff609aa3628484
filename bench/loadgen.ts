/**
 * The load generator, run in its own process so the orchestrator's work never competes with the
 * measurement. Closed loop: `concurrency` workers each send a request as soon as the previous answered,
 * for `durationMs` (or `count` requests). Requests may be SigV4-signed per request.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { crc32 } from 'node:zlib';
import { signRequest, type Credentials } from '../functions/core/sigv4';

export interface LoadSpec {
  readonly url: string;
  readonly method: 'GET' | 'HEAD' | 'PUT';
  readonly concurrency: number;
  readonly durationMs?: number;
  readonly count?: number;
  /** PUT body size in bytes (sent as a repeated 1 MiB buffer). */
  readonly bodyBytes?: number;
  /** aws-chunked framing (STREAMING-UNSIGNED-PAYLOAD-TRAILER, as SDKs send by default) for PUT bodies. */
  readonly awsChunked?: boolean;
  /** A plain PUT signed with its body's SHA-256 (what aws-cli and boto3 send over plain HTTP). */
  readonly signedPayload?: boolean;
  /** A plain PUT with its body's Content-MD5 (what rclone, restic and boto3 before 1.36 send). */
  readonly contentMd5?: boolean;
  readonly sign?: Credentials;
}

export interface LoadResult {
  readonly requests: number;
  readonly errors: number;
  readonly seconds: number;
  readonly bytes: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly statuses: Record<string, number>;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
const MiB = Buffer.alloc(1024 * 1024, 'b');

async function headersFor(spec: LoadSpec): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  if (spec.method === 'PUT') {
    const size = spec.bodyBytes ?? 0;
    if (spec.awsChunked) {
      headers['content-encoding'] = 'aws-chunked';
      headers['x-amz-decoded-content-length'] = String(size);
      headers['x-amz-trailer'] = 'x-amz-checksum-crc32';
      headers['content-length'] = String(chunkedLength(size));
    } else {
      headers['content-length'] = String(size);
      if (spec.contentMd5) headers['content-md5'] = bodyDigest('md5', size, 'base64');
    }
  }
  if (!spec.sign) return headers;
  const payloadHash = spec.method !== 'PUT' ? 'UNSIGNED-PAYLOAD' : spec.awsChunked ? 'STREAMING-UNSIGNED-PAYLOAD-TRAILER' : spec.signedPayload ? bodyDigest('sha256', spec.bodyBytes ?? 0, 'hex') : 'UNSIGNED-PAYLOAD';
  return signRequest({ method: spec.method, url: spec.url, headers, payloadHash, credentials: spec.sign, region: 'us-east-1', service: 's3', now: Date.now() });
}

const bodyHashes = new Map<string, string>();

/** A digest of the body `writeBody` sends: computed once per size, as the body is the same every time. */
function bodyDigest(algorithm: 'sha256' | 'md5', size: number, encoding: 'hex' | 'base64'): string {
  const key = `${algorithm} ${size} ${encoding}`;
  let digest = bodyHashes.get(key);
  if (digest === undefined) {
    const hash = createHash(algorithm);
    for (let left = size; left > 0; left -= MiB.length) hash.update(MiB.subarray(0, Math.min(left, MiB.length)));
    bodyHashes.set(key, (digest = hash.digest(encoding)));
  }
  return digest;
}

/** Length of `size` bytes framed as 1 MiB aws-chunked chunks with an unsigned CRC32 trailer. */
function chunkedLength(size: number): number {
  let length = 0;
  for (let left = size; left > 0; left -= MiB.length) {
    const n = Math.min(left, MiB.length);
    length += n.toString(16).length + 2 + n + 2;
  }
  return length + '0\r\n'.length + 'x-amz-checksum-crc32:'.length + 8 + '\r\n\r\n'.length;
}

function writeBody(req: http.ClientRequest, spec: LoadSpec, done: () => void): void {
  let left = spec.bodyBytes ?? 0;
  let checksum = 0;
  const next = (): void => {
    while (left > 0) {
      const n = Math.min(left, MiB.length);
      left -= n;
      const data = n === MiB.length ? MiB : MiB.subarray(0, n);
      // zlib's CRC, as SDKs use a native one: the client's own CRC cost is not what is measured.
      if (spec.awsChunked) checksum = crc32(data, checksum);
      // Every frame part is written; only the last write's answer decides whether to wait for 'drain'.
      if (spec.awsChunked) {
        req.write(`${n.toString(16)}\r\n`);
        req.write(data);
      }
      const ok = req.write(spec.awsChunked ? '\r\n' : data);
      if (!ok) return void req.once('drain', next);
    }
    if (spec.awsChunked) {
      const value = Buffer.alloc(4);
      value.writeUInt32BE(checksum >>> 0);
      req.end(`0\r\nx-amz-checksum-crc32:${value.toString('base64')}\r\n\r\n`);
    } else req.end();
    done();
  };
  next();
}

function once(spec: LoadSpec, headers: Record<string, string>): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(spec.url, { method: spec.method, headers, agent }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes: bytes + (spec.method === 'PUT' ? spec.bodyBytes ?? 0 : 0) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (spec.method === 'PUT') writeBody(req, spec, () => undefined);
    else req.end();
  });
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let bytes = 0;
  let errors = 0;
  let issued = 0;
  const started = performance.now();
  const deadline = started + (spec.durationMs ?? Infinity);
  const more = (): boolean => (spec.count === undefined ? performance.now() < deadline : issued < spec.count);
  const worker = async (): Promise<void> => {
    while (more()) {
      issued++;
      const t = performance.now();
      try {
        const res = await once(spec, await headersFor(spec));
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status >= 400) errors++;
        bytes += res.bytes;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { requests: latencies.length, errors, seconds, bytes, p50Ms: pct(0.5), p99Ms: pct(0.99), statuses };
}

/** Runs `spec` in a load generator process of its own, so the caller's work never competes with it. */
export function loadgenProcess(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolvePromise, reject) => {
    execFile(process.execPath, ['--import', 'tsx', __filename, JSON.stringify(spec)], { maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`loadgen failed: ${stderr || err.message}`));
      else resolvePromise(JSON.parse(stdout) as LoadResult);
    });
  });
}

if (require.main === module) {
  const spec = JSON.parse(process.argv[2]) as LoadSpec;
  runLoad(spec).then(
    (result) => {
      process.stdout.write(JSON.stringify(result) + '\n');
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(String(err) + '\n');
      process.exit(1);
    },
  );
}
