/**
 * The short-lived JWT the gateway presents to a token service as its web identity (spec: "Service-minted
 * backend JWT"; decisions: RS256, `kid` = RFC 7638 thumbprint, 300 s, iat/nbf/jti).
 */
import { SignJWT } from 'jose';
import type { IdentityProvider } from './provider-key';

/** Lifetime of a minted token: long enough for one exchange, short enough to be useless if leaked. */
export const TOKEN_LIFETIME_SECONDS = 300;

export interface MintRequest {
  /** `sub`: the bucket's `oidc_subject`, or `s3-proxy`. */
  readonly subject: string;
  /** `aud`: the token service's audience (`sts.amazonaws.com` unless configured). */
  readonly audience: string;
  /** Issue time in milliseconds since the epoch. */
  readonly now: number;
}

/**
 * Signs a web-identity token with the provider's current key.
 *
 * @returns The compact JWS; its header carries `alg` RS256, `typ` JWT and `kid`.
 * @example
 * const jwt = await mintToken(provider, { subject: 's3-proxy', audience: 'sts.amazonaws.com', now: Date.now() });
 */
export async function mintToken(provider: IdentityProvider, request: MintRequest): Promise<string> {
  const key = provider.current;
  const iat = Math.floor(request.now / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: await key.kid() })
    .setIssuer(provider.issuer)
    .setSubject(request.subject)
    .setAudience(request.audience)
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + TOKEN_LIFETIME_SECONDS)
    .setJti(globalThis.crypto.randomUUID())
    .sign(await key.signingKey());
}
