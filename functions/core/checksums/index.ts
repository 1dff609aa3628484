/**
 * The checksums S3 accepts for a whole object (`x-amz-checksum-*`, in a header or an aws-chunked trailer) and
 * the digests the gateway needs while a body streams. All incremental and runtime-agnostic.
 */
import { Crc32, Crc32c } from './crc32';
import { Crc64Nvme } from './crc64nvme';
import { Md5 } from './md5';
import { Sha1 } from './sha1';
import { Sha256, toBase64 } from '../bytes';

export { Crc32, Crc32c, useNativeCrc32, type NativeCrc32 } from './crc32';
export { Crc64Nvme } from './crc64nvme';
export { Md5 } from './md5';
export { Sha1 } from './sha1';

/** An incremental digest. */
export interface Digest {
  update(data: Uint8Array): void;
  digest(): Uint8Array;
}

/** S3's flexible checksum algorithms, by the suffix of their header (`x-amz-checksum-crc32`…). */
export const CHECKSUM_ALGORITHMS = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

const CHECKSUM_HEADER = /^x-amz-checksum-(crc32|crc32c|crc64nvme|sha1|sha256)$/;

/** The algorithm a header such as `x-amz-checksum-crc32c` names, or undefined when it names none. */
export function checksumAlgorithmOf(headerName: string): ChecksumAlgorithm | undefined {
  const m = CHECKSUM_HEADER.exec(headerName.toLowerCase());
  return m ? (m[1] as ChecksumAlgorithm) : undefined;
}

/** The digests a platform may hash natively (`NativeHash`): CRCs have their own hook (`useNativeCrc32`). */
const HASH_ALGORITHMS = ['sha256', 'sha1', 'md5'] as const;
export type HashAlgorithm = (typeof HASH_ALGORITHMS)[number];

function isHashAlgorithm(algorithm: string): algorithm is HashAlgorithm {
  return (HASH_ALGORITHMS as readonly string[]).includes(algorithm);
}

/** An incremental digest of a streamed body, whose result may take a turn of the event loop (workerd's). */
export interface StreamDigest {
  update(data: Uint8Array): void;
  digest(): Uint8Array | Promise<Uint8Array>;
}

/** A platform's native incremental hash of the named algorithm: Node's `createHash`, workerd's `DigestStream`. */
export type NativeHash = (algorithm: HashAlgorithm) => StreamDigest;

let nativeHash: NativeHash | undefined;

/**
 * Lets a runtime with native hashing stand in for the TypeScript SHA-256, SHA-1 and MD5 of streamed bodies
 * (`streamDigest`): the TypeScript SHA-256 held a PUT signed with its body's hash, as aws-cli and boto3 send
 * over plain HTTP, to half of direct on Node. Undefined restores TypeScript. Process-wide for the reason
 * `useNativeCrc32` gives; the Gateway installs it from its `hash` dependency. Collected bodies (a few KiB of
 * XML) and the short inputs SigV4 hashes stay in TypeScript, where a native call costs more than the work.
 */
export function useNativeHash(hash: NativeHash | undefined): void {
  nativeHash = hash;
}

/** The digest of a body as it streams: the platform's native hash where one is installed. */
export function streamDigest(algorithm: ChecksumAlgorithm | 'md5'): StreamDigest {
  if (nativeHash !== undefined && isHashAlgorithm(algorithm)) return nativeHash(algorithm);
  return createDigest(algorithm);
}

/** A synchronous digest, in TypeScript (CRC-32 through the native one where installed). */
export function createDigest(algorithm: ChecksumAlgorithm | 'md5'): Digest {
  switch (algorithm) {
    case 'crc32':
      return new Crc32();
    case 'crc32c':
      return new Crc32c();
    case 'crc64nvme':
      return new Crc64Nvme();
    case 'sha1':
      return new Sha1();
    case 'sha256':
      return new Sha256();
    case 'md5':
      return new Md5();
  }
}

/** One-shot digest of bytes, base64-encoded. */
export function base64Digest(algorithm: ChecksumAlgorithm | 'md5', data: Uint8Array): string {
  const d = createDigest(algorithm);
  d.update(data);
  return toBase64(d.digest());
}
