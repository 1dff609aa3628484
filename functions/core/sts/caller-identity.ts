import { S3Error } from '../errors';
import type { SessionUnsealer } from '../auth/identity';
import { parseSignedRequest, verifySignature, type SignableRequest } from '../sigv4';
import { sha256Hex } from '../bytes';
import { StsError, quote, type StsErrorCode } from './errors';
import { STS_ACCOUNT, assumedRoleArn, assumedRoleId } from './principal';
import type { CallerIdentity } from './responses';

/**
 * GetCallerIdentity (spec, GetCallerIdentity authentication): the request must be SigV4-signed for service
 * `sts` with temporary credentials; the session token is unsealed, its access key must be the one that
 * signed, and the signature is verified with the sealed secret over the raw path as received and the body
 * as received (STS signs the payload itself, not an `x-amz-content-sha256` header). Every refusal is an
 * STS-shaped 403, as the spec requires for a missing token or a bad signature.
 *
 * @param request The request as received.
 * @param body The body (the form, or empty for a query-string call) for the payload hash.
 * @param unseal The Gateway's session unsealer; without one no session token can be valid.
 * @param now Milliseconds since the epoch.
 */
export async function callerIdentity(
  request: SignableRequest,
  body: Uint8Array,
  unseal: SessionUnsealer | undefined,
  now: number,
): Promise<CallerIdentity> {
  const info = sts(() => parseSignedRequest(request.headers, request.rawQuery));
  if (info === undefined) {
    throw new StsError('MissingAuthenticationToken', 'Request is missing Authentication Token: GetCallerIdentity must be signed with SigV4');
  }
  if (info.service !== 'sts') {
    throw new StsError('SignatureDoesNotMatch', `Credential should be scoped to correct service: 'sts', not ${quote(info.service)}`);
  }
  const token = info.securityToken;
  if (token === undefined || token === '' || unseal === undefined) {
    throw new StsError(
      'InvalidClientTokenId',
      'The request carries no session token: GetCallerIdentity answers only for temporary credentials from AssumeRoleWithWebIdentity',
    );
  }
  const credential = await stsAsync(() => unseal(token, now));
  if (credential.accessKeyId !== info.accessKeyId) {
    throw new StsError('InvalidClientTokenId', `The session token does not belong to access key ${quote(info.accessKeyId)}`);
  }
  const payloadHash = await sha256Hex(body);
  await stsAsync(() => verifySignature(request, info, credential.secretAccessKey, now, { payloadHash }));
  const { roleId, subject } = credential.session;
  return { arn: assumedRoleArn(roleId, subject), userId: assumedRoleId(roleId, subject), account: STS_ACCOUNT };
}

/** S3's authentication codes, as STS names the same failures; all 403 here. */
const STS_CODE: Partial<Record<S3Error['code'], StsErrorCode>> = {
  InvalidToken: 'InvalidClientTokenId',
  ExpiredToken: 'ExpiredToken',
  SignatureDoesNotMatch: 'SignatureDoesNotMatch',
  RequestTimeTooSkewed: 'SignatureDoesNotMatch',
  AccessDenied: 'SignatureDoesNotMatch',
};

const MESSAGE: Partial<Record<StsErrorCode, string>> = {
  InvalidClientTokenId: 'The security token included in the request is invalid.',
  ExpiredToken: 'The security token included in the request is expired',
};

function translate(err: unknown): unknown {
  if (!(err instanceof S3Error)) return err;
  // The signature leaves out x-amz-* headers the request carries: the same rule as S3, in STS's words.
  const unsigned = err.detail.HeadersNotSigned;
  if (unsigned !== undefined) return new StsError('IncompleteSignature', `${err.message}: ${unsigned}`);
  const code = STS_CODE[err.code] ?? 'IncompleteSignature';
  return new StsError(code, MESSAGE[code] ?? err.message);
}

function sts<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw translate(err);
  }
}

async function stsAsync<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw translate(err);
  }
}
