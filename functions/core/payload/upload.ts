/**
 * How an upload's body (PutObject, UploadPart) reaches the backend. One decision per request, from what the
 * client declared:
 *
 * - aws-chunked (`x-amz-content-sha256: STREAMING-…`): decoded and verified as it streams; the backend gets
 *   the plain bytes with `content-length` = `x-amz-decoded-content-length`.
 * - a hex `x-amz-content-sha256`, an `x-amz-checksum-*` header or Content-MD5: the bytes stream through a
 *   checker.
 * - otherwise (`UNSIGNED-PAYLOAD`, presigned): the runtime streams the client's body untouched.
 *
 * Declared digests (integrity.ts) are checked over the content in every form, the decoded one for aws-chunked.
 *
 * A length must be declared (Content-Length, or the decoded length for aws-chunked); without one the answer
 * is 411 MissingContentLength, as on S3. `settings.maxUploadBytes` is enforced on that declared length before
 * anything reaches the backend.
 */
import {
  AwsChunkedDecoder,
  STREAMING_UNSIGNED_TRAILER,
  isStreamingPayload,
  parseTrailerHeader,
  type StreamingPayload,
} from './aws-chunked';
import { S3Error, notImplemented, requestTimeout } from '../errors';
import type { Dispatch, HeaderMap } from '../http';
import type { BucketContext } from '../context';
import { errorResponse } from '../responses';
import { UNSIGNED_PAYLOAD } from '../sigv4';
import { sha256Hex } from '../bytes';
import { checkBytes, checkedStream, type BodyChecker } from './checked-stream';
import { declaredDigests, verifyDigests, withDigests, type DeclaredDigest } from './integrity';
import { PlainBodyChecker, sha256Mismatch } from './plain';

/** The body and its description for the backend request. */
export interface UploadBody {
  /** `content-length` as the backend must see it (the decoded length for aws-chunked). */
  readonly headers: HeaderMap;
  readonly body: 'client' | ReadableStream<Uint8Array> | Uint8Array;
  /** `x-amz-content-sha256` for the backend signature: the verified hex hash, or UNSIGNED-PAYLOAD. */
  readonly payloadHash: string;
}

/** An aws-chunked body that decodes to nothing is tiny; it is read whole so it can be checked before the backend sees a request. */
const EMPTY_CHUNKED_MAX_BYTES = 64 * 1024;

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const DECIMAL = /^\d{1,16}$/;

const missingLength = (): S3Error => new S3Error('MissingContentLength', 'You must provide the Content-Length HTTP header.');

/** S3's largest single upload (PutObject, a part, a form upload): 5 GiB. */
export const S3_MAX_UPLOAD_BYTES = 5 * 1024 ** 3;

/**
 * 400 EntityTooLarge when a declared length is above the configured maximum (spec: before processing) or
 * S3's 5 GiB, whichever is lower: every store then refuses what S3 refuses (GCS would take 5 TiB), before a
 * byte is sent.
 */
export function checkDeclaredLength(ctx: BucketContext, length: number): void {
  const max = Math.min(ctx.config.settings.maxUploadBytes ?? S3_MAX_UPLOAD_BYTES, S3_MAX_UPLOAD_BYTES);
  if (length > max) {
    throw new S3Error('EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size', {
      ProposedSize: String(length),
      MaxSizeAllowed: String(max),
    });
  }
}

/**
 * Prepares the body of an upload and hands it to `send`, which builds the backend Forward. An empty
 * aws-chunked body is collected first (a NeedsBody), everything else streams.
 */
export async function withUploadBody(ctx: BucketContext, send: (upload: UploadBody) => Promise<Dispatch>): Promise<Dispatch> {
  const headers = ctx.request.headers;
  const declared = payloadDeclaration(ctx);
  if (isStreamingPayload(declared)) return chunkedUpload(ctx, declared, send);

  const length = declaredLength(headers.get('content-length'));
  checkDeclaredLength(ctx, length);
  const sha256 = declared === UNSIGNED_PAYLOAD ? undefined : hexPayloadHash(declared);
  const digests = toVerify(ctx, declaredDigests(headers));
  const lengthHeader = { 'content-length': String(length) };
  if (sha256 === undefined && digests.length === 0) {
    return send({ headers: lengthHeader, body: 'client', payloadHash: UNSIGNED_PAYLOAD });
  }
  const checker = withDigests(new PlainBodyChecker({ length, sha256 }), digests);
  const body = length === 0 ? await checkBytes(new Uint8Array(), checker) : checkedStream(ctx.request.body(), checker);
  return send({ headers: lengthHeader, body, payloadHash: sha256 ?? UNSIGNED_PAYLOAD });
}

