import { SignatureV4 } from '@smithy/signature-v4';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { Keys } from './clients';
import { Sha256, type RawResponse } from './raw-request';

/**
 * aws-chunked uploads built by hand, for the forms no stock client sends here (signed chunks, signed
 * trailers) and for tampered bodies. The request is signed by the reference signer (@smithy/signature-v4);
 * chunk and trailer signatures follow the published algorithm
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html), computed with that signer's
 * `sign(stringToSign)` and seeded by its request signature.
 */
export type ChunkedPayload = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD' | 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER' | 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
export type TrailerChecksum = 'crc32' | 'crc32c' | 'crc64nvme' | 'sha1' | 'sha256';

export interface ChunkedOptions {
  readonly method?: string;
  /** Path and query as sent, e.g. `/strict/a.bin` or `/strict/a.bin?partNumber=1&uploadId=…`. */
  readonly target: string;
  readonly payload: ChunkedPayload;
  readonly data: Buffer;
  readonly chunkSize?: number;
  /** Trailing checksum (trailer forms); `value` overrides the computed one, e.g. to send a wrong CRC. */
  readonly checksum?: { readonly algorithm: TrailerChecksum; readonly value?: string };
  /** Further headers, signed (e.g. `if-none-match`, `x-amz-meta-*`). */
  readonly headers?: Record<string, string>;
  /** Sent with `transfer-encoding: chunked` and no content-length, as the JS SDK does. */
  readonly transferEncodingChunked?: boolean;
}

export interface BuiltUpload {
  readonly method: string;
  readonly target: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

const sha256hex = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');
const EMPTY = sha256hex('');

/** CRC32, CRC32C and CRC64NVME, bitwise: slow and obviously right, independent of the gateway's tables. */
function crc(algorithm: 'crc32' | 'crc32c' | 'crc64nvme', data: Buffer): Buffer {
  if (algorithm === 'crc64nvme') {
    const poly = 0x9a6c9329ac4bc9b5n;
    let c = 0xffffffffffffffffn;
    for (const b of data) {
      c ^= BigInt(b);
      for (let k = 0; k < 8; k++) c = c & 1n ? (c >> 1n) ^ poly : c >> 1n;
    }
    const out = Buffer.alloc(8);
    out.writeBigUInt64BE(c ^ 0xffffffffffffffffn);
    return out;
  }
  const poly = algorithm === 'crc32' ? 0xedb88320 : 0x82f63b78;
  let c = 0xffffffff;
  for (const b of data) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
  }
  const out = Buffer.alloc(4);
  out.writeUInt32BE((c ^ 0xffffffff) >>> 0);
  return out;
}

export function checksumOf(algorithm: TrailerChecksum, data: Buffer): string {
  if (algorithm === 'sha1' || algorithm === 'sha256') return createHash(algorithm).update(data).digest('base64');
  return crc(algorithm, data).toString('base64');
}

export async function buildChunkedUpload(endpoint: string, keys: Keys, options: ChunkedOptions): Promise<BuiltUpload> {
  const url = new URL(endpoint);
  const method = options.method ?? 'PUT';
  const q = options.target.indexOf('?');
  const path = q < 0 ? options.target : options.target.slice(0, q);
  const query = Object.fromEntries(
    (q < 0 ? '' : options.target.slice(q + 1))
      .split('&')
      .filter(Boolean)
      .map((p) => p.split('=').map(decodeURIComponent) as [string, string]),
  );
  const trailerName = options.checksum ? `x-amz-checksum-${options.checksum.algorithm}` : undefined;
  const headers: Record<string, string> = {
    host: url.host,
    'content-encoding': 'aws-chunked',
    'x-amz-content-sha256': options.payload,
    'x-amz-decoded-content-length': String(options.data.length),
    ...(trailerName ? { 'x-amz-trailer': trailerName } : {}),
    ...options.headers,
  };
  const signingDate = new Date();
  const signer = new SignatureV4({ credentials: keys, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false, applyChecksum: false });
  // The body's framed length must be signed when it is sent with content-length; compute the body first
  // with a placeholder signature of the same length, then for real.
  const frame = async (seed: string): Promise<Buffer> => encode(signer, signingDate, seed, options, trailerName);
  if (!options.transferEncodingChunked) headers['content-length'] = String((await frame('0'.repeat(64))).length);
  const signed = await signer.sign(
    { method, protocol: url.protocol, hostname: url.hostname, port: Number(url.port), path, query, headers },
    { signingDate },
  );
  const seed = /Signature=([0-9a-f]{64})/.exec(signed.headers.authorization)?.[1] ?? '';
  const out = { ...signed.headers };
  if (options.transferEncodingChunked) out['transfer-encoding'] = 'chunked';
  return { method, target: options.target, headers: out, body: await frame(seed) };
}

async function encode(signer: SignatureV4, signingDate: Date, seed: string, options: ChunkedOptions, trailerName: string | undefined): Promise<Buffer> {
  const signed = options.payload !== 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
  const iso = signingDate.toISOString().replace(/[-:]|\.\d{3}/g, '');
  const scope = `${iso.slice(0, 8)}/us-east-1/s3/aws4_request`;
  const size = options.chunkSize ?? 64 * 1024;
  const chunks: Buffer[] = [];
  for (let i = 0; i < options.data.length; i += size) chunks.push(options.data.subarray(i, i + size));
  chunks.push(Buffer.alloc(0));
  const parts: Buffer[] = [];
  let previous = seed;
  for (const chunk of chunks) {
    let header = chunk.length.toString(16);
    if (signed) {
      previous = await signer.sign(`AWS4-HMAC-SHA256-PAYLOAD\n${iso}\n${scope}\n${previous}\n${EMPTY}\n${sha256hex(chunk)}`, { signingDate });
      header += `;chunk-signature=${previous}`;
    }
    parts.push(Buffer.from(`${header}\r\n`), chunk);
    if (chunk.length > 0) parts.push(Buffer.from('\r\n'));
  }
  if (trailerName && options.checksum) {
    const trailer = `${trailerName}:${options.checksum.value ?? checksumOf(options.checksum.algorithm, options.data)}`;
    parts.push(Buffer.from(`${trailer}\r\n`));
    if (options.payload === 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER') {
      const sig = await signer.sign(`AWS4-HMAC-SHA256-TRAILER\n${iso}\n${scope}\n${previous}\n${sha256hex(`${trailer}\n`)}`, { signingDate });
      parts.push(Buffer.from(`x-amz-trailer-signature:${sig}\r\n`));
    }
  }
  parts.push(Buffer.from('\r\n'));
  return Buffer.concat(parts);
}

/**
 * Sends a built upload (or a tampered copy of one) and reads the whole answer. With `agent`, the request
 * goes through that connection pool and the answer tells whether it reused a kept-alive connection.
 */
export function sendUpload(
  endpoint: string,
  upload: BuiltUpload,
  body: Buffer = upload.body,
  agent?: http.Agent,
): Promise<RawResponse & { readonly reusedSocket: boolean }> {
  const url = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method: upload.method, path: upload.target, headers: upload.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString(), bytes, reusedSocket: req.reusedSocket });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
