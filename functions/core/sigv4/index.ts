/** SigV4 for S3: verifying client requests and signing backend requests, on Web Crypto only. */
export {
  EMPTY_SHA256,
  MissingSignedHeaderError,
  UNSIGNED_PAYLOAD,
  canonicalHeaderValue,
  canonicalHeaders,
  canonicalQuery,
  canonicalRequest,
  canonicalRequestHash,
} from './canonical';
export type { CanonicalRequestParts } from './canonical';
export { formatAmzDate, httpDateToAmzDate, parseAmzDate } from './dates';
export {
  MAX_PRESIGNED_EXPIRES_SECONDS,
  authKind,
  checkService,
  parseAuthorizationHeader,
  parsePresignedQuery,
  parseSignedRequest,
} from './parse';
export type { AuthKind, SignedRequestInfo } from './parse';
export { NO_PLATFORM_HEADERS, normalizedTo, signedHeaderVariants } from './platform-headers';
export type { HeaderRewrite, PlatformHeaders } from './platform-headers';
export { presignUrl, signRequest } from './sign';
export type { Credentials, PresignUrlInput, SignRequestInput } from './sign';
export { unsignedHeaders } from './signed-headers';
export { signingKey } from './signing-key';
export { ALGORITHM, SCOPE_TERMINATOR, credentialScope, stringToSign } from './string-to-sign';
export { MAX_CLOCK_SKEW_MS, verifySignature } from './verify';
export type { SignableRequest, VerifiedSignature, VerifyOptions } from './verify';
