import type { ReadonlyHeaders } from '../http';
import type { Query } from '../query';

/**
 * Which requests are STS calls, and where their parameters come from. STS shares paths with S3: `/` is also
 * ListBuckets, and `/sts/` (what configure-aws-credentials POSTs to for an `sts-endpoint` ending in `/sts`) is
 * also the bucket-level path of a virtual bucket named `sts`. So a request on a shared path is STS only when
 * it says so: an STS `Action` in the query, or a small form-encoded POST with no query at all (S3 has no
 * form-encoded bucket or service POST). `/.sts` and `/.sts/` can never be S3 (a bucket name cannot start with
 * a dot), so every GET there and every small form POST there is STS.
 */

/** Every action of AWS STS; the gateway serves two, the others are named in an InvalidAction error. */
export const STS_ACTIONS: ReadonlySet<string> = new Set([
  'AssumeRole',
  'AssumeRoleWithSAML',
  'AssumeRoleWithWebIdentity',
  'AssumeRoot',
  'DecodeAuthorizationMessage',
  'GetAccessKeyInfo',
  'GetCallerIdentity',
  'GetDelegatedAccessToken',
  'GetFederationToken',
  'GetSessionToken',
  'GetWebIdentityToken',
]);

/** Largest form body collected (spec, Limits): a declared Content-Length of at most 64 KiB. */
export const STS_FORM_MAX_BYTES = 64 * 1024;

const DEDICATED_PATHS: ReadonlySet<string> = new Set(['/.sts', '/.sts/']);
const SHARED_PATHS: ReadonlySet<string> = new Set(['/', '/sts', '/sts/']);

/** Parameters by name; the first occurrence wins, as in the S3 query. */
export type StsParams = ReadonlyMap<string, string>;

export type StsMatch =
  /** Parameters in the query string. `bodyBytes` > 0: a small body to collect for the signature's payload hash. */
  | { readonly source: 'query'; readonly params: StsParams; readonly bodyBytes: number }
  /** Parameters in a form body of at most STS_FORM_MAX_BYTES, still to be collected. */
  | { readonly source: 'form'; readonly dedicated: boolean };

export interface StsRequestLine {
  readonly method: string;
  readonly rawPath: string;
  readonly headers: ReadonlyHeaders;
}

/**
 * Whether a request is an STS call, or undefined to route it as S3.
 *
 * @example matchSts({ method: 'POST', rawPath: '/sts/', headers }, new Query('')) // { source: 'form', dedicated: false } for a small form body
 */
export function matchSts(request: StsRequestLine, query: Query): StsMatch | undefined {
  const { method, rawPath, headers } = request;
  if (method !== 'GET' && method !== 'POST') return undefined;
  const dedicated = DEDICATED_PATHS.has(rawPath);
  if (!dedicated && !SHARED_PATHS.has(rawPath)) return undefined;
  const length = declaredLength(headers);
  const action = query.get('Action');
  if (action !== undefined && (dedicated || STS_ACTIONS.has(action))) {
    const small = method === 'POST' && length !== undefined && length > 0 && length <= STS_FORM_MAX_BYTES;
    return { source: 'query', params: queryParams(query), bodyBytes: small ? length : 0 };
  }
  if (method === 'POST' && isForm(headers) && length !== undefined && length <= STS_FORM_MAX_BYTES && (dedicated || query.raw === '')) {
    return { source: 'form', dedicated };
  }
  // A GET on the dedicated path without an Action is still an STS call, answered with InvalidAction.
  if (dedicated && method === 'GET') return { source: 'query', params: queryParams(query), bodyBytes: 0 };
  return undefined;
}

/** Parses an `application/x-www-form-urlencoded` body (`+` is a space there, unlike in S3 queries). */
export function formParams(body: Uint8Array): StsParams {
  const params = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(new TextDecoder().decode(body))) {
    if (!params.has(name)) params.set(name, value);
  }
  return params;
}

function queryParams(query: Query): StsParams {
  const params = new Map<string, string>();
  for (const name of query.names()) params.set(name, query.get(name) ?? '');
  return params;
}

/** Content-Length when declared as a plain number; bodies without one (chunked) are never collected. */
function declaredLength(headers: ReadonlyHeaders): number | undefined {
  const value = headers.get('content-length');
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  if (headers.has('transfer-encoding')) return undefined;
  return Number(value.trim());
}

function isForm(headers: ReadonlyHeaders): boolean {
  const type = headers.get('content-type') ?? '';
  return type.split(';')[0].trim().toLowerCase() === 'application/x-www-form-urlencoded';
}
