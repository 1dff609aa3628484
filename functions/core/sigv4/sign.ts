/**
 * SigV4 for the gateway's own requests to S3-compatible backends: an Authorization header, or a presigned
 * URL. The URL's path is signed exactly as given, since the key encoder already produced its final form.
 */
import { UNSIGNED_PAYLOAD, canonicalHeaders, canonicalQuery, canonicalRequest, canonicalRequestHash } from './canonical';
import { formatAmzDate } from './dates';
import { hmac, toHex, uriEncode } from '../bytes';
import { MAX_PRESIGNED_EXPIRES_SECONDS } from './parse';
import { signingKey } from './signing-key';
import { ALGORITHM, credentialScope, stringToSign } from './string-to-sign';

export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Temporary credentials only; sent as `x-amz-security-token` (header) or `X-Amz-Security-Token` (query). */
  readonly sessionToken?: string;
}

/** Who signs, and for which region and service. */
interface SigningScope {
  readonly credentials: Credentials;
  readonly region: string;
  readonly service: string;
}

export interface SignRequestInput {
  readonly method: string;
  /** Absolute URL whose path and query are already percent-encoded. */
  readonly url: string;
  /** Headers to send; all of them are signed. Names in any case. */
  readonly headers: Readonly<Record<string, string>>;
  /** Hex SHA-256 of the body, `UNSIGNED-PAYLOAD` or a `STREAMING-…` literal; sent as `x-amz-content-sha256`. */
  readonly payloadHash: string;
  readonly credentials: Credentials;
  readonly region: string;
  readonly service: string;
  /** Signing time in milliseconds. */
  readonly now: number;
}

export interface PresignUrlInput {
  readonly method: string;
  /** Absolute URL whose path and query are already percent-encoded; its query parameters are signed too. */
  readonly url: string;
  readonly credentials: Credentials;
  readonly region: string;
  readonly service: string;
  readonly now: number;
  /** Validity, 1 to 604800 seconds. */
  readonly expiresSeconds: number;
  /** Headers the URL's user must then send with exactly these values (e.g. `content-type`); host is always signed. */
  readonly signedHeaders?: Readonly<Record<string, string>>;
}

/** A URL split by hand: `new URL()` would resolve `..` and `%2e%2e`, and the signature must cover them as written. */
interface UrlParts {
  readonly origin: string;
  readonly host: string;
  readonly path: string;
  readonly query: string;
}

const URL_PARTS = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?$/;

function splitUrl(url: string): UrlParts {
  const m = URL_PARTS.exec(url);
  if (m === null || m[2] === '') throw new TypeError(`Not an absolute URL: ${url}`);
  const scheme = m[1]!.toLowerCase();
  const authority = m[2]!;
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  // A client (fetch, http.request) omits the default port from the Host header, so the signature must too.
  const defaultPort = scheme === 'https' ? '443' : scheme === 'http' ? '80' : undefined;
  const host =
    defaultPort !== undefined && hostPort.endsWith(`:${defaultPort}`)
      ? hostPort.slice(0, -defaultPort.length - 1)
      : hostPort;
  return { origin: `${scheme}://${authority}`, host, path: m[3] || '/', query: m[4] ?? '' };
}

/** Header names lower-cased; a name given twice in different cases is the caller's mistake. */
function lowerCaseHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (Object.hasOwn(out, lower)) throw new TypeError(`Header "${lower}" is given twice`);
    out[lower] = value;
  }
  return out;
}

/** The hex signature of a canonical request; the signing key comes from the shared cache. */
async function signCanonical(input: SigningScope, amzDate: string, canonical: string): Promise<string> {
  const date = amzDate.slice(0, 8);
  const key = signingKey(input.credentials.secretAccessKey, date, input.region, input.service);
  const toSign = stringToSign(amzDate, credentialScope(date, input.region, input.service), canonicalRequestHash(canonical));
  return toHex(hmac(key, toSign));
}

