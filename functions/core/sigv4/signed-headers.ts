import type { ReadonlyHeaders } from '../http';
/**
 * Which request headers a signature must cover. S3 refuses a signed request, header-signed or presigned alike,
 * that carries an `x-amz-*` header its signature does not list: 403 AccessDenied, "There were headers present
 * in the request which were not signed", with a `<HeadersNotSigned>` element naming them (seen on S3 for
 * `x-amz-meta-*`, `x-amz-acl`, `x-amz-security-token` and the SSE-C headers on presigned requests). Without
 * this rule, whoever holds a presigned URL or a captured request could add headers that change what it does
 * (`x-amz-copy-source` turns a PUT into a copy) and have the gateway sign them to the backend with its own key.
 */

/** The prefix of the headers that must be signed when present. */
const AMZ_PREFIX = 'x-amz-';

/**
 * Headers outside `x-amz-*` that must be signed when present: S3 refuses a presigned PUT whose `Content-MD5` its
 * signature does not cover (HeadersNotSigned: content-md5). Other standard headers (`Content-Type`, `Range`,
 * `If-*`, `Content-Disposition`…) may be sent unsigned, as on S3.
 */
const ALSO_SIGNED: ReadonlySet<string> = new Set(['content-md5']);

/** Whose value is the canonical request's payload line when the client sent it. */
const PAYLOAD_HASH_HEADER = 'x-amz-content-sha256';

/**
 * The headers of a request that must be signed and are not, lower-case, in the order the request holds them.
 *
 * @param headers The request headers.
 * @param signedHeaders The lower-case names the signature lists (`SignedHeaders` / `X-Amz-SignedHeaders`).
 * @param payloadHashIsSigned True when the request's `x-amz-content-sha256` value is the canonical request's
 *   payload line: the signature then covers that value whether or not the header is listed, so S3 does not ask
 *   for it (an unsigned `UNSIGNED-PAYLOAD` on a presigned GET is served; any other value fails the signature).
 * @example unsignedHeaders(new Headers({ host: 'h', 'x-amz-acl': 'public-read' }), ['host'], false) // ['x-amz-acl']
 */
export function unsignedHeaders(headers: ReadonlyHeaders, signedHeaders: readonly string[], payloadHashIsSigned: boolean): string[] {
  const unsigned: string[] = [];
  headers.forEach((_, name) => {
    const lower = name.toLowerCase();
    if (!lower.startsWith(AMZ_PREFIX) && !ALSO_SIGNED.has(lower)) return;
    if (lower === PAYLOAD_HASH_HEADER && payloadHashIsSigned) return;
    if (!signedHeaders.includes(lower)) unsigned.push(lower);
  });
  return unsigned;
}
