/**
 * A plain (not aws-chunked) upload body checked as it streams: its length and the hex `x-amz-content-sha256`
 * the client signed. The last piece is held back until both match. Declared digests (`x-amz-checksum-*`,
 * Content-MD5) are checked around it (integrity.ts).
 */
import { streamDigest, type StreamDigest } from '../checksums';
import { toHex } from '../bytes';
import { S3Error } from '../errors';
import { HoldBack, type BodyChecker, type Emit } from './checked-stream';

export interface PlainBodyOptions {
  /** The declared Content-Length. */
  readonly length: number;
  /** Lower-case hex SHA-256 the client signed, when it signed one. */
  readonly sha256?: string;
}

export const sha256Mismatch = (): S3Error =>
  new S3Error('XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");

export class PlainBodyChecker implements BodyChecker {
  private received = 0;
  private readonly sha256: StreamDigest | undefined;
  private readonly hold = new HoldBack();

  constructor(private readonly options: PlainBodyOptions) {
    this.sha256 = options.sha256 === undefined ? undefined : streamDigest('sha256');
  }

  write(piece: Uint8Array, emit: Emit): void {
    this.received += piece.length;
    if (this.received > this.options.length) throw new S3Error('InvalidRequest', 'The body is longer than its Content-Length');
    this.sha256?.update(piece);
    this.hold.push(piece, emit);
  }

  async end(emit: Emit): Promise<void> {
    if (this.received !== this.options.length) {
      throw new S3Error('IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header');
    }
    if (this.sha256 !== undefined && toHex(await this.sha256.digest()) !== this.options.sha256) throw sha256Mismatch();
    this.hold.release(emit);
  }
}
