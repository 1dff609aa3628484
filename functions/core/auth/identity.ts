import type { Config, Scope } from '../config/types';
import { S3Error, accessDenied } from '../errors';
import type { ProxyRequest } from '../http';
import { hmac, hmacSha1, timingSafeEqual, toBase64, toHex } from '../bytes';
import { checkService, parseAmzDate, parseSignedRequest, signingKey, verifySignature, type SignedRequestInfo, type VerifiedSignature } from '../sigv4';
import { isSigV2Query, parseSigV2Query, verifySigV2 } from '../sigv2';

/**
 * Who is calling. Every request is authenticated here: anonymous, a long-lived `[[credentials]]` key, or a
 * temporary credential sealed into an STS session token.
 */
export type Principal =
  | { readonly type: 'anonymous' }
  | {
      readonly type: 'key';
      readonly accessKeyId: string;
      readonly name: string;
      readonly scopes: readonly Scope[];
      /** Present for temporary credentials minted by the STS endpoint. */
      readonly session?: SessionPrincipal;
    };

export interface SessionPrincipal {
  readonly roleId: string;
  readonly subject: string;
  readonly expiresAt: number;
}

export interface Identity {
  readonly principal: Principal;
  /**
   * True for a SigV2 presigned link (`AWSAccessKeyId`, `Expires`, `Signature`): core/auth lets such a caller
   * only read objects (the `sigv2` field of each row's access, operations/table.ts).
   */
  readonly sigv2?: true;
  /** The verified signature; aws-chunked decoding chains its chunk signatures from it. */
  readonly signature?: VerifiedSignature;
  readonly info?: SignedRequestInfo;
}

/** A temporary credential recovered from a session token. */
export interface SessionCredential {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly scopes: readonly Scope[];
  readonly session: SessionPrincipal;
}

/** Unseals a session token; throws S3Error InvalidToken or ExpiredToken. Provided by the STS module. */
export type SessionUnsealer = (token: string, now: number) => Promise<SessionCredential>;

const ANONYMOUS: Identity = { principal: { type: 'anonymous' } };

/**
 * Headers that would make an anonymous request another operation. Anonymous callers only read (and S3 refuses
 * a copy without credentials), so such a request is refused before routing instead of being routed as a copy.
 */
const ANONYMOUS_REFUSED = ['x-amz-copy-source'];

/**
 * Authenticates an S3 request, before it is routed or authorized: the credential must be scoped to `s3`, the
 * signature must verify, and every `x-amz-*` header must be among the signed ones (sigv4 `unsignedHeaders`),
 * so nothing the signer did not sign can change what the request does or reach the backend.
 *
 * @throws S3Error AuthorizationHeaderMalformed / AuthorizationQueryParametersError (malformed, or scoped to
 *   another service), InvalidAccessKeyId, InvalidToken, AccessDenied (headers not signed, expired URL, an
 *   anonymous copy), SignatureDoesNotMatch, RequestTimeTooSkewed.
 */
export async function authenticate(
  request: ProxyRequest,
  config: Config,
  now: number,
  unseal?: SessionUnsealer,
  resourcePath: string = request.rawPath,
): Promise<Identity> {
  if (!request.headers.has('authorization') && isSigV2Query(request.rawQuery)) return authenticateSigV2(request, config, now, unseal, resourcePath);
  const info = parseSignedRequest(request.headers, request.rawQuery);
  if (info === undefined) {
    if (ANONYMOUS_REFUSED.some((name) => request.headers.has(name))) throw accessDenied();
    return ANONYMOUS;
  }
  checkService(info, 's3');
  const token = info.securityToken ?? request.headers.get('x-amz-security-token') ?? undefined;
  const { secret, principal } = token ? await sessionKey(token, info.accessKeyId, now, unseal) : longLivedKey(info.accessKeyId, config);
  const signature = await verifySignature(request, info, secret, now);
  return { principal, signature, info };
}

const SIGV4_ONLY = 'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.';

/**
 * A SigV2 presigned link: refused when `sigv2_presigned_urls = false`, else verified over the path-style
 * resource (`resourcePath`) as sent. The caller may then only read (core/auth).
 */
async function authenticateSigV2(request: ProxyRequest, config: Config, now: number, unseal: SessionUnsealer | undefined, resourcePath: string): Promise<Identity> {
  if (config.sigv2PresignedUrls === false) throw new S3Error('InvalidRequest', SIGV4_ONLY);
  const claim = parseSigV2Query(request.rawQuery, request.headers);
  const { secret, principal } = claim.securityToken
    ? await sessionKey(claim.securityToken, claim.accessKeyId, now, unseal)
    : longLivedKey(claim.accessKeyId, config);
  await verifySigV2({ method: request.method, headers: request.headers, rawQuery: request.rawQuery, resourcePath }, claim, secret, now);
  return { principal, sigv2: true };
}

/** The secret and principal of a long-lived key, from `[[credentials]]`; a signer's identity for a POST policy too. */
export function longLivedKey(accessKeyId: string, config: Config): { secret: string; principal: Principal } {
  const credential = config.credentials.get(accessKeyId);
  if (!credential || !credential.enabled) {
    throw new S3Error('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', {
      AWSAccessKeyId: accessKeyId,
    });
  }
  return {
    secret: credential.secretAccessKey,
    principal: { type: 'key', accessKeyId: credential.accessKeyId, name: credential.principalName, scopes: credential.scopes },
  };
}

