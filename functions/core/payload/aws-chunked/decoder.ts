/**
 * Decodes an aws-chunked body as it streams, verifying everything the client signed or declared:
 *
 *     <hex size>[;chunk-signature=<sig>]\r\n<data>\r\n ... 0[;chunk-signature=<sig>]\r\n<trailers>\r\n
 *
 * where each trailer is `name:value\r\n` (a signed trailer ends with `x-amz-trailer-signature:<sig>\r\n`).
 * The backend receives only the decoded data. Signed chunks are buffered until their signature is checked
 * (Web Crypto hashes in one shot), so a chunk is bounded; unsigned chunks stream. The last decoded bytes are
 * held back until the final chunk, the trailer signature, the trailing checksum and the decoded length all
 * check out.
 */
import { timingSafeEqual, toBase64 } from '../../bytes';
import { streamDigest, checksumAlgorithmOf, type ChecksumAlgorithm, type StreamDigest } from '../../checksums';
import { S3Error } from '../../errors';
import { concat } from '../../streams';
import { HoldBack, type BodyChecker, type Emit } from '../checked-stream';
import { digestMismatch } from '../integrity';
import { chunkSignature, trailerSignature, type ChunkSigningSeed } from './signatures';

/** The three aws-chunked payload forms, by their `x-amz-content-sha256` value. */
export const STREAMING_SIGNED = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
export const STREAMING_SIGNED_TRAILER = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';
export const STREAMING_UNSIGNED_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';

export type StreamingPayload = typeof STREAMING_SIGNED | typeof STREAMING_SIGNED_TRAILER | typeof STREAMING_UNSIGNED_TRAILER;

export function isStreamingPayload(value: string): value is StreamingPayload {
  return value === STREAMING_SIGNED || value === STREAMING_SIGNED_TRAILER || value === STREAMING_UNSIGNED_TRAILER;
}

/** Largest signed chunk accepted: it is held in memory until its signature is checked. SDKs send 64 KiB. */
export const MAX_SIGNED_CHUNK_BYTES = 16 * 1024 * 1024;
/** A chunk header or trailer line is short (a signature line is about 100 bytes). */
const MAX_LINE_BYTES = 4096;
const MAX_TRAILER_LINES = 16;
const TRAILER_SIGNATURE = 'x-amz-trailer-signature';

export interface AwsChunkedOptions {
  readonly payload: StreamingPayload;
  /** The verified request signature; required for the signed forms. */
  readonly seed?: ChunkSigningSeed;
  /** `x-amz-decoded-content-length`: exactly this many bytes must come out. */
  readonly decodedLength: number;
  /** `x-amz-trailer`, the trailer header names the client announced (lower-case). */
  readonly trailers: readonly string[];
  readonly maxSignedChunkBytes?: number;
}

type State = 'header' | 'data' | 'data-end' | 'trailer' | 'done';

const malformed = (what: string): S3Error => new S3Error('InvalidRequest', `Malformed aws-chunked body: ${what}`);
const incomplete = (): S3Error =>
  new S3Error('IncompleteBody', 'You did not provide the number of bytes specified by the x-amz-decoded-content-length HTTP header');
const signatureMismatch = (what: string): S3Error =>
  new S3Error('SignatureDoesNotMatch', `The ${what} signature we calculated does not match the signature you provided.`);

/** Parses the announced trailer names; only checksum trailers are meaningful to S3. */
export function parseTrailerHeader(value: string | null): string[] {
  if (value === null) return [];
  const names = value.split(',').map((n) => n.trim().toLowerCase()).filter((n) => n !== '');
  for (const name of names) {
    if (checksumAlgorithmOf(name) === undefined) throw new S3Error('InvalidRequest', `Unsupported trailer: ${name}`);
  }
  if (new Set(names).size !== names.length) throw new S3Error('InvalidRequest', 'A trailer is announced twice');
  return names;
}

