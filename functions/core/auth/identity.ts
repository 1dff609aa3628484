import type { Config, Scope } from '../config/types';
import { S3Error, accessDenied } from '../errors';
import type { ProxyRequest } from '../http';
import { checkService, parseSignedRequest, verifySignature, type SignedRequestInfo, type VerifiedSignature } from '../sigv4';

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
): Promise<Identity> {
  const info = parseSignedRequest(request.headers, request.rawQuery);
  if (info === undefined) {
    if (ANONYMOUS_REFUSED.some((name) => request.headers.has(name))) throw accessDenied();
    return ANONYMOUS;
  }
  checkService(info, 's3');
  const token = info.securityToken ?? request.headers.get('x-amz-security-token') ?? undefined;
  const { secret, principal } = token ? await sessionKey(token, info, now, unseal) : longLivedKey(info, config);
  const signature = await verifySignature(request, info, secret, now);
  return { principal, signature, info };
}

function longLivedKey(info: SignedRequestInfo, config: Config): { secret: string; principal: Principal } {
  const credential = config.credentials.get(info.accessKeyId);
  if (!credential || !credential.enabled) {
    throw new S3Error('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', {
      AWSAccessKeyId: info.accessKeyId,
    });
  }
  return {
    secret: credential.secretAccessKey,
    principal: { type: 'key', accessKeyId: credential.accessKeyId, name: credential.principalName, scopes: credential.scopes },
  };
}

async function sessionKey(
  token: string,
  info: SignedRequestInfo,
  now: number,
  unseal: SessionUnsealer | undefined,
): Promise<{ secret: string; principal: Principal }> {
  if (!unseal) throw new S3Error('InvalidToken', 'The provided token is malformed or otherwise invalid.');
  const credential = await unseal(token, now);
  if (credential.accessKeyId !== info.accessKeyId) {
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