async function chunkedUpload(ctx: BucketContext, payload: StreamingPayload, send: (upload: UploadBody) => Promise<Dispatch>): Promise<Dispatch> {
  const headers = ctx.request.headers;
  const decodedLength = declaredLength(headers.get('x-amz-decoded-content-length'));
  checkDeclaredLength(ctx, decodedLength);
  const trailers = parseTrailerHeader(headers.get('x-amz-trailer'));
  const digests = toVerify(ctx, declaredDigests(headers, trailers));
  const decoder = (): BodyChecker => withDigests(chunkedDecoder(ctx, payload, decodedLength, trailers), digests);
  decoder(); // validates the declaration before anything is read
  const backendHeaders: HeaderMap = { 'content-length': String(decodedLength) };
  const upload = (body: UploadBody['body']): UploadBody => ({ headers: backendHeaders, body, payloadHash: UNSIGNED_PAYLOAD });
  if (decodedLength > 0) return send(upload(checkedStream(ctx.request.body(), decoder())));
  return {
    kind: 'needs-body',
    maxBytes: EMPTY_CHUNKED_MAX_BYTES,
    withBody: async (bytes) => send(upload(await checkBytes(bytes, decoder()))),
    timedOut: () => ({ kind: 'response', response: errorResponse(requestTimeout(), ctx.requestId, ctx.request.method, ctx.request.rawPath) }),
    tooLarge: () => ({
      kind: 'response',
      response: errorResponse(
        new S3Error('InvalidRequest', 'The body holds more data than x-amz-decoded-content-length declares'),
        ctx.requestId,
        ctx.request.method,
        ctx.request.rawPath,
      ),
    }),
  };
}

/**
 * The declared digests the gateway checks as the body streams: all but a Content-MD5 the store checks itself
 * (every form was checked already). Hashing it again cost S3 buckets a quarter of a PUT's throughput.
 */
function toVerify(ctx: BucketContext, digests: DeclaredDigest[]): DeclaredDigest[] {
  return ctx.store.checksContentMd5 === true ? digests.filter((d) => d.algorithm !== 'md5') : digests;
}

/** The decoder for this request's aws-chunked body; signed forms need a header-signed request as seed. */
function chunkedDecoder(ctx: BucketContext, payload: StreamingPayload, decodedLength: number, trailers: readonly string[]): AwsChunkedDecoder {
  const signature = ctx.identity.signature;
  const headerSigned = signature !== undefined && ctx.identity.info?.presigned === false;
  if (payload !== STREAMING_UNSIGNED_TRAILER && !headerSigned) {
    throw new S3Error('InvalidRequest', `${payload} requires a request signed in the Authorization header`);
  }
  return new AwsChunkedDecoder({ payload, seed: signature, decodedLength, trailers });
}

/**
 * A body collected whole (DeleteObjects, CompleteMultipartUpload), verified against everything the client
 * declared for it (hex SHA-256, aws-chunked signatures, `x-amz-checksum-*`, Content-MD5) and decoded.
 *
 * @param checksumHeadersCoverBody False for CompleteMultipartUpload, whose `x-amz-checksum-*` headers are
 *   the whole object's checksum, not the part list's.
 * @throws S3Error XAmzContentSHA256Mismatch, BadDigest, InvalidDigest, SignatureDoesNotMatch, IncompleteBody.
 */
export async function verifiedBody(ctx: BucketContext, bytes: Uint8Array, checksumHeadersCoverBody = true): Promise<Uint8Array> {
  const headers = ctx.request.headers;
  const declared = payloadDeclaration(ctx);
  if (isStreamingPayload(declared)) {
    const decodedLength = declaredLength(headers.get('x-amz-decoded-content-length'));
    const trailers = parseTrailerHeader(headers.get('x-amz-trailer'));
    const digests = declaredDigests(headers, trailers, checksumHeadersCoverBody);
    return checkBytes(bytes, withDigests(chunkedDecoder(ctx, declared, decodedLength, trailers), digests));
  }
  const digests = declaredDigests(headers, [], checksumHeadersCoverBody);
  if (declared !== UNSIGNED_PAYLOAD && (await sha256Hex(bytes)) !== hexPayloadHash(declared)) throw sha256Mismatch();
  verifyDigests(bytes, digests);
  return bytes;
}

/**
 * The payload the client declared, read from where the signature's payload line came from (sigv4 verify):
 * `x-amz-content-sha256` for header-signed requests; for presigned ones the `X-Amz-Content-Sha256` they
 * signed, else the `x-amz-content-sha256` header (the payload line then, so covered by the signature), else
 * UNSIGNED-PAYLOAD.
 */
function payloadDeclaration(ctx: BucketContext): string {
  const header = ctx.request.headers.get('x-amz-content-sha256');
  if (ctx.identity.info?.presigned !== true) return header ?? UNSIGNED_PAYLOAD;
  return ctx.query.get('X-Amz-Content-Sha256') ?? header ?? UNSIGNED_PAYLOAD;
}

function hexPayloadHash(value: string): string {
  if (HEX_SHA256.test(value)) return value.toLowerCase();
  if (value.startsWith('STREAMING-')) throw notImplemented(`The payload type ${value}`);
  throw new S3Error('InvalidArgument', 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-… or the hex SHA-256 of the body');
}

function declaredLength(value: string | null): number {
  if (value === null || value === '') throw missingLength();
  if (!DECIMAL.test(value.trim())) throw new S3Error('InvalidArgument', 'The declared content length is not a number');
  return Number(value.trim());
}

/** `aws-chunked` removed from a Content-Encoding list; undefined when nothing else remains. */
export function withoutAwsChunked(value: string | null): string | undefined {
  if (value === null) return undefined;
  const rest = value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '' && v.toLowerCase() !== 'aws-chunked');
  return rest.length > 0 ? rest.join(',') : undefined;
}
