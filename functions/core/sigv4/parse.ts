import { TOKEN, type ReadonlyHeaders } from '../http';
/**
 * Reads a client's SigV4 claim (who signed, when, for which scope, over which headers) from the
 * `Authorization` header or from presigned query parameters, and rejects malformed ones with S3's codes.
 */
import { S3Error } from '../errors';
import { httpDateToAmzDate, parseAmzDate } from './dates';
import { decodeQueryComponent, splitQuery } from './query';
import { ALGORITHM, SCOPE_TERMINATOR } from './string-to-sign';

/** What a signed request claims, before the signature is checked. */
export interface SignedRequestInfo {
  readonly accessKeyId: string;
  /** `YYYYMMDD`, the credential scope's date. */
  readonly date: string;
  readonly region: string;
  readonly service: string;
  /** `YYYYMMDDTHHMMSSZ`, the request time that was signed. */
  readonly amzDate: string;
  /** Lower-case header names, in the client's order. */
  readonly signedHeaders: readonly string[];
  /** Hex signature as sent. */
  readonly signature: string;
  /** True for query-string authentication. */
  readonly presigned: boolean;
  /** Presigned only: `X-Amz-Expires`. */
  readonly expiresSeconds?: number;
  /** `x-amz-security-token` header or `X-Amz-Security-Token` parameter, when sent. */
  readonly securityToken?: string;
}

/** How a request authenticates. `both` is refused: S3 allows one mechanism per request. */
export type AuthKind = 'header' | 'presigned' | 'anonymous' | 'both';

/** Longest presigned validity S3 accepts: seven days. */
export const MAX_PRESIGNED_EXPIRES_SECONDS = 604800;

/** Presigned parameters, by their exact (case-sensitive) names as S3 reads them. */
const Q = {
  algorithm: 'X-Amz-Algorithm',
  credential: 'X-Amz-Credential',
  date: 'X-Amz-Date',
  expires: 'X-Amz-Expires',
  signedHeaders: 'X-Amz-SignedHeaders',
  signature: 'X-Amz-Signature',
  securityToken: 'X-Amz-Security-Token',
} as const;

const HEADER_COMPONENTS = ['Credential', 'SignedHeaders', 'Signature'] as const;
const REQUIRED_QUERY = [Q.algorithm, Q.credential, Q.signature, Q.date, Q.signedHeaders, Q.expires] as const;
/** SigV2 query authentication (`AWSAccessKeyId`, `Signature`, `Expires`) counts as presigned so it is refused, not ignored. */
const SIGV2_ACCESS_KEY = 'AWSAccessKeyId';
const PRESIGN_MARKERS: ReadonlySet<string> = new Set([Q.algorithm, Q.credential, Q.signature, SIGV2_ACCESS_KEY]);

/** Reports one malformed element, with the code of the mechanism in use. */
type Fail = (problem: string) => S3Error;

const headerMalformed: Fail = (problem) =>
  new S3Error('AuthorizationHeaderMalformed', `The authorization header is malformed; ${problem}`);
const queryMalformed: Fail = (problem) => new S3Error('AuthorizationQueryParametersError', problem);
const credentialMalformed: Fail = (problem) =>
  queryMalformed(`Error parsing the X-Amz-Credential parameter; ${problem}`);

/**
 * Which authentication mechanism a request uses. Presigned means one of `X-Amz-Algorithm`,
 * `X-Amz-Credential` or `X-Amz-Signature` is in the query.
 *
 * @example authKind(new Headers(), 'X-Amz-Algorithm=AWS4-HMAC-SHA256&…') // 'presigned'
 */
export function authKind(headers: ReadonlyHeaders, rawQuery: string): AuthKind {
  const header = headers.has('authorization');
  const presigned = hasPresignMarker(rawQuery);
  if (header && presigned) return 'both';
  return header ? 'header' : presigned ? 'presigned' : 'anonymous';
}

function hasPresignMarker(rawQuery: string): boolean {
  // Fast path: neither the plain name nor a percent-encoded one can be there.
  if (!rawQuery.includes('X-Amz-') && !rawQuery.includes(SIGV2_ACCESS_KEY) && !rawQuery.includes('%')) return false;
  return splitQuery(rawQuery).some(({ rawName }) => PRESIGN_MARKERS.has(decodeQueryComponent(rawName)));
}

/**
 * The signed-request claim of a request, or undefined when it is anonymous.
 *
 * @throws S3Error `InvalidArgument` when both the header and the query authenticate, or the parse errors of
 *   {@link parseAuthorizationHeader} and {@link parsePresignedQuery}.
 */
