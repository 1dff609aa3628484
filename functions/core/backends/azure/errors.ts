import { S3Error, s3Message, type S3ErrorCode } from '../../errors';
import type { BackendResponse } from '../../http';
import { backendDocument } from '../../streams';
import { S3_CODE_BY_STATUS } from '../translate';

/**
 * Azure Blob error codes (the `x-ms-error-code` header, present on HEAD too) in S3's terms:
 * https://learn.microsoft.com/rest/api/storageservices/blob-service-error-codes
 */
const AZURE_TO_S3: Readonly<Record<string, S3ErrorCode>> = {
  BlobNotFound: 'NoSuchKey',
  ContainerNotFound: 'NoSuchBucket',
  ConditionNotMet: 'PreconditionFailed',
  // `If-None-Match: *` on an existing blob: Azure answers 409, S3 412.
  BlobAlreadyExists: 'PreconditionFailed',
  AuthenticationFailed: 'AccessDenied',
  AuthorizationFailure: 'AccessDenied',
  AuthorizationPermissionMismatch: 'AccessDenied',
  AuthorizationProtocolMismatch: 'AccessDenied',
  AuthorizationResourceTypeMismatch: 'AccessDenied',
  AuthorizationSourceIPMismatch: 'AccessDenied',
  InsufficientAccountPermissions: 'AccessDenied',
  AccountIsDisabled: 'AccessDenied',
  NoAuthenticationInformation: 'AccessDenied',
  PublicAccessNotPermitted: 'AccessDenied',
  ResourceNotFound: 'NoSuchBucket',
  ServerBusy: 'SlowDown',
  OperationTimedOut: 'GatewayTimeout',
  InvalidRange: 'InvalidRange',
  Md5Mismatch: 'BadDigest',
  InvalidMd5: 'InvalidDigest',
  RequestBodyTooLarge: 'EntityTooLarge',
  MissingContentLengthHeader: 'MissingContentLength',
  InvalidMetadata: 'InvalidArgument',
  InvalidHeaderValue: 'InvalidArgument',
  BlobArchived: 'InvalidRequest',
  // Tags the gateway let through (azure/tags.ts checks S3's limits and Azure's characters first). Azurite
  // answers a character it refuses with DuplicateTagNames.
  InvalidTag: 'InvalidTag',
  TagsTooLarge: 'InvalidTag',
  EmptyTagName: 'InvalidTag',
  DuplicateTagNames: 'InvalidTag',
};

/** The S3 error for an Azure error status and code; backend detail never reaches the client's message. */
export function azureError(status: number, code: string | undefined): S3Error {
  const s3 = (code !== undefined && Object.hasOwn(AZURE_TO_S3, code) ? AZURE_TO_S3[code] : undefined) ?? S3_CODE_BY_STATUS[status] ?? 'BadGateway';
  const message = s3 === 'BadGateway' ? `The Azure backend answered ${status}${code ? ` ${code}` : ''}` : messageFor(s3) ?? `The Azure backend answered ${code ?? status}`;
  return new S3Error(s3, message);
}

/** S3's words, except where the Azure backend, not the client's request, is what failed. */
const MESSAGES: Partial<Record<S3ErrorCode, string>> = {
  NoSuchBucket: 'The backend container of this bucket does not exist.',
  AccessDenied: 'Access Denied: the Azure backend refused the gateway\'s credentials',
  InvalidTag: 'The tags cannot be stored on an Azure backend',
};

const messageFor = (code: S3ErrorCode): string | undefined => MESSAGES[code] ?? s3Message(code);

/** An answer to a request the core sent itself, read to its end; an error in S3's terms. */
export async function checked(response: BackendResponse): Promise<void> {
  await backendDocument(response.body);
  if (response.status >= 300) throw azureError(response.status, response.headers.get('x-ms-error-code') ?? undefined);
}
