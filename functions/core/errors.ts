/**
 * The one error type of the gateway. Each S3 error code maps to the status AWS S3 uses
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html); STS codes live in sts/errors.ts.
 */
export const S3_ERROR_STATUS = {
  AccessDenied: 403,
  /** A CORS preflight no rule allows. */
  AccessForbidden: 403,
  AuthorizationHeaderMalformed: 400,
  AuthorizationQueryParametersError: 400,
  BadDigest: 400,
  /** A CORS preflight without Origin or with an invalid Access-Control-Request-Method; over 10 tags on an object. */
  BadRequest: 400,
  BucketAlreadyOwnedByYou: 409,
  EntityTooLarge: 400,
  /** A POST form upload below its policy's content-length-range. */
  EntityTooSmall: 400,
  ExpiredToken: 400,
  IncompleteBody: 400,
  InternalError: 500,
  InvalidAccessKeyId: 403,
  InvalidArgument: 400,
  InvalidBucketName: 400,
  InvalidDigest: 400,
  InvalidPart: 400,
  InvalidPartNumber: 416,
  InvalidPartOrder: 400,
  InvalidPolicyDocument: 400,
  InvalidRange: 416,
  InvalidRequest: 400,
  /** A tag S3's limits (or the store's characters) refuse. */
  InvalidTag: 400,
  InvalidToken: 400,
  KeyTooLongError: 400,
  MalformedPOSTRequest: 400,
  MalformedXML: 400,
  MaxPostPreDataLengthExceededError: 400,
  MetadataTooLarge: 400,
  MethodNotAllowed: 405,
  MissingContentLength: 411,
  MissingSecurityHeader: 400,
  NoSuchBucket: 404,
  NoSuchKey: 404,
  NoSuchUpload: 404,
  NoSuchVersion: 404,
  NotImplemented: 501,
  PreconditionFailed: 412,
  /** A request head over the server's limit (S3 says so with its own limit, 8 KiB, in MaxSizeAllowed). */
  RequestHeaderSectionTooLarge: 400,
  RequestTimeout: 400,
  RequestTimeTooSkewed: 403,
  ServiceUnavailable: 503,
  SignatureDoesNotMatch: 403,
  SlowDown: 503,
  GatewayTimeout: 504,
  BadGateway: 502,
  XAmzContentSHA256Mismatch: 400,
} as const;

export type S3ErrorCode = keyof typeof S3_ERROR_STATUS;

/** Whether `code` (text from a backend) is an S3 error code the gateway knows; `in` would also take `constructor`. */
export function isS3ErrorCode(code: string): code is S3ErrorCode {
  return Object.hasOwn(S3_ERROR_STATUS, code);
}

export class S3Error extends Error {
  readonly status: number;

  constructor(
    readonly code: S3ErrorCode,
    message: string,
    /** Extra elements for the XML body (e.g. `BucketName`, `Key`); values are escaped when rendered. */
    readonly detail: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'S3Error';
    this.status = S3_ERROR_STATUS[code];
  }
}

/**
 * S3's own words for the codes the gateway answers from a backend's status or code alone, or for a backend
 * error without a message (Ceph RGW sends NoSuchKey's empty). Read through `s3Message`.
 */
const S3_MESSAGES: Partial<Record<S3ErrorCode, string>> = {
  AccessDenied: 'Access Denied',
  BadDigest: 'The Content-MD5 you specified did not match what we received.',
  EntityTooSmall: 'Your proposed upload is smaller than the minimum allowed object size.',
  InvalidDigest: 'The Content-MD5 you specified was invalid.',
  InvalidPart: "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not have matched the part's entity tag.",
  InvalidPartNumber: 'The requested partnumber is not satisfiable',
  InvalidPartOrder: 'The list of parts was not in ascending order. The parts list must be specified in order by part number.',
  InvalidRange: 'The requested range is not satisfiable',
  MetadataTooLarge: 'Your metadata headers exceed the maximum allowed metadata size',
  MethodNotAllowed: 'The specified method is not allowed against this resource.',
  NoSuchBucket: 'The specified bucket does not exist',
  NoSuchKey: 'The specified key does not exist.',
  NoSuchUpload: 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
  NoSuchVersion: 'The specified version does not exist.',
  PreconditionFailed: 'At least one of the pre-conditions you specified did not hold',
  SlowDown: 'Please reduce your request rate.',
};

/** S3's message for `code` (any text a backend sent as a code), or undefined when the gateway has none. */
export function s3Message(code: string): string | undefined {
  return Object.hasOwn(S3_MESSAGES, code) ? S3_MESSAGES[code as S3ErrorCode] : undefined;
}

export const accessDenied = (message = 'Access Denied'): S3Error => new S3Error('AccessDenied', message);
export const notImplemented = (what: string): S3Error =>
  new S3Error('NotImplemented', `${what} is not implemented by this gateway`);
/** S3's own 501 for a header (or a value of one) it does not take, naming the header. */
export const unsupportedHeader = (header: string): S3Error =>
  new S3Error('NotImplemented', 'A header you provided implies functionality that is not implemented', { Header: header });
export const invalidRequest = (message: string): S3Error => new S3Error('InvalidRequest', message);

/** S3's words for a request body that stopped arriving: the client is answered and the body abandoned. */
export const REQUEST_TIMEOUT_MESSAGE = 'Your socket connection to the server was not read from or written to within the timeout period.';
export const requestTimeout = (): S3Error => new S3Error('RequestTimeout', REQUEST_TIMEOUT_MESSAGE);

/**
 * A backend answer that is not valid HTTP (a header value with control characters, a folded header line):
 * the backend was reached, so 502, never the 503 that says it is down and invites a retry. RFC 9110 §5.5
 * lets a recipient refuse such a message; node:http refuses it too.
 */
export const invalidBackendResponse = (): S3Error => new S3Error('BadGateway', 'The backend sent an invalid response');