/** The secret and principal of a temporary credential, from its session token (which must belong to `accessKeyId`). */
export async function sessionKey(
  token: string,
  accessKeyId: string,
  now: number,
  unseal: SessionUnsealer | undefined,
): Promise<{ secret: string; principal: Principal }> {
  if (!unseal) throw new S3Error('InvalidToken', 'The provided token is malformed or otherwise invalid.');
  const credential = await unseal(token, now);
  if (credential.accessKeyId !== accessKeyId) {
    throw new S3Error('InvalidToken', 'The session token does not belong to the access key that signed the request.');
  }
  return {
    secret: credential.secretAccessKey,
    principal: {
      type: 'key',
      accessKeyId: credential.accessKeyId,
      name: `${credential.session.roleId}/${credential.session.subject}`,
      scopes: credential.scopes,
      session: credential.session,
    },
  };
}

/**
 * The signer of a browser form upload (presigned POST), from the form's fields (lower-case names): the
 * policy's SigV4 signature (`x-amz-algorithm`, `x-amz-credential`, `x-amz-date`, `x-amz-signature`, and
 * `x-amz-security-token` for a temporary credential) verified over the base64 policy, or its SigV2 one
 * (`AWSAccessKeyId`, `signature`), which boto3's `generate_presigned_post` makes by default. Both sign the
 * policy and nothing else, so SigV2's gaps in a request's signature do not apply to a form: what may be
 * stored is what the policy's conditions allow either way. A form with neither policy nor signature is
 * anonymous. The policy's conditions are checked by the operation (auth/post-policy.ts), the key
 * authorized in core/auth.
 *
 * @throws S3Error InvalidRequest (SigV2 with `sigv2_presigned_urls = false`, another algorithm),
 *   InvalidArgument (fields missing), AuthorizationQueryParametersError (malformed credential or date),
 *   InvalidAccessKeyId, InvalidToken, SignatureDoesNotMatch.
 */
export async function authenticatePostForm(fields: ReadonlyMap<string, string>, config: Config, now: number, unseal?: SessionUnsealer): Promise<Identity> {
  const sigv2 = fields.has('awsaccesskeyid') && !fields.has('x-amz-algorithm');
  if (sigv2 && config.sigv2PresignedUrls === false) throw new S3Error('InvalidRequest', SIGV4_ONLY);
  const policy = fields.get('policy');
  const signature = fields.get(sigv2 ? 'signature' : 'x-amz-signature');
  if (policy === undefined && signature === undefined) return ANONYMOUS;
  const required = sigv2 ? ['policy', 'awsaccesskeyid', 'signature'] : ['policy', 'x-amz-algorithm', 'x-amz-credential', 'x-amz-date', 'x-amz-signature'];
  const missing = required.filter((f) => !fields.get(f));
  if (missing.length > 0) throw new S3Error('InvalidArgument', `Bucket POST must contain the fields ${missing.join(', ')} to be signed`);
  if (!sigv2 && fields.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256') throw new S3Error('InvalidRequest', SIGV4_ONLY);
  const scope = sigv2 ? undefined : postCredential(fields.get('x-amz-credential') as string, fields.get('x-amz-date') as string);
  const accessKeyId = scope?.accessKeyId ?? (fields.get('awsaccesskeyid') as string);
  const token = fields.get('x-amz-security-token');
  const { secret, principal } = token ? await sessionKey(token, accessKeyId, now, unseal) : longLivedKey(accessKeyId, config);
  const expected = scope === undefined
    ? toBase64(await hmacSha1(secret, policy as string))
    : toHex(hmac(signingKey(secret, scope.date, scope.region, 's3'), policy as string));
  if (!timingSafeEqual(expected, signature as string)) {
    throw new S3Error('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.', {
      AWSAccessKeyId: accessKeyId,
      StringToSign: policy as string,
      SignatureProvided: signature as string,
    });
  }
  return { principal };
}

/** `AKID/YYYYMMDD/region/s3/aws4_request`, dated the day of `x-amz-date`. */
function postCredential(credential: string, amzDate: string): { accessKeyId: string; date: string; region: string } {
  const parts = credential.split('/');
  const fail = (why: string): S3Error => new S3Error('AuthorizationQueryParametersError', `Error parsing the X-Amz-Credential parameter; ${why}`);
  if (parts.length !== 5 || parts.some((p) => p === '') || parts[4] !== 'aws4_request' || !/^\d{8}$/.test(parts[1])) {
    throw fail('the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".');
  }
  if (parts[3] !== 's3') throw fail(`incorrect service "${parts[3]}". This endpoint belongs to "s3".`);
  if (parseAmzDate(amzDate) === undefined || !amzDate.startsWith(parts[1])) {
    throw fail(`the x-amz-date "${amzDate}" is not an ISO 8601 basic date on the credential's day "${parts[1]}".`);
  }
  return { accessKeyId: parts[0], date: parts[1], region: parts[2] };
}
