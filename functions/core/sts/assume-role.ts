import type { Config } from '../config/types';
import type { CryptoKey } from '../bytes';
import { StsError, quote } from './errors';
import type { JwksCache } from './jwks';
import { mintCredential } from './mint';
import { assumeRoleParams, sessionSeconds } from './params';
import { assumedRoleArn, assumedRoleId } from './principal';
import type { AssumeRoleResult } from './responses';
import type { StsParams } from './routes';
import { sealSession } from './session-token';
import { acceptedAudience, acceptedSubject } from './trust-policy';
import { verifyWebIdentityToken } from './verify-token';

/**
 * AssumeRoleWithWebIdentity, in the spec's order: parameters, role, token (issuer, signature, times), trust
 * policy (audience, subject), then minting and sealing.
 *
 * @param sessionKey The imported SESSION_TOKEN_KEY; undefined when none is configured.
 * @throws StsError with the code of the first check that fails (decisions.md, STS).
 */
export async function assumeRoleWithWebIdentity(
  params: StsParams,
  config: Config,
  jwks: JwksCache,
  sessionKey: Promise<CryptoKey> | undefined,
  now: number,
): Promise<AssumeRoleResult> {
  const request = assumeRoleParams(params);
  const role = config.roles.get(request.roleArn);
  if (!role) throw new StsError('AccessDenied', `Role ${quote(request.roleArn)} does not exist`);
  const claims = await verifyWebIdentityToken(request.webIdentityToken, role, jwks, now);
  const audience = acceptedAudience(role, claims);
  const subject = acceptedSubject(role, claims);
  if (sessionKey === undefined) {
    throw new StsError('InternalFailure', 'Session tokens cannot be issued: SESSION_TOKEN_KEY is not configured');
  }
  const credential = mintCredential(role, subject, claims, sessionSeconds(request.durationSeconds, role), now);
  const sessionToken = await sealSession(await sessionKey, credential);
  return {
    accessKeyId: credential.accessKeyId,
    secretAccessKey: credential.secretAccessKey,
    sessionToken,
    expiration: new Date(credential.session.expiresAt),
    assumedRoleArn: assumedRoleArn(role.roleId, subject),
    assumedRoleId: assumedRoleId(role.roleId, subject),
    subject,
    audience,
    provider: String(claims.iss),
  };
}
