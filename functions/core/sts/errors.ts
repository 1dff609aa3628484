/**
 * The STS error type. STS speaks AWS's query protocol, so its errors are `ErrorResponse` documents with
 * their own codes (decisions.md, STS); S3 requests keep `S3Error`. Like S3Error, one class carries a stable
 * code and the status that code implies, typed over a const table.
 */
export const STS_ERROR_STATUS = {
  /** A required parameter is missing, or a value is out of range (DurationSeconds below 900). */
  ValidationError: 400,
  /** An Action this gateway does not serve, or none at all. */
  InvalidAction: 400,
  /** Unknown role; audience or subject refused by the role's trust policy. */
  AccessDenied: 403,
  /** A token that is malformed, from an untrusted issuer, or whose signature or claims do not verify. */
  InvalidIdentityToken: 400,
  /** The web identity token's `exp` has passed (beyond the clock skew). */
  ExpiredTokenException: 400,
  /** The issuer's discovery document or JWKS could not be fetched. */
  IDPCommunicationError: 400,
  /** GetCallerIdentity: unsigned. */
  MissingAuthenticationToken: 403,
  /** GetCallerIdentity: no session token, one that does not unseal, or one of another access key. */
  InvalidClientTokenId: 403,
  /** GetCallerIdentity: the sealed credentials have expired. */
  ExpiredToken: 403,
  /** GetCallerIdentity: the signature does not verify (or is too old, or scoped to another service). */
  SignatureDoesNotMatch: 403,
  /** GetCallerIdentity: a malformed Authorization header or query authentication, or `x-amz-*` headers it does not sign. */
  IncompleteSignature: 403,
  /** The form body stopped arriving for the idle timeout (S3's code and words, in the STS shape). */
  RequestTimeout: 400,
  /** Something the gateway got wrong; details stay in the log. */
  InternalFailure: 500,
} as const;

export type StsErrorCode = keyof typeof STS_ERROR_STATUS;

export class StsError extends Error {
  readonly status: number;

  constructor(
    readonly code: StsErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'StsError';
    this.status = STS_ERROR_STATUS[code];
  }
}

/** Longest piece of caller input echoed in a message: enough to recognise it, never a reflected payload. */
const MAX_ECHO = 200;

/**
 * Quotes caller-supplied text for a message (arrays as a list of quoted items), shortened; XML escaping
 * happens when the error is rendered.
 *
 * @example quote(['a', 'b']) // '["a", "b"]'
 */
export function quote(value: unknown): string {
  if (Array.isArray(value)) return `[${value.slice(0, 10).map(quote).join(', ')}${value.length > 10 ? ', …' : ''}]`;
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return JSON.stringify(text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text);
}