export function parseSignedRequest(headers: ReadonlyHeaders, rawQuery: string): SignedRequestInfo | undefined {
  switch (authKind(headers, rawQuery)) {
    case 'anonymous':
      return undefined;
    case 'both':
      throw new S3Error(
        'InvalidArgument',
        'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string ' +
          'parameter or the Authorization header should be specified',
      );
    case 'header':
      return parseAuthorizationHeader(headers.get('authorization') ?? '', headers);
    case 'presigned':
      return parsePresignedQuery(rawQuery);
  }
}

/**
 * Parses `AWS4-HMAC-SHA256 Credential=AKID/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date,
 * Signature=…`. The request time comes from `x-amz-date`, else from `Date`.
 *
 * @param value The Authorization header.
 * @param headers All request headers, for the date and the security token.
 * @throws S3Error `InvalidRequest` for another mechanism (SigV2, SigV4a), as S3 answers;
 *   `AuthorizationHeaderMalformed` for a missing or bad component, a scope date other than the request's day,
 *   or `host` not signed; `AccessDenied` without a valid date header.
 */
export function parseAuthorizationHeader(value: string, headers: ReadonlyHeaders): SignedRequestInfo {
  const space = value.indexOf(' ');
  if (space < 0 || value.slice(0, space) !== ALGORITHM) {
    throw new S3Error(
      'InvalidRequest',
      `The authorization mechanism you have provided is not supported. Please use ${ALGORITHM}.`,
    );
  }
  const fields = authorizationFields(value.slice(space + 1));
  const missing = HEADER_COMPONENTS.filter((k) => !fields.has(k));
  if (missing.length > 0) {
    throw headerMalformed(
      'the authorization header requires three components: Credential, SignedHeaders, and Signature ' +
        `(missing ${missing.join(', ')}).`,
    );
  }
  const scope = parseCredential(fields.get('Credential')!, headerMalformed);
  const amzDate = headerAmzDate(headers);
  checkScopeDate(scope.date, amzDate, headerMalformed);
  // One literal with every field, rather than spreads: verification is hot and spreads are slow here.
  return {
    accessKeyId: scope.accessKeyId,
    date: scope.date,
    region: scope.region,
    service: scope.service,
    amzDate,
    signedHeaders: parseSignedHeaders(fields.get('SignedHeaders')!, headerMalformed),
    signature: fields.get('Signature')!,
    presigned: false,
    expiresSeconds: undefined,
    securityToken: headers.get('x-amz-security-token') ?? undefined,
  };
}

/** `Key=Value` components separated by commas, with optional spaces around them. */
function authorizationFields(components: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const component of components.split(',')) {
    const trimmed = component.trim();
    const eq = trimmed.indexOf('=');
    if (eq > 0 && !fields.has(trimmed.slice(0, eq))) fields.set(trimmed.slice(0, eq), trimmed.slice(eq + 1));
  }
  return fields;
}

