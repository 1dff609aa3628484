import { S3Error, S3_ERROR_STATUS, type S3ErrorCode } from '../../errors';
import { S3_CODE_BY_STATUS } from '../translate';

/** Backend codes that describe the gateway's own credentials, never the client's. */
const CREDENTIAL_CODES = new Set(['SignatureDoesNotMatch', 'InvalidAccessKeyId', 'ExpiredToken', 'InvalidToken', 'AccessDenied', 'UserProjectAccountProblem']);

/**
 * GCS answers in S3's terms. Forwarded responses show only a status (the body is never read), so a 404 is
 * taken as NoSuchKey; listings read the XML API's S3-style `<Code>` and can tell NoSuchBucket apart.
 */
export function gcsError(status: number, code?: string): S3Error {
  if (code !== undefined && CREDENTIAL_CODES.has(code)) return new S3Error('AccessDenied', 'Access Denied: the GCS backend refused the gateway\'s credentials');
  if (code !== undefined && code in S3_ERROR_STATUS && code !== 'InternalError') return new S3Error(code as S3ErrorCode, MESSAGES[code as S3ErrorCode] ?? `The GCS backend answered ${code}`);
  const s3 = S3_CODE_BY_STATUS[status] ?? 'BadGateway';
  return new S3Error(s3, MESSAGES[s3] ?? `The GCS backend answered ${status}`);
}

const MESSAGES: Partial<Record<S3ErrorCode, string>> = {
  NoSuchKey: 'The specified key does not exist.',
  NoSuchBucket: 'The backend bucket of this bucket does not exist.',
  PreconditionFailed: 'At least one of the pre-conditions you specified did not hold',
  AccessDenied: 'Access Denied: the GCS backend refused the gateway\'s credentials',
  SlowDown: 'Please reduce your request rate.',
  InvalidRange: 'The requested range is not satisfiable',
  BadDigest: 'The Content-MD5 you specified did not match what we received.',
};

/** GCS storage classes as the S3 classes that behave alike (all GCS classes are readable at once). */
export function storageClassOf(gcsClass: string | null | undefined): string {
  switch (gcsClass?.toUpperCase()) {
    case 'NEARLINE':
      return 'STANDARD_IA';
    case 'COLDLINE':
    case 'ARCHIVE':
      return 'GLACIER_IR';
    default:
      return 'STANDARD';
  }
}
