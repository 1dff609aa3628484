import type { ReadonlyHeaders } from '../http';
/**
 * The canonical request of SigV4 (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html),
 * built from what the client sent, the way S3 builds it.
 */
import { sha256HexSync, uriEncode, wireBytes } from '../bytes';
import { decodeQueryComponent, splitQuery } from './query';

/** Payload hash of a request whose body is not signed (presigned URLs, some header-signed requests). */
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

/** Hex SHA-256 of the empty string: the payload hash of a request without a body. */
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** Inputs of the canonical request, each already in canonical form. */
export interface CanonicalRequestParts {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The path exactly as sent: S3 neither normalizes nor re-encodes it (unlike other services). */
  readonly rawPath: string;
  /** From {@link canonicalQuery}. */
  readonly canonicalQuery: string;
  /** From {@link canonicalHeaders}: one `name:value\n` line per signed header. */
  readonly canonicalHeaders: string;
  /** Lower-case header names in the order the client listed them. */
  readonly signedHeaders: readonly string[];
  /** Hex SHA-256 of the body, or a literal such as `UNSIGNED-PAYLOAD`. */
  readonly payloadHash: string;
}

/** Strings built only of unreserved characters are already canonical: skip the decode and re-encode. */
const ALREADY_CANONICAL = /^[A-Za-z0-9\-._~]*$/;

function canonicalComponent(raw: string): string {
  return ALREADY_CANONICAL.test(raw) ? raw : uriEncode(decodeQueryComponent(raw), true);
}

/**
 * The canonical query string: every parameter decoded and RFC 3986 re-encoded (so `%7e`, `~` and `%7E` sign
 * alike, and `/` becomes `%2F`), sorted by name then value, a flag such as `uploads` written `uploads=`.
 *
 * @param rawQuery The query as sent, without `?`.
 * @param omit A decoded parameter name left out (`X-Amz-Signature` when verifying a presigned URL).
 * @example canonicalQuery('uploads&prefix=a/b', undefined) // 'prefix=a%2Fb&uploads='
 */
export function canonicalQuery(rawQuery: string, omit?: string): string {
  if (rawQuery === '') return '';
  const params: Array<readonly [string, string]> = [];
  for (const { rawName, rawValue } of splitQuery(rawQuery)) {
    const name = canonicalComponent(rawName);
    // `omit` is decoded; its canonical form is itself for every X-Amz-* name.
    if (name === omit) continue;
    params.push([name, canonicalComponent(rawValue)]);
  }
  if (params.length > 1) params.sort(byNameThenValue);
  let out = '';
  for (let i = 0; i < params.length; i++) {
    const [name, value] = params[i]!;
    out += i === 0 ? `${name}=${value}` : `&${name}=${value}`;
  }
  return out;
}

/** Code-unit order; the strings are ASCII after encoding, so this is the byte order SigV4 asks for. */
function byNameThenValue(a: readonly [string, string], b: readonly [string, string]): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return 0;
}

/** Runs of spaces and tabs, or any line break (obsolete folding), which SigV4 collapses into one space. */
const NEEDS_COLLAPSE = /[ \t]{2}|[\t\r\n]|^ | $/;
const WHITESPACE_RUN = /[ \t\r\n]+/g;

/** Trims the value and collapses inner runs of whitespace to one space, as SigV4 requires. */
export function canonicalHeaderValue(value: string): string {
  if (!NEEDS_COLLAPSE.test(value)) return value;
  return value.replace(WHITESPACE_RUN, ' ').replace(/^ | $/g, '');
}

/** Thrown by {@link canonicalHeaders} when a header the client signed is not in the request. */
export class MissingSignedHeaderError extends Error {
  constructor(readonly header: string) {
    super(`Signed header "${header}" is not present in the request`);
    this.name = 'MissingSignedHeaderError';
  }
}

/**
 * The canonical headers block: `name:value\n` per signed header, in the given order. A repeated header is
 * expected as one value already joined with `,` (the adapter's contract, see `ProxyRequest.headers`).
 *
 * @param headers The request headers, or a record whose keys are lower-case.
 * @param signedHeaders Lower-case names.
 * @throws MissingSignedHeaderError when a signed header is absent.
 * @example canonicalHeaders(new Headers({ Host: 'h', 'X-A': ' a  b ' }), ['host', 'x-a']) // 'host:h\nx-a:a b\n'
 */
export function canonicalHeaders(
  headers: ReadonlyHeaders | Readonly<Record<string, string>>,
  signedHeaders: readonly string[],
): string {
  const get = isHeaders(headers)
    ? (name: string) => headers.get(name)
    : (name: string) => (Object.hasOwn(headers, name) ? headers[name] : undefined);
  let out = '';
  for (const name of signedHeaders) {
    const value = get(name);
    if (value === null || value === undefined) throw new MissingSignedHeaderError(name);
    out += `${name}:${canonicalHeaderValue(value)}\n`;
  }
  return out;
}

/**
 * The canonical request: method, path, query, headers, signed header list and payload hash, one per line.
 *
 * @example canonicalRequest({ method: 'GET', rawPath: '/b/k', canonicalQuery: '', canonicalHeaders: 'host:h\n',
 *   signedHeaders: ['host'], payloadHash: 'UNSIGNED-PAYLOAD' })
 */
export function canonicalRequest(parts: CanonicalRequestParts): string {
  return (
    `${parts.method}\n${parts.rawPath}\n${parts.canonicalQuery}\n${parts.canonicalHeaders}\n` +
    `${parts.signedHeaders.join(';')}\n${parts.payloadHash}`
  );
}

/**
 * The hex SHA-256 of a canonical request, over the bytes its parts stand for ({@link wireBytes}): a header
 * value that arrived as the one byte 0xE9 is hashed as 0xE9, as its sender signed it and as S3 verifies it,
 * and the gateway's own requests are hashed over the bytes its runtime will send. Hashing the UTF-8 of such
 * a value instead would sign bytes that are not on the wire.
 *
 * @example canonicalRequestHash('GET\n/\n\nhost:h\n\nhost\nUNSIGNED-PAYLOAD')
 */
export function canonicalRequestHash(canonical: string): string {
  return sha256HexSync(wireBytes(canonical));
}

/** A header map holds only strings, so a `get` method tells a Headers view from it. */
function isHeaders(headers: ReadonlyHeaders | Readonly<Record<string, string>>): headers is ReadonlyHeaders {
  return typeof headers.get === 'function';
}
