import { S3Error, isS3ErrorCode, s3Message, type S3ErrorCode } from '../../errors';
import { S3_CODE_BY_STATUS } from '../translate';

/** Backend codes that describe the gateway's own credentials, never the client's. */
const CREDENTIAL_CODES = new Set(['SignatureDoesNotMatch', 'InvalidAccessKeyId', 'ExpiredToken', 'InvalidToken', 'AccessDenied', 'UserProjectAccountProblem']);

/**
 * GCS answers in S3's terms. Forwarded responses show only a status (the body is never read), so a 404 is
 * taken as NoSuchKey; listings read the XML API's S3-style `<Code>` and can tell NoSuchBucket apart.
 */
export function gcsError(status: number, code?: string): S3Error {
  if (code !== undefined && CREDENTIAL_CODES.has(code)) return new S3Error('AccessDenied', 'Access Denied: the GCS backend refused the gateway\'s credentials');
  if (code !== undefined && isS3ErrorCode(code) && code !== 'InternalError') return new S3Error(code, messageFor(code) ?? `The GCS backend answered ${code}`);
  const s3 = S3_CODE_BY_STATUS[status] ?? 'BadGateway';
  return new S3Error(s3, messageFor(s3) ?? `The GCS backend answered ${status}`);
}

/** S3's words, except where the GCS backend, not the client's request, is what failed. */
const MESSAGES: Partial<Record<S3ErrorCode, string>> = {
  NoSuchBucket: 'The backend bucket of this bucket does not exist.',
  AccessDenied: 'Access Denied: the GCS backend refused the gateway\'s credentials',
};

const messageFor = (code: S3ErrorCode): string | undefined => MESSAGES[code] ?? s3Message(code);

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