/**
 * The decoder as a BodyChecker for `checkedStream` (streaming) or `checkBytes` (a collected body).
 *
 * @throws S3Error SignatureDoesNotMatch (a chunk or the trailer), BadDigest (the trailing checksum),
 *   IncompleteBody (the body ended early or decoded short), InvalidRequest (malformed framing, more data
 *   than declared, a missing or unannounced trailer).
 */
export class AwsChunkedDecoder implements BodyChecker {
  private state: State = 'header';
  private line: number[] = [];
  private remaining = 0;
  private crlf = 0;
  private decoded = 0;
  private chunkSig = '';
  private previousSig: string;
  private readonly chunk: Uint8Array[] = [];
  private readonly hold = new HoldBack();
  private readonly trailerLines: Array<readonly [string, string]> = [];
  private readonly checksums: ReadonlyMap<string, { readonly algorithm: ChecksumAlgorithm; readonly digest: StreamDigest }>;
  private readonly signed: boolean;
  private readonly maxChunk: number;

  constructor(private readonly options: AwsChunkedOptions) {
    this.signed = options.payload !== STREAMING_UNSIGNED_TRAILER;
    if (this.signed && options.seed === undefined) throw new S3Error('InvalidRequest', 'Signed aws-chunked uploads need a header-signed request');
    if (options.payload === STREAMING_SIGNED && options.trailers.length > 0) {
      throw new S3Error('InvalidRequest', `x-amz-trailer is not allowed with ${STREAMING_SIGNED}`);
    }
    this.previousSig = options.seed?.signature ?? '';
    this.maxChunk = options.maxSignedChunkBytes ?? MAX_SIGNED_CHUNK_BYTES;
    const checksums = new Map<string, { algorithm: ChecksumAlgorithm; digest: StreamDigest }>();
    for (const name of options.trailers) {
      const algorithm = checksumAlgorithmOf(name);
      if (algorithm !== undefined) checksums.set(name, { algorithm, digest: streamDigest(algorithm) });
    }
    this.checksums = checksums;
  }

  async write(piece: Uint8Array, emit: Emit): Promise<void> {
    let i = 0;
    while (i < piece.length) {
      switch (this.state) {
        case 'header':
        case 'trailer': {
          const end = this.readLine(piece, i);
          if (end < 0) return;
          i = end;
          const text = this.takeLine();
          if (this.state === 'header') await this.onHeader(text);
          else this.onTrailerLine(text);
          break;
        }
        case 'data': {
          const n = Math.min(this.remaining, piece.length - i);
          const data = piece.subarray(i, i + n);
          i += n;
          this.remaining -= n;
          this.decoded += n;
          for (const { digest } of this.checksums.values()) digest.update(data);
          if (this.signed) this.chunk.push(data);
          else this.hold.push(data, emit);
          if (this.remaining === 0) {
            if (this.signed) await this.verifyChunk(emit);
            this.state = 'data-end';
            this.crlf = 0;
          }
          break;
        }
        case 'data-end': {
          const expected = this.crlf === 0 ? 0x0d : 0x0a;
          if (piece[i] !== expected) throw malformed('chunk data is not followed by CRLF');
          i++;
          if (++this.crlf === 2) this.state = 'header';
          break;
        }
        case 'done':
          throw malformed('data after the final chunk');
      }
    }
  }

  async end(emit: Emit): Promise<void> {
    if (this.state !== 'done') {
      // The empty line closing a body without trailers is optional for some encoders.
      const lenient = this.state === 'trailer' && this.line.length === 0 && this.trailerLines.length === 0 && this.options.trailers.length === 0;
      if (!lenient) throw incomplete();
      this.state = 'done';
    }
    await this.checkTrailer();
    if (this.decoded !== this.options.decodedLength) throw incomplete();
    this.hold.release(emit);
  }

  /** Index after the line's LF, with the line's bytes collected; -1 when the piece ends first. */
  private readLine(piece: Uint8Array, from: number): number {
    for (let i = from; i < piece.length; i++) {
      const b = piece[i];
      if (b === 0x0a) return i + 1;
      this.line.push(b);
      if (this.line.length > MAX_LINE_BYTES) throw malformed('a chunk header or trailer line is too long');
    }
    return -1;
  }