function headerAmzDate(headers: ReadonlyHeaders): string {
  const amzDate = headers.get('x-amz-date');
  const httpDate = headers.get('date');
  const parsed =
    amzDate !== null
      ? parseAmzDate(amzDate) === undefined ? undefined : amzDate
      : httpDate !== null ? httpDateToAmzDate(httpDate) : undefined;
  if (parsed === undefined) {
    throw new S3Error('AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  }
  return parsed;
}

/**
 * Parses query-string authentication (`X-Amz-Algorithm`, `-Credential`, `-Date`, `-Expires`,
 * `-SignedHeaders`, `-Signature`, optional `-Security-Token`).
 *
 * @param rawQuery The query as sent, without `?`.
 * @throws S3Error `AuthorizationQueryParametersError` for a missing parameter, another algorithm, a bad
 *   credential scope or date, an `X-Amz-Expires` that is not a number of seconds up to 604800, or `host` not
 *   signed.
 */
export function parsePresignedQuery(rawQuery: string): SignedRequestInfo {
  const params = presignParams(rawQuery);
  if (!params.has(Q.algorithm) && params.has(SIGV2_ACCESS_KEY)) {
    throw new S3Error('InvalidRequest', `The authorization mechanism you have provided is not supported. Please use ${ALGORITHM}.`);
  }
  const missing = REQUIRED_QUERY.filter((name) => !params.has(name));
  if (missing.length > 0) {
    throw queryMalformed(
      'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, ' +
        `X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters (missing ${missing.join(', ')}).`,
    );
  }
  if (params.get(Q.algorithm) !== ALGORITHM) throw queryMalformed(`X-Amz-Algorithm only supports "${ALGORITHM}"`);
  const scope = parseCredential(params.get(Q.credential)!, credentialMalformed);
  const amzDate = params.get(Q.date)!;
  if (parseAmzDate(amzDate) === undefined) {
    throw queryMalformed(`X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd'T'HHmmss'Z'"`);
  }
  checkScopeDate(scope.date, amzDate, queryMalformed);
  return {
    accessKeyId: scope.accessKeyId,
    date: scope.date,
    region: scope.region,
    service: scope.service,
    amzDate,
    signedHeaders: parseSignedHeaders(params.get(Q.signedHeaders)!, queryMalformed),
    signature: params.get(Q.signature)!,
    presigned: true,
    expiresSeconds: parseExpires(params.get(Q.expires)!),
    securityToken: params.get(Q.securityToken),
  };
}

/**
 * Refuses a credential scoped to another service (`…/us-east-1/iam/aws4_request` on an S3 request): a signing
 * key derived for one service is not accepted by another. S3 answers 400 with the code of the mechanism in use,
 * `incorrect service "iam". This endpoint belongs to "s3".` (AuthorizationHeaderMalformed for header auth,
 * AuthorizationQueryParametersError on X-Amz-Credential for presigned URLs).
 *
 * @param info From {@link parseSignedRequest}.
 * @param service The service this endpoint is, e.g. `s3`.
 * @throws S3Error `AuthorizationHeaderMalformed` or `AuthorizationQueryParametersError`.
 * @example checkService(parseSignedRequest(headers, rawQuery)!, 's3')
 */
export function checkService(info: SignedRequestInfo, service: string): void {
  if (info.service === service) return;
  const fail = info.presigned ? credentialMalformed : headerMalformed;
  throw fail(`incorrect service "${info.service}". This endpoint belongs to "${service}".`);
}

/** The decoded X-Amz-* parameters; the first occurrence of a name wins. */
function presignParams(rawQuery: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const { rawName, rawValue } of splitQuery(rawQuery)) {
    const name = decodeQueryComponent(rawName);
    if ((name.startsWith('X-Amz-') || name === SIGV2_ACCESS_KEY) && !params.has(name)) params.set(name, decodeQueryComponent(rawValue));
  }
  return params;
}

function parseExpires(value: string): number {
  if (/^-\d+$/.test(value)) throw queryMalformed('X-Amz-Expires must be non-negative');
  if (!/^\d+$/.test(value)) throw queryMalformed('X-Amz-Expires should be a number');
  const seconds = Number(value);
  if (seconds > MAX_PRESIGNED_EXPIRES_SECONDS) {
    throw queryMalformed(
      'X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires must be less than ' +
        `${MAX_PRESIGNED_EXPIRES_SECONDS} seconds`,
    );
  }
  return seconds;
}

type Scope = Pick<SignedRequestInfo, 'accessKeyId' | 'date' | 'region' | 'service'>;

/** `AKID/YYYYMMDD/region/service/aws4_request`. */
function parseCredential(credential: string, fail: Fail): Scope {
  const parts = credential.split('/');
  if (parts.length !== 5 || parts.some((part) => part === '')) {
    throw fail(`the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/${SCOPE_TERMINATOR}".`);
  }
  const [accessKeyId, date, region, service, terminator] = parts as [string, string, string, string, string];
  if (terminator !== SCOPE_TERMINATOR) {
    throw fail(`incorrect terminal "${terminator}". This endpoint uses "${SCOPE_TERMINATOR}".`);
  }
  if (!/^\d{8}$/.test(date)) {
    throw fail(`incorrect date format "${date}". This date in the credential must be in the format "yyyyMMdd".`);
  }
  return { accessKeyId, date, region, service };
}

/** A scope is valid for one day only: the day of the signed request time. */
function checkScopeDate(scopeDate: string, amzDate: string, fail: Fail): void {
  if (!amzDate.startsWith(scopeDate)) {
    const day = amzDate.slice(0, 8);
    throw fail(`Invalid credential date "${scopeDate}". This date is not the same as X-Amz-Date: "${day}".`);
  }
}

/** `host;x-amz-date`: non-empty header names, `host` among them (S3 requires the host to be signed). */
function parseSignedHeaders(value: string, fail: Fail): string[] {
  const names = value.split(';');
  if (names.some((name) => name === '')) throw fail(`the SignedHeaders list "${value}" has an empty header name.`);
  // fetch's Headers throws on a name that is no token; the request is what is malformed.
  if (!names.every((name) => TOKEN.test(name))) throw fail(`the SignedHeaders list "${value}" holds a name that is no header name.`);
  if (!names.includes('host')) throw fail('the host header must be signed (SignedHeaders must include host).');
  return names;
}
