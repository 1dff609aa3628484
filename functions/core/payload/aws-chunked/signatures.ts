/**
 * The signatures of aws-chunked uploads (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html):
 * each chunk's signature chains from the previous one, seeded by the request's own signature, and a signed
 * trailer is chained from the final (empty) chunk's.
 */
import { hmac, sha256Hex, toHex, type HmacKey } from '../../bytes';
import { streamDigest } from '../../checksums';
import { EMPTY_SHA256 } from '../../sigv4';

/** What chunk signatures are derived from: the verified request signature and its key, scope and date. */
export interface ChunkSigningSeed {
  readonly signature: string;
  readonly signingKey: HmacKey;
  readonly scope: string;
  readonly amzDate: string;
}

/**
 * `AWS4-HMAC-SHA256-PAYLOAD\n<date>\n<scope>\n<previous signature>\n<sha256("")>\n<sha256(chunk)>`.
 *
 * @example chunkStringToSign(seed, seed.signature, await sha256Hex(data))
 */
export function chunkStringToSign(seed: ChunkSigningSeed, previous: string, chunkHash: string): string {
  return `AWS4-HMAC-SHA256-PAYLOAD\n${seed.amzDate}\n${seed.scope}\n${previous}\n${EMPTY_SHA256}\n${chunkHash}`;
}

/** `AWS4-HMAC-SHA256-TRAILER\n<date>\n<scope>\n<final chunk signature>\n<sha256(trailer lines)>`. */
export function trailerStringToSign(seed: ChunkSigningSeed, previous: string, trailerHash: string): string {
  return `AWS4-HMAC-SHA256-TRAILER\n${seed.amzDate}\n${seed.scope}\n${previous}\n${trailerHash}`;
}

/**
 * The signature a chunk carrying `data` must have, after the chunk signed `previous`. The chunk's SHA-256 is
 * the runtime's native one where installed (`streamDigest`): with Web Crypto's asynchronous digest, the decoder
 * took ~1.8x the CPU over 64 KiB chunks (bench/experiments/signed-cpu.ts chunks).
 */
export async function chunkSignature(seed: ChunkSigningSeed, previous: string, data: Uint8Array): Promise<string> {
  const hash = data.length === 0 ? EMPTY_SHA256 : await chunkHash(data);
  return toHex(hmac(seed.signingKey, chunkStringToSign(seed, previous, hash)));
}

async function chunkHash(data: Uint8Array): Promise<string> {
  const digest = streamDigest('sha256');
  digest.update(data);
  return toHex(await digest.digest());
}

/**
 * The signature of the trailer, over its lines as `name:value\n` each (names lower-case, values trimmed),
 * without the `x-amz-trailer-signature` line itself.
 */
export async function trailerSignature(seed: ChunkSigningSeed, previous: string, canonicalTrailer: string): Promise<string> {
  return toHex(hmac(seed.signingKey, trailerStringToSign(seed, previous, await sha256Hex(canonicalTrailer))));
}