/**
 * Signs a backend request with an Authorization header.
 *
 * @returns The headers to send, names lower-cased: the given ones plus `host`, `x-amz-date`,
 *   `x-amz-content-sha256`, `x-amz-security-token` (with a session token) and `authorization`.
 * @example
 * const headers = await signRequest({ method: 'GET', url: 'https://s3.example.com/b/a%20b', headers: {},
 *   payloadHash: 'UNSIGNED-PAYLOAD', credentials, region: 'us-east-1', service: 's3', now: Date.now() });
 */
export async function signRequest(input: SignRequestInput): Promise<Record<string, string>> {
  const url = splitUrl(input.url);
  const amzDate = formatAmzDate(input.now);
  const headers = lowerCaseHeaders(input.headers);
  delete headers['authorization'];
  headers['host'] ??= url.host;
  headers['x-amz-date'] = amzDate;
  headers['x-amz-content-sha256'] = input.payloadHash;
  if (input.credentials.sessionToken !== undefined) headers['x-amz-security-token'] = input.credentials.sessionToken;

  const signed = Object.keys(headers).sort();
  const canonical = canonicalRequest({
    method: input.method,
    rawPath: url.path,
    canonicalQuery: canonicalQuery(url.query),
    canonicalHeaders: canonicalHeaders(headers, signed),
    signedHeaders: signed,
    payloadHash: input.payloadHash,
  });
  const sig = await signCanonical(input, amzDate, canonical);
  const scope = credentialScope(amzDate.slice(0, 8), input.region, input.service);
  headers['authorization'] =
    `${ALGORITHM} Credential=${input.credentials.accessKeyId}/${scope}, ` +
    `SignedHeaders=${signed.join(';')}, Signature=${sig}`;
  return headers;
}

/**
 * A presigned URL: the given URL with `X-Amz-*` parameters appended and signed over an unsigned payload.
 *
 * @throws TypeError when `expiresSeconds` is outside 1..604800 or the URL is not absolute.
 * @example
 * const url = await presignUrl({ method: 'GET', url: 'https://s3.example.com/b/k', credentials,
 *   region: 'us-east-1', service: 's3', now: Date.now(), expiresSeconds: 900 });
 */
export async function presignUrl(input: PresignUrlInput): Promise<string> {
  const { expiresSeconds } = input;
  if (!Number.isInteger(expiresSeconds) || expiresSeconds < 1 || expiresSeconds > MAX_PRESIGNED_EXPIRES_SECONDS) {
    throw new TypeError(`expiresSeconds must be an integer from 1 to ${MAX_PRESIGNED_EXPIRES_SECONDS}`);
  }
  const url = splitUrl(input.url);
  const amzDate = formatAmzDate(input.now);
  const headers = lowerCaseHeaders(input.signedHeaders ?? {});
  headers['host'] ??= url.host;
  const signed = Object.keys(headers).sort();
  const scope = credentialScope(amzDate.slice(0, 8), input.region, input.service);

  const authParams: Array<[string, string]> = [
    ['X-Amz-Algorithm', ALGORITHM],
    ['X-Amz-Credential', `${input.credentials.accessKeyId}/${scope}`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(expiresSeconds)],
    ['X-Amz-SignedHeaders', signed.join(';')],
  ];
  if (input.credentials.sessionToken !== undefined) {
    authParams.push(['X-Amz-Security-Token', input.credentials.sessionToken]);
  }
  const encoded = authParams.map(([name, value]) => `${name}=${uriEncode(value, true)}`).join('&');
  const query = url.query === '' ? encoded : `${url.query}&${encoded}`;

  const canonical = canonicalRequest({
    method: input.method,
    rawPath: url.path,
    canonicalQuery: canonicalQuery(query),
    canonicalHeaders: canonicalHeaders(headers, signed),
    signedHeaders: signed,
    payloadHash: UNSIGNED_PAYLOAD,
  });
  const sig = await signCanonical(input, amzDate, canonical);
  return `${url.origin}${url.path}?${query}&X-Amz-Signature=${sig}`;
}
