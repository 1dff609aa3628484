/**
 * Which client request headers each write (and GetObjectAttributes' HEAD) passes to the backend. Everything passed on is signed on the
 * header-signed backend request, so `x-amz-*` object headers survive (the spec's presigned PUT could not
 * carry them: rule 2). Names are lower-case; nothing else reaches the backend.
 */
import { S3Error } from '../errors';
import type { HeaderMap, ReadonlyHeaders } from '../http';
import { withoutAwsChunked } from '../payload/upload';
import { bareTags } from '../preconditions';

/** The spec's PutObject list, without content-length (the upload decides it). */
const CONTENT = ['content-type', 'content-disposition', 'content-encoding', 'content-language', 'cache-control', 'expires'];
const CONDITIONAL = ['if-match', 'if-none-match'];
/**
 * `x-amz-*` headers S3 stores with the object. The ACL, grants, tags and object lock headers each need their
 * own action beside the write's, which the operation table asks for (auth/authorize.ts `EXTRAS`) before any of
 * them gets here.
 */
const OBJECT = ['x-amz-tagging', 'x-amz-storage-class', 'x-amz-website-redirect-location', 'x-amz-acl'];
const OBJECT_PREFIXES = ['x-amz-meta-', 'x-amz-server-side-encryption', 'x-amz-object-lock-', 'x-amz-grant-'];
/** Lets a delete remove a version under GOVERNANCE retention (with `bypass_governance_retention`). */
export const BYPASS_GOVERNANCE = 'x-amz-bypass-governance-retention';
const CHECKSUM_PREFIX = 'x-amz-checksum-';
/** SSE-C: the key must accompany every write of the object's data. */
const SSE_CUSTOMER_PREFIX = 'x-amz-server-side-encryption-customer-';
/** CopyObject's own headers (spec: forwarded and signed). */
const COPY = ['x-amz-metadata-directive', 'x-amz-tagging-directive'];
const COPY_PREFIXES = ['x-amz-copy-source-if-', 'x-amz-copy-source-server-side-encryption-customer-'];

function select(headers: ReadonlyHeaders, keep: (name: string) => boolean): HeaderMap {
  const out: HeaderMap = {};
  headers.forEach((value, name) => {
    if (!keep(name)) return;
    if (name === 'if-match') {
      out[name] = bareTags(value);
      return;
    }
    if (name === 'content-encoding') {
      // aws-chunked describes the client's framing, which the gateway removes.
      const rest = withoutAwsChunked(value);
      if (rest !== undefined) out[name] = rest;
      return;
    }
    out[name] = value;
  });
  return out;
}

const isObjectHeader = (name: string): boolean =>
  CONTENT.includes(name) || OBJECT.includes(name) || OBJECT_PREFIXES.some((p) => name.startsWith(p));

/** PutObject: content, object and conditional headers, Content-MD5 and `x-amz-checksum-*`. */
export function putHeaders(headers: ReadonlyHeaders): HeaderMap {
  return select(
    headers,
    (n) => isObjectHeader(n) || CONDITIONAL.includes(n) || n === 'content-md5' || n.startsWith(CHECKSUM_PREFIX),
  );
}

/**
 * CreateMultipartUpload: content and object headers. `x-amz-checksum-algorithm` is not passed on: parts may
 * arrive aws-chunked with a trailing checksum, which the gateway verifies and the backend never sees, so
 * the backend must not expect part checksums.
 */
export function createMultipartHeaders(headers: ReadonlyHeaders): HeaderMap {
  return select(headers, isObjectHeader);
}

/** DeleteObject: If-Match and the governance bypass. */
export function deleteHeaders(headers: ReadonlyHeaders): HeaderMap {
  return select(headers, (n) => n === 'if-match' || n === BYPASS_GOVERNANCE);
}

/** UploadPart: Content-MD5 and SSE-C (part checksums are verified by the gateway, see createMultipartHeaders). */
export function uploadPartHeaders(headers: ReadonlyHeaders): HeaderMap {
  return select(headers, (n) => n === 'content-md5' || n.startsWith(SSE_CUSTOMER_PREFIX));
}

/** GetObjectAttributes' HEAD: the SSE-C key alone, which S3 needs to tell anything of an object encrypted with it. */
export function sseCustomerHeaders(headers: ReadonlyHeaders): HeaderMap {
  return select(headers, (n) => n.startsWith(SSE_CUSTOMER_PREFIX));
}

/** CompleteMultipartUpload: the preconditions (spec rule 3) and SSE-C. */
export function completeHeaders(headers: ReadonlyHeaders): HeaderMap {
  return select(headers, (n) => CONDITIONAL.includes(n) || n.startsWith(SSE_CUSTOMER_PREFIX));
}

/** PutObjectTagging: the body's digests (its checksums are verified by the gateway on the way, too). */
export function taggingHeaders(headers: ReadonlyHeaders): HeaderMap {
  return select(headers, (n) => n === 'content-md5' || n === 'content-type' || n.startsWith(CHECKSUM_PREFIX));
}

/**
 * UploadPartCopy: the source range and preconditions, and SSE-C for the source and the part (the copy
 * source itself is the gateway's, rewritten into the backend's bucket and key space).
 */
export function uploadPartCopyHeaders(headers: ReadonlyHeaders): HeaderMap {
  return select(headers, (n) => n === 'x-amz-copy-source-range' || n.startsWith(SSE_CUSTOMER_PREFIX) || COPY_PREFIXES.some((p) => n.startsWith(p)));
}

/**
 * CopyObject: the spec's list (directives, tagging, ACL, storage class, redirect, metadata, SSE, the
 * copy-source preconditions) plus the content headers a `REPLACE` directive sets.
 */
export function copyHeaders(headers: ReadonlyHeaders): HeaderMap {
  return select(headers, (n) => isObjectHeader(n) || COPY.includes(n) || COPY_PREFIXES.some((p) => n.startsWith(p)));
}

const META_PREFIX = 'x-amz-meta-';
/** S3's limit on an object's user metadata (Azure and GCS take four times as much, RGW more). */
export const MAX_METADATA_BYTES = 2048;

/**
 * S3's limit on the user metadata a write carries (`headers` as selected for the backend): the bytes of
 * every name after `x-amz-meta-` and of its value, summed, at most 2 KiB.
 *
 * @throws S3Error MetadataTooLarge
 */
export function checkMetadataSize(headers: HeaderMap): void {
  let size = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(META_PREFIX)) size += name.length - META_PREFIX.length + byteLength(value);
  }
  if (size > MAX_METADATA_BYTES) {
    throw new S3Error('MetadataTooLarge', 'Your metadata headers exceed the maximum allowed metadata size', {
      Size: String(size),
      MaxSizeAllowed: String(MAX_METADATA_BYTES),
    });
  }
}

/** A header value's bytes: one per character of a byte string, as received; UTF-8 for text beyond U+00FF. */
function byteLength(value: string): number {
  return /[^\x00-\xff]/.test(value) ? new TextEncoder().encode(value).length : value.length;
}
