import type { ReadonlyHeaders } from '../http';
/**
 * Checks a client's SigV4 signature by rebuilding it from the request as received. The secret is looked up
 * by the caller (from `info.accessKeyId`), so this stays pure.
 */
import { S3Error } from '../errors';
import {
  MissingSignedHeaderError,
  UNSIGNED_PAYLOAD,
  canonicalHeaders,
  canonicalQuery,
  canonicalRequest,
  canonicalRequestHash,
} from './canonical';
import { parseAmzDate } from './dates';
import { hmac, timingSafeEqual, toHex, type HmacKey } from '../bytes';
import type { SignedRequestInfo } from './parse';
import { NO_PLATFORM_HEADERS, signedHeaderVariants, type PlatformHeaders } from './platform-headers';
import { queryParam } from './query';
import { unsignedHeaders } from './signed-headers';
import { signingKey } from './signing-key';
import { credentialScope, stringToSign } from './string-to-sign';

/** The parts of a request SigV4 covers, as received (see `ProxyRequest`). */
export interface SignableRequest {
  readonly method: string;
  readonly rawPath: string;
  readonly rawQuery: string;
  readonly headers: ReadonlyHeaders;
  /** What the runtime's platform changes in requests before the gateway sees them (absent: nothing). */
  readonly platformHeaders?: PlatformHeaders;
}

/** A verified signature, and what an aws-chunked decoder needs to chain the chunk signatures from it. */
export interface VerifiedSignature {
  /** The request's signature: the seed of the first chunk's string to sign. */
  readonly signature: string;
  readonly signingKey: HmacKey;
  /** `YYYYMMDD/region/service/aws4_request`. */
  readonly scope: string;
  /** `YYYYMMDDTHHMMSSZ`. */
  readonly amzDate: string;
}

/** How the payload is hashed when a service does not take it from a header. */
export interface VerifyOptions {
  /**
   * Header auth only: the hex SHA-256 of the body the service received. S3 signs whatever
   * `x-amz-content-sha256` says; STS (and other query-protocol services) sign the body itself and clients send
   * no such header. Presigned requests keep `UNSIGNED-PAYLOAD` (or their `X-Amz-Content-Sha256` parameter)
   * either way, and an `x-amz-content-sha256` header then counts as any other `x-amz-*` header.
   */
  readonly payloadHash?: string;
}

/** S3 refuses header-signed requests further than this from its clock, and presigned ones dated this far ahead. */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

const SIGNATURE_MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your key and signing method.';

/**
 * Verifies a request's SigV4 signature, and that it covers every header that must be signed (see
 * `unsignedHeaders`): a signed request is honoured with no `x-amz-*` header its signature leaves out.
 *
 * @param request The request as received; `rawPath` and `rawQuery` exactly as sent.
 * @param info From `parseSignedRequest`.
 * @param secretAccessKey The secret of `info.accessKeyId`.
 * @param now The current time in milliseconds (injected, so tests freeze it).
 * @param options `payloadHash` for services that sign the body rather than `x-amz-content-sha256` (STS).
 * @returns The signature and its key, scope and date, for aws-chunked chunk signatures.
 * @throws S3Error `RequestTimeTooSkewed` (header auth more than 15 minutes off); `AccessDenied` (presigned URL
 *   expired, or dated more than 15 minutes ahead; or headers that must be signed and are not, named in the
 *   `HeadersNotSigned` detail); `InvalidRequest` (header auth without
 *   `x-amz-content-sha256`); `SignatureDoesNotMatch` (a signed header missing, or another signature), whose
 *   detail carries the StringToSign and CanonicalRequest the gateway computed, never the secret or the expected
 *   signature.
 * @example
 * const info = parseSignedRequest(req.headers, req.rawQuery);
 * if (info) await verifySignature(req, info, secretFor(info.accessKeyId), Date.now());
 */
