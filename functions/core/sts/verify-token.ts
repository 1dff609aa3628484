import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type KeyLike } from 'jose';
import type { Role } from '../config/types';
import { StsError, quote } from './errors';
import { matchIssuer, type IssuerKeys, type JwksCache } from './jwks';

/**
 * Verifies a web identity token for a role (spec, AssumeRoleWithWebIdentity verification, steps 1-5): the
 * issuer must be one the role trusts, the signature RS256 by a key from that issuer's JWKS, `typ` (when
 * present) `JWT`, and `exp` present; `exp` and `nbf` hold with 60 s of clock skew. Audience and subject are
 * the trust policy's (trust-policy.ts), checked only once the token is known to be genuine.
 *
 * Only RS256 is accepted, and that is decided from the header before any key is touched, so `none`, HMAC
 * (including HS256 "signed" with the issuer's public key) and every other algorithm are refused outright.
 *
 * The token's `iss` is matched to one of the role's configured issuers once (`matchIssuer`: exactly, or with
 * one trailing slash), before anything is fetched; from then on only the configured string is used: it keys
 * the JWKS cache, jose checks `iss` against it, and the claims returned carry it as `iss`. So spellings of a
 * trusted issuer share one cache entry, and a token naming any other issuer costs no fetch.
 */

/** Clock skew tolerated on `exp` and `nbf` (spec, Limits). */
export const CLOCK_SKEW_SECONDS = 60;
const ALGORITHM = 'RS256';

/**
 * @param token The compact JWT as sent in WebIdentityToken.
 * @param role The role named by RoleArn.
 * @param jwks The Gateway's key cache.
 * @param now Milliseconds since the epoch.
 * @returns The verified claims, `iss` being the configured issuer the token's `iss` matched.
 * @throws StsError `InvalidIdentityToken` (malformed, wrong algorithm or `typ`, untrusted issuer, unknown key,
 *   bad signature, `nbf` in the future, no `exp`), `ExpiredTokenException` (`exp` passed), or the key cache's
 *   `IDPCommunicationError`.
 * @example const claims = await verifyWebIdentityToken(token, role, jwks, Date.now());
 */
export async function verifyWebIdentityToken(token: string, role: Role, jwks: JwksCache, now: number): Promise<JWTPayload> {
  const { header, claims } = decode(token);
  if (header.alg !== ALGORITHM) {
    throw new StsError('InvalidIdentityToken', `The token's alg ${quote(header.alg ?? '(none)')} is not accepted; tokens must be signed with ${ALGORITHM}`);
  }
  if (header.typ !== undefined && header.typ !== 'JWT') {
    throw new StsError('InvalidIdentityToken', `The token's typ ${quote(header.typ)} is not JWT`);
  }
  const iss = claims.iss;
  if (typeof iss !== 'string' || iss === '') throw new StsError('InvalidIdentityToken', 'The token has no iss claim');
  const issuer = matchIssuer(role.trustedIssuers, iss);
  if (issuer === undefined) {
    throw new StsError('InvalidIdentityToken', `The issuer ${quote(iss)} is not trusted by role ${quote(role.roleId)}`);
  }
  const kid = typeof header.kid === 'string' ? header.kid : undefined;
  let keys = await jwks.keys(issuer);
  if (kid !== undefined && !hasKid(keys, kid)) {
    // Perhaps the issuer rotated its keys since we fetched them; ask again unless we asked very recently.
    keys = (await jwks.refresh(issuer)) ?? keys;
    if (!hasKid(keys, kid)) {
      throw new StsError('InvalidIdentityToken', `No key with kid ${quote(kid)} in the JWKS of issuer ${quote(issuer)}`);
    }
  }
  return { ...(await verify(token, issuer, keys, now)), iss: issuer };
}

/**
 * The JWS compact form (RFC 7515 §7.1): three base64url segments without padding, whitespace or any other
 * character (an unsigned token's empty signature is refused by its alg next). jose's decoders on some
 * runtimes skip such characters (workerd's accepted a signature with one inserted), which would let several
 * strings stand for one token; only the one the issuer wrote is taken.
 */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

function decode(token: string): { header: ReturnType<typeof decodeProtectedHeader>; claims: JWTPayload } {
  if (!COMPACT_JWS.test(token)) throw new StsError('InvalidIdentityToken', 'The web identity token is not a well-formed JWT');
  try {
    return { header: decodeProtectedHeader(token), claims: decodeJwt(token) };
  } catch {
    throw new StsError('InvalidIdentityToken', 'The web identity token is not a well-formed JWT');
  }
}

function hasKid(keys: IssuerKeys, kid: string): boolean {
  return keys.jwks.keys.some((k) => k.kid === kid);
}

async function verify(token: string, issuer: string, keys: IssuerKeys, now: number): Promise<JWTPayload> {
  const options = {
    algorithms: [ALGORITHM],
    // The spellings matchIssuer accepts, and no other.
    issuer: [issuer, `${issuer}/`],
    clockTolerance: CLOCK_SKEW_SECONDS,
    currentDate: new Date(now),
    requiredClaims: ['exp'],
  };
  try {
    return (await jwtVerify(token, keys.getKey, options)).payload;
  } catch (err) {
    if (!(err instanceof errors.JWKSMultipleMatchingKeys)) throw refusal(err, issuer);
    // No kid and several RSA keys: the token verifies if any of them signed it.
    for await (const key of err as unknown as AsyncIterable<KeyLike>) {
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (inner) {
        if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw refusal(inner, issuer);
      }
    }
    throw refusal(new errors.JWSSignatureVerificationFailed(), issuer);
  }
}

/** jose's failures in STS terms, each naming the check that failed. */
function refusal(err: unknown, issuer: string): StsError {
  if (err instanceof StsError) return err;
  if (err instanceof errors.JWTExpired) {
    return new StsError('ExpiredTokenException', `The token expired (exp ${expiry(err.payload)}, ${CLOCK_SKEW_SECONDS} s of skew allowed)`);
  }
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return new StsError('InvalidIdentityToken', `The token is not valid yet (nbf is in the future beyond ${CLOCK_SKEW_SECONDS} s of skew)`);
    if (err.reason === 'missing') return new StsError('InvalidIdentityToken', `The token has no ${err.claim} claim`);
    return new StsError('InvalidIdentityToken', `The token's ${err.claim} claim is invalid (${err.reason})`);
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return new StsError('InvalidIdentityToken', `The token's signature does not verify with the keys of issuer ${quote(issuer)}`);
  }
  if (err instanceof errors.JWKSNoMatchingKey) {
    return new StsError('InvalidIdentityToken', `No RS256 signing key of issuer ${quote(issuer)} matches the token`);
  }
  if (err instanceof errors.JOSEError) return new StsError('InvalidIdentityToken', `The token does not verify: ${err.code}`);
  return new StsError('InvalidIdentityToken', `The token does not verify with the keys of issuer ${quote(issuer)}`);
}

function expiry(payload: JWTPayload): string {
  return typeof payload.exp === 'number' ? new Date(payload.exp * 1000).toISOString() : 'unknown';
}
