/**
 * A plain (not aws-chunked) upload body checked as it streams: its length, the hex `x-amz-content-sha256`
 * the client signed, and any `x-amz-checksum-*` header. The last piece is held back until all three match.
 */
import { streamDigest, type ChecksumAlgorithm, type StreamDigest } from '../checksums';
import { toBase64, toHex } from '../bytes';
import { S3Error } from '../errors';
import { HoldBack, type BodyChecker, type Emit } from './checked-stream';

export interface ExpectedChecksum {
  readonly algorithm: ChecksumAlgorithm;
  /** Base64, as sent in `x-amz-checksum-<algorithm>`. */
  readonly value: string;
}

export interface PlainBodyOptions {
  /** The declared Content-Length. */
  readonly length: number;
  /** Lower-case hex SHA-256 the client signed, when it signed one. */
  readonly sha256?: string;
  readonly checksums: readonly ExpectedChecksum[];
}

export const sha256Mismatch = (): S3Error =>
  new S3Error('XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
export const checksumMismatch = (algorithm: ChecksumAlgorithm): S3Error =>
  new S3Error('BadDigest', `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`);

export class PlainBodyChecker implements BodyChecker {
  private received = 0;
  private readonly sha256: StreamDigest | undefined;
  private readonly digests: ReadonlyArray<readonly [ExpectedChecksum, StreamDigest]>;
  private readonly hold = new HoldBack();

  constructor(private readonly options: PlainBodyOptions) {
    this.sha256 = options.sha256 === undefined ? undefined : streamDigest('sha256');
    this.digests = options.checksums.map((c) => [c, streamDigest(c.algorithm)] as const);
  }

  write(piece: Uint8Array, emit: Emit): void {
    this.received += piece.length;
    if (this.received > this.options.length) throw new S3Error('InvalidRequest', 'The body is longer than its Content-Length');
    this.sha256?.update(piece);
    for (const [, digest] of this.digests) digest.update(piece);
    this.hold.push(piece, emit);
  }

  async end(emit: Emit): Promise<void> {
    if (this.received !== this.options.length) {
      throw new S3Error('IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header');
    }
    if (this.sha256 !== undefined && toHex(await this.sha256.digest()) !== this.options.sha256) throw sha256Mismatch();
    for (const [expected, digest] of this.digests) {
      if (toBase64(await digest.digest()) !== expected.value) throw checksumMismatch(expected.algorithm);
    }
    this.hold.release(emit);
  }
}