export async function verifySignature(
  request: SignableRequest,
  info: SignedRequestInfo,
  secretAccessKey: string,
  now: number,
  options: VerifyOptions = {},
): Promise<VerifiedSignature> {
  checkRequestTime(info, now);
  const payload = payloadLine(request, info, options);
  const unsigned = unsignedHeaders(request.headers, info.signedHeaders, payload.fromHeader);
  if (unsigned.length > 0) {
    throw new S3Error('AccessDenied', 'There were headers present in the request which were not signed', {
      HeadersNotSigned: unsigned.join(', '),
    });
  }
  const key = signingKey(secretAccessKey, info.date, info.region, info.service);
  const scope = credentialScope(info.date, info.region, info.service);
  const canonicalQueryString = canonicalQuery(request.rawQuery, info.presigned ? 'X-Amz-Signature' : undefined);
  const rules = request.platformHeaders ?? NO_PLATFORM_HEADERS;
  const signOver = (headers: ReadonlyHeaders): { canonical: string; toSign: string; signature: string } => {
    const canonical = canonicalRequest({
      method: request.method,
      rawPath: request.rawPath,
      canonicalQuery: canonicalQueryString,
      canonicalHeaders: signedHeaderBlock(headers, info, rules),
      signedHeaders: info.signedHeaders,
      payloadHash: payload.hash,
    });
    const toSign = stringToSign(info.amzDate, scope, canonicalRequestHash(canonical));
    return { canonical, toSign, signature: toHex(hmac(key, toSign)) };
  };
  const arrived = signOver(request.headers);
  let signature = timingSafeEqual(arrived.signature, info.signature) ? arrived.signature : undefined;
  // Only where the platform rewrote a signed header: the values its client may have signed instead.
  for (const variant of signature === undefined ? signedHeaderVariants(request.headers, info.signedHeaders, rules) : []) {
    const attempt = signOver(variant).signature;
    if (timingSafeEqual(attempt, info.signature)) {
      signature = attempt;
      break;
    }
  }
  if (signature === undefined) {
    throw new S3Error('SignatureDoesNotMatch', `${SIGNATURE_MISMATCH}${platformHint(info.signedHeaders.filter((name) => rules.dropped.has(name)), rules)}`, {
      AWSAccessKeyId: info.accessKeyId,
      StringToSign: arrived.toSign,
      SignatureProvided: info.signature,
      CanonicalRequest: arrived.canonical,
    });
  }
  return { signature, signingKey: key, scope, amzDate: info.amzDate };
}

function checkRequestTime(info: SignedRequestInfo, now: number): void {
  // Parsed infos hold a valid date; an unparseable one is treated as infinitely old.
  const signedAt = parseAmzDate(info.amzDate) ?? Number.NEGATIVE_INFINITY;
  if (!info.presigned) {
    if (Math.abs(now - signedAt) > MAX_CLOCK_SKEW_MS) {
      throw new S3Error(
        'RequestTimeTooSkewed',
        'The difference between the request time and the current time is too large.',
        {
          RequestTime: info.amzDate,
          ServerTime: new Date(now).toISOString(),
          MaxAllowedSkewMilliseconds: String(MAX_CLOCK_SKEW_MS),
        },
      );
    }
    return;
  }
  if (signedAt - now > MAX_CLOCK_SKEW_MS) throw new S3Error('AccessDenied', 'Request is not valid yet');
  const expiresAt = signedAt + (info.expiresSeconds ?? 0) * 1000;
  if (now > expiresAt) {
    throw new S3Error('AccessDenied', 'Request has expired', {
      'X-Amz-Expires': String(info.expiresSeconds ?? 0),
      Expires: new Date(expiresAt).toISOString(),
      ServerTime: new Date(now).toISOString(),
    });
  }
}

function signedHeaderBlock(headers: ReadonlyHeaders, info: SignedRequestInfo, rules: PlatformHeaders): string {
  try {
    return canonicalHeaders(headers, info.signedHeaders);
  } catch (error) {
    if (!(error instanceof MissingSignedHeaderError)) throw error;
    throw new S3Error('SignatureDoesNotMatch', `${SIGNATURE_MISMATCH} ${error.message}.${platformHint(rules.dropped.has(error.header) ? [error.header] : [], rules)}`, {
      AWSAccessKeyId: info.accessKeyId,
      SignatureProvided: info.signature,
    });
  }
}

/**
 * Names the signed headers whose client value never reaches the gateway (the platform removes them, or
 * replaces them with its own): the client should not sign them.
 */
function platformHint(lost: readonly string[], rules: PlatformHeaders): string {
  return lost.length === 0 ? '' : ` The platform in front of the gateway (${rules.platform}) removes or replaces ${lost.join(', ')}; do not sign ${lost.length === 1 ? 'it' : 'them'}.`;
}

/** The canonical request's last line, and whether it is the request's `x-amz-content-sha256` value. */
interface PayloadLine {
  readonly hash: string;
  readonly fromHeader: boolean;
}

/**
 * The payload hash a request is signed over. Header auth: `x-amz-content-sha256`, which S3 requires whatever
 * it holds (a hash, UNSIGNED-PAYLOAD, STREAMING-…), unless the service hashes the body itself (STS). Presigned:
 * an `X-Amz-Content-Sha256` query parameter, else the `x-amz-content-sha256` header when sent (S3 reads it into
 * the payload line, signed or not: `UNSIGNED-PAYLOAD` passes, a body hash fails the signature), else
 * UNSIGNED-PAYLOAD. Upload handling reads the same sources in the same order (payload/upload.ts).
 */
function payloadLine(request: SignableRequest, info: SignedRequestInfo, options: VerifyOptions): PayloadLine {
  const header = request.headers.get('x-amz-content-sha256');
  if (!info.presigned) {
    if (options.payloadHash !== undefined) return { hash: options.payloadHash, fromHeader: false };
    if (header === null) {
      throw new S3Error('InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
    }
    return { hash: header, fromHeader: true };
  }
  const query = queryParam(request.rawQuery, 'X-Amz-Content-Sha256');
  if (query !== undefined) return { hash: query, fromHeader: false };
  if (header !== null && options.payloadHash === undefined) return { hash: header, fromHeader: true };
  return { hash: UNSIGNED_PAYLOAD, fromHeader: false };
}
