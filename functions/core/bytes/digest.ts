/**
 * SHA-256 and HMAC-SHA256 as SigV4, the backend signers, STS and the payload checks use them: synchronous
 * plain TypeScript for the many short inputs, Web Crypto above a size where native hashing wins.
 */
import { toHex, utf8 } from './encoding';
import { HmacSha256, Sha256 } from './sha256';

type Subtle = typeof globalThis.crypto.subtle;

/** A Web Crypto key (the global `CryptoKey` type is not declared without the DOM lib). */
export type CryptoKey = Awaited<ReturnType<Subtle['importKey']>>;

/** Resolved on first use: a module-level `crypto.subtle` read would fail where crypto is installed late. */
let subtleCrypto: Subtle | undefined;
function subtle(): Subtle {
  return (subtleCrypto ??= globalThis.crypto.subtle);
}

/** Web Crypto's typings want ArrayBuffer-backed views; a view over shared memory is refused at run time. */
function toBytes(data: string | Uint8Array): Uint8Array<ArrayBuffer> {
  return typeof data === 'string' ? utf8(data) : (data as Uint8Array<ArrayBuffer>);
}

/**
 * Below this size a hash is computed in TypeScript: Web Crypto's asynchronous round trip through the thread
 * pool (11-35 µs measured on Node) costs more than hashing a canonical request or a string to sign (~3 µs).
 * Above it, native hashing wins.
 */
const NATIVE_DIGEST_MIN_BYTES = 16 * 1024;

/**
 * Hex SHA-256 of text (as UTF-8) or bytes.
 *
 * @example await sha256Hex('') // 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
 */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = toBytes(data);
  if (bytes.length < NATIVE_DIGEST_MIN_BYTES) return toHex(new Sha256().update(bytes).digest());
  return toHex(await subtle().digest('SHA-256', bytes));
}

/** Hex SHA-256 of a small input, synchronously (canonical requests, strings to sign). */
export function sha256HexSync(data: string | Uint8Array): string {
  return toHex(new Sha256().update(toBytes(data)).digest());
}

/** An HMAC-SHA256 key with its padded states precomputed; keep it when signing repeatedly with one key. */
export type HmacKey = HmacSha256;

export function importHmacKey(raw: string | Uint8Array): HmacKey {
  return new HmacSha256(toBytes(raw));
}

/**
 * HMAC-SHA256 of `data` (text as UTF-8) under `key` (raw bytes or a prepared key). Synchronous: every input
 * the gateway signs is short.
 *
 * @example toHex(hmac(importHmacKey('key'), 'message'))
 */
export function hmac(key: HmacKey | string | Uint8Array, data: string | Uint8Array): Uint8Array {
  const prepared = typeof key === 'string' || key instanceof Uint8Array ? importHmacKey(key) : key;
  return prepared.sign(toBytes(data));
}


/**
 * HMAC-SHA1 of `data` (UTF-8) under `key` (UTF-8), through Web Crypto: only SigV2 query authentication
 * (S3's legacy presigned links) uses it, once per such request.
 *
 * @example toBase64(await hmacSha1(secret, stringToSign))
 */
export async function hmacSha1(key: string, data: string): Promise<Uint8Array> {
  const imported = await subtle().importKey('raw', utf8(key), { name: 'HMAC', hash: 'SHA-1' }, false, ['sign']);
  return new Uint8Array(await subtle().sign('HMAC', imported, utf8(data)));
}
