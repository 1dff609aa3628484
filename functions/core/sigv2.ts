/**
 * SigV2 query authentication (S3's legacy presigned links: `AWSAccessKeyId`, `Expires`, `Signature`), which
 * aws-cli v1's `s3 presign`, boto3's `generate_presigned_url` for a custom endpoint and s3cmd's `signurl`
 * still make by default. Verifying only: the string to sign is rebuilt from the request as received and
 * its HMAC-SHA1 compared. Who may use such a link, and for what, is decided in core/auth.
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/RESTAuthentication.html)
 */
import { hmacSha1, timingSafeEqual, toBase64 } from './bytes';
import { S3Error } from './errors';
import type { ReadonlyHeaders } from './http';
import { decodeQueryComponent, splitQuery } from './sigv4/query';

/** The claim of a SigV2 presigned request, before its signature is checked. */
export interface SigV2Query {
  readonly accessKeyId: string;
  /** Epoch seconds after which the link is refused. */
  readonly expires: number;
  /** Base64 HMAC-SHA1, as sent. */
  readonly signature: string;
  /** `x-amz-security-token` (query parameter or header) of a temporary credential. */
  readonly securityToken?: string;
}

/** A SigV2 link never lives longer than a SigV4 one may: seven days from now. */
export const MAX_SIGV2_LIFETIME_SECONDS = 604800;

/** Sub-resources S3 puts in the canonical resource, with their values (botocore's list). */
const SUBRESOURCES: ReadonlySet<string> = new Set([
  'accelerate', 'acl', 'analytics', 'cors', 'defaultObjectAcl', 'delete', 'inventory', 'lifecycle', 'location', 'logging',
  'metrics', 'notification', 'object-lock', 'partNumber', 'policy', 'replication', 'requestPayment', 'response-cache-control',
  'response-content-disposition', 'response-content-encoding', 'response-content-language', 'response-content-type',
  'response-expires', 'restore', 'select', 'select-type', 'storageClass', 'tagging', 'torrent', 'uploadId', 'uploads',
  'versionId', 'versioning', 'versions', 'website',
]);

/** Whether a query authenticates with SigV2 (an `AWSAccessKeyId` and no SigV4 `X-Amz-Algorithm`). */
export function isSigV2Query(rawQuery: string): boolean {
  if (!rawQuery.includes('AWSAccessKeyId')) return false;
  const names = splitQuery(rawQuery).map((p) => decodeQueryComponent(p.rawName));
  return names.includes('AWSAccessKeyId') && !names.includes('X-Amz-Algorithm');
}

/**
 * Reads `AWSAccessKeyId`, `Expires` and `Signature` (first occurrence of each).
 *
 * @throws S3Error AuthorizationQueryParametersError when one is missing or `Expires` is not epoch seconds.
 */
export function parseSigV2Query(rawQuery: string, headers: ReadonlyHeaders): SigV2Query {
  const params = new Map<string, string>();
  for (const { rawName, rawValue } of splitQuery(rawQuery)) {
    const name = decodeQueryComponent(rawName);
    if (!params.has(name)) params.set(name, decodeQueryComponent(rawValue));
  }
  const missing = ['AWSAccessKeyId', 'Expires', 'Signature'].filter((n) => !params.get(n));
  if (missing.length > 0) {
    throw new S3Error('AuthorizationQueryParametersError', `Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters (missing ${missing.join(', ')}).`);
  }
  const expires = params.get('Expires') as string;
  if (!/^\d{1,12}$/.test(expires)) throw new S3Error('AuthorizationQueryParametersError', 'Expires must be a number of seconds since the epoch');
  const token = params.get('x-amz-security-token') ?? headers.get('x-amz-security-token') ?? undefined;
  return {
    accessKeyId: params.get('AWSAccessKeyId') as string,
    expires: Number(expires),
    signature: params.get('Signature') as string,
    ...(token ? { securityToken: token } : {}),
  };
}

/** What SigV2 signs of a request: method, headers, query and the path-style path as sent. */
export interface SigV2Request {
  readonly method: string;
  readonly headers: ReadonlyHeaders;
  readonly rawQuery: string;
  /** `/{bucket}/{key}` as sent, percent-encoding intact (a virtual-hosted request's path under its bucket). */
  readonly resourcePath: string;
}

/**
 * The string to sign: method, Content-MD5, Content-Type, Expires, the `x-amz-*` headers (and `x-amz-*`
 * query parameters, where clients move them in a link) and the canonical resource.
 */
export function stringToSignV2(request: SigV2Request, expires: number): string {
  const amz = new Map<string, string>();
  const params = splitQuery(request.rawQuery).map((p) => ({ name: decodeQueryComponent(p.rawName), value: decodeQueryComponent(p.rawValue) }));
  for (const { name, value } of params) {
    const lower = name.toLowerCase();
    if (lower.startsWith('x-amz-') && !amz.has(lower)) amz.set(lower, value.trim());
  }
  request.headers.forEach((value, name) => {
    if (name.toLowerCase().startsWith('x-amz-')) amz.set(name.toLowerCase(), value.trim());
  });
  const amzLines = [...amz.keys()].sort().map((name) => `${name}:${amz.get(name)}\n`).join('');
  const sub = params.filter((p) => SUBRESOURCES.has(p.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const resource = sub.length === 0 ? request.resourcePath : `${request.resourcePath}?${sub.map((p) => (p.value === '' ? p.name : `${p.name}=${p.value}`)).join('&')}`;
  const md5 = request.headers.get('content-md5') ?? '';
  const type = request.headers.get('content-type') ?? '';
  return `${request.method}\n${md5}\n${type}\n${expires}\n${amzLines}${resource}`;
}

/**
 * Verifies a SigV2 presigned request: not expired, not valid for more than seven days, and signed with
 * `secretAccessKey`.
 *
 * @param now Milliseconds since the epoch.
 * @throws S3Error AccessDenied (expired, or valid too long), SignatureDoesNotMatch.
 */
export async function verifySigV2(request: SigV2Request, claim: SigV2Query, secretAccessKey: string, now: number): Promise<void> {
  const nowSeconds = Math.floor(now / 1000);
  if (nowSeconds > claim.expires) {
    throw new S3Error('AccessDenied', 'Request has expired', {
      Expires: new Date(claim.expires * 1000).toISOString(),
      ServerTime: new Date(now).toISOString(),
    });
  }
  if (claim.expires - nowSeconds > MAX_SIGV2_LIFETIME_SECONDS) {
    throw new S3Error('AccessDenied', `A SigV2 presigned URL may be valid for at most ${MAX_SIGV2_LIFETIME_SECONDS} seconds (seven days)`);
  }
  const toSign = stringToSignV2(request, claim.expires);
  const expected = toBase64(await hmacSha1(secretAccessKey, toSign));
  if (!timingSafeEqual(expected, claim.signature)) {
    throw new S3Error('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.', {
      AWSAccessKeyId: claim.accessKeyId,
      StringToSign: toSign,
      SignatureProvided: claim.signature,
    });
  }
}