  private takeLine(): string {
    const bytes = this.line;
    this.line = [];
    if (bytes[bytes.length - 1] !== 0x0d) throw malformed('a line does not end with CRLF');
    bytes.pop();
    return String.fromCharCode(...bytes);
  }

  private async onHeader(text: string): Promise<void> {
    const m = /^([0-9a-fA-F]{1,13})(;.*)?$/.exec(text);
    if (m === null) throw malformed(`bad chunk header "${text.slice(0, 80)}"`);
    const size = parseInt(m[1], 16);
    const signature = /;chunk-signature=([0-9a-f]{64})(?:;|$)/.exec(m[2] ?? '')?.[1];
    if (this.signed) {
      if (signature === undefined) throw malformed('a chunk has no chunk-signature');
      if (size > this.maxChunk) {
        throw new S3Error('InvalidRequest', `Signed chunks larger than ${this.maxChunk} bytes are not accepted by this gateway`);
      }
      this.chunkSig = signature;
    }
    if (this.decoded + size > this.options.decodedLength) {
      throw new S3Error('InvalidRequest', 'The body holds more data than x-amz-decoded-content-length declares');
    }
    if (size === 0) {
      if (this.signed) await this.verifyChunk(undefined);
      this.state = 'trailer';
      return;
    }
    this.remaining = size;
    this.state = 'data';
  }

  /** Checks the chunk just read against its signature, then passes the previous one on. */
  private async verifyChunk(emit: Emit | undefined): Promise<void> {
    const data = concat(this.chunk);
    this.chunk.length = 0;
    const expected = await chunkSignature(this.options.seed as ChunkSigningSeed, this.previousSig, data);
    if (!timingSafeEqual(expected, this.chunkSig)) throw signatureMismatch('chunk');
    this.previousSig = expected;
    if (emit !== undefined) this.hold.push(data, emit);
  }

  private onTrailerLine(text: string): void {
    if (text === '') {
      this.state = 'done';
      return;
    }
    const colon = text.indexOf(':');
    if (colon <= 0) throw malformed(`bad trailer line "${text.slice(0, 80)}"`);
    if (this.trailerLines.length >= MAX_TRAILER_LINES) throw malformed('too many trailer lines');
    this.trailerLines.push([text.slice(0, colon).trim().toLowerCase(), text.slice(colon + 1).trim()]);
  }

  private async checkTrailer(): Promise<void> {
    const { payload, trailers } = this.options;
    const values = new Map<string, string>();
    let signature: string | undefined;
    let canonical = '';
    for (const [name, value] of this.trailerLines) {
      if (name === TRAILER_SIGNATURE) {
        if (payload !== STREAMING_SIGNED_TRAILER || signature !== undefined) throw malformed('unexpected x-amz-trailer-signature');
        signature = value;
        continue;
      }
      if (signature !== undefined) throw malformed('a trailer follows x-amz-trailer-signature');
      if (!trailers.includes(name) || values.has(name)) throw new S3Error('InvalidRequest', `The trailer ${name} was not announced in x-amz-trailer`);
      values.set(name, value);
      canonical += `${name}:${value}\n`;
    }
    for (const name of trailers) {
      if (!values.has(name)) throw new S3Error('IncompleteBody', `The announced trailer ${name} is missing`);
    }
    if (payload === STREAMING_SIGNED_TRAILER) {
      if (signature === undefined) throw new S3Error('IncompleteBody', 'The trailer signature is missing');
      const expected = await trailerSignature(this.options.seed as ChunkSigningSeed, this.previousSig, canonical);
      if (!timingSafeEqual(expected, signature)) throw signatureMismatch('trailer');
    }
    for (const [name, { algorithm, digest }] of this.checksums) {
      const actual = toBase64(await digest.digest());
      if (actual !== values.get(name)) {
        throw digestMismatch(algorithm);
      }
    }
  }
}
