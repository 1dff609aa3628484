/**
 * The digests an upload declares for its content, beside its signature, read as S3 reads them before the
 * body: at most one `x-amz-checksum-*` (a header, or an aws-chunked trailer announced in `x-amz-trailer`),
 * `x-amz-sdk-checksum-algorithm` naming that one, and `Content-MD5`.
 *
 * The gateway reads their form on every store and verifies the digests itself, over the content the store
 * receives: a store may check none of them (the GCS JSON API ignores Content-MD5), and S3's answers are the
 * same on every bucket. A Content-MD5 that the store checks itself is left to it (upload.ts `toVerify`). The
 * last bytes are held back until the digests match, so a refused upload writes nothing.
 */
import { base64Digest, checksumAlgorithmOf, streamDigest, type ChecksumAlgorithm, type StreamDigest } from '../checksums';
import { toBase64 } from '../bytes';
import { S3Error, invalidRequest } from '../errors';
import type { ReadonlyHeaders } from '../http';
import { HoldBack, type BodyChecker, type Emit } from './checked-stream';

export type DigestAlgorithm = ChecksumAlgorithm | 'md5';

/** A digest the client declared for the content: base64, as sent. */
export interface DeclaredDigest {
  readonly algorithm: DigestAlgorithm;
  readonly value: string;
}

const DIGEST_BYTES: Readonly<Record<DigestAlgorithm, number>> = { crc32: 4, crc32c: 4, crc64nvme: 8, sha1: 20, sha256: 32, md5: 16 };

/** Whether `value` is the padded base64 of a digest of `algorithm`'s length. */
function isDigestForm(value: string, algorithm: DigestAlgorithm): boolean {
  const bytes = DIGEST_BYTES[algorithm];
  const pad = (3 - (bytes % 3)) % 3;
  const chars = Math.ceil(bytes / 3) * 4 - pad;
  return value.length === chars + pad && /^[A-Za-z0-9+/]*$/.test(value.slice(0, chars)) && value.slice(chars) === '='.repeat(pad);
}

/**
 * The digests `headers` declare for an upload's content, checked in form: one checksum at most, counting
 * `trailers` (the announced aws-chunked trailer names), each value the base64 of its algorithm's digest, and
 * `x-amz-sdk-checksum-algorithm` naming the one sent. With `checksums` false (CompleteMultipartUpload, whose
 * checksum headers are the whole object's) only Content-MD5 is read.
 *
 * @throws S3Error InvalidRequest (several checksums, one malformed, or an SDK algorithm naming another or
 *   none), InvalidDigest (a malformed Content-MD5), with S3's messages.
 */
export function declaredDigests(headers: ReadonlyHeaders, trailers: readonly string[] = [], checksums = true): DeclaredDigest[] {
  const digests: DeclaredDigest[] = checksums ? declaredChecksums(headers, trailers) : [];
  const md5 = headers.get('content-md5');
  if (md5 !== null) {
    const value = md5.trim();
    if (!isDigestForm(value, 'md5')) throw new S3Error('InvalidDigest', 'The Content-MD5 you specified was invalid.');
    digests.push({ algorithm: 'md5', value });
  }
  return digests;
}

function declaredChecksums(headers: ReadonlyHeaders, trailers: readonly string[]): DeclaredDigest[] {
  const sent: DeclaredDigest[] = [];
  headers.forEach((value, name) => {
    const algorithm = checksumAlgorithmOf(name);
    if (algorithm !== undefined) sent.push({ algorithm, value: value.trim() });
  });
  const trailing = trailers.map(checksumAlgorithmOf).filter((a): a is ChecksumAlgorithm => a !== undefined);
  if (sent.length + trailing.length > 1) throw invalidRequest('Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.');
  for (const { algorithm, value } of sent) {
    if (!isDigestForm(value, algorithm)) throw invalidRequest(`Value for x-amz-checksum-${algorithm} header is invalid.`);
  }
  const sdk = headers.get('x-amz-sdk-checksum-algorithm');
  if (sdk !== null) {
    const named = sent[0]?.algorithm ?? trailing[0];
    if (named === undefined) {
      throw invalidRequest('x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.');
    }
    if (sdk.trim().toLowerCase() !== named) throw invalidRequest('Value for x-amz-sdk-checksum-algorithm header is invalid.');
  }
  return sent;
}

/** The refusal of content whose digest is not the one declared. */
export function digestMismatch(algorithm: DigestAlgorithm): S3Error {
  if (algorithm === 'md5') return new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.');
  return new S3Error('BadDigest', `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`);
}

/** Checks collected content against its declared digests. @throws S3Error BadDigest */
export function verifyDigests(content: Uint8Array, digests: readonly DeclaredDigest[]): void {
  for (const { algorithm, value } of digests) {
    if (base64Digest(algorithm, content) !== value) throw digestMismatch(algorithm);
  }
}

/**
 * `inner` (which reads the body's framing and signature) with the declared digests checked over the content
 * it passes on: the last piece is held back until they match.
 */
export function withDigests(inner: BodyChecker, digests: readonly DeclaredDigest[]): BodyChecker {
  return digests.length === 0 ? inner : new DigestChecker(inner, digests);
}

class DigestChecker implements BodyChecker {
  private readonly hold = new HoldBack();
  private readonly digests: ReadonlyArray<readonly [DeclaredDigest, StreamDigest]>;

  constructor(
    private readonly inner: BodyChecker,
    digests: readonly DeclaredDigest[],
  ) {
    this.digests = digests.map((d) => [d, streamDigest(d.algorithm)] as const);
  }

  write(piece: Uint8Array, emit: Emit): void | Promise<void> {
    return this.inner.write(piece, (bytes) => this.pass(bytes, emit));
  }

  async end(emit: Emit): Promise<void> {
    await this.inner.end((bytes) => this.pass(bytes, emit));
    for (const [{ algorithm, value }, digest] of this.digests) {
      if (toBase64(await digest.digest()) !== value) throw digestMismatch(algorithm);
    }
    this.hold.release(emit);
  }

  private pass(bytes: Uint8Array, emit: Emit): void {
    for (const [, digest] of this.digests) digest.update(bytes);
    this.hold.push(bytes, emit);
  }
}
