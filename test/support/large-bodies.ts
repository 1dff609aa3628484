import http from 'node:http';
import { Readable } from 'node:stream';
import { signRequest } from '../../functions/core/sigv4';
import type { Keys } from './clients';

/** Bodies far larger than memory should hold, made as they are sent, and the gateway's memory while they flow. */

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;
/** s3rver's fixed credentials. */
export const S3RVER_KEYS: Keys = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

const FILLER = Buffer.alloc(MiB, 'x');

/** `size` bytes of `block` repeated (the last piece cut short): the volume matters, not the content. */
export function* repeated(size: number, block: Buffer = FILLER): Generator<Buffer> {
  for (let sent = 0; sent < size; sent += block.length) yield size - sent >= block.length ? block : block.subarray(0, size - sent);
}

/** The headers of a PUT of `size` bytes with an unsigned payload, signed for `keys`. */
export function signedPutHeaders(url: string, keys: Keys, size: number): Promise<Record<string, string>> {
  return signRequest({
    method: 'PUT',
    url,
    headers: { 'content-length': String(size) },
    payloadHash: 'UNSIGNED-PAYLOAD',
    credentials: keys,
    region: 'us-east-1',
    service: 's3',
    now: Date.now(),
  });
}

/** Sends `body` as it is generated; resolves with the status once the answer has been read. */
export function pipeRequest(url: string, method: string, headers: Record<string, string>, body: Iterable<Buffer>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    Readable.from(body).pipe(req);
  });
}

/** Streams a signed PUT of `size` bytes (by default `repeated(size)`); anything but 200 is an error. */
export async function streamPut(url: string, keys: Keys, size: number, body: Iterable<Buffer> = repeated(size)): Promise<void> {
  const status = await pipeRequest(url, 'PUT', await signedPutHeaders(url, keys, size), body);
  if (status !== 200) throw new Error(`PUT answered ${status}`);
}

/** Runs `work` while sampling the process's RSS every 50 ms; resolves with the peak growth in bytes. */
export async function peakRssGrowth(process: { rss(): number }, work: () => Promise<void>): Promise<number> {
  const baseline = process.rss();
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.rss())), 50);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return peak - baseline;
}
