/**
 * Preconditions evaluated as S3 evaluates them, for stores that read them otherwise.
 *
 * Reads: Azure compares times to the millisecond where S3 compares the seconds of Last-Modified, refuses `*`
 * and lists, and answers an If-Modified-Since that is no date with 304; the GCS emulator ignores them all.
 * RFC 9110 §13.2.2's order: If-Match (412), else If-Unmodified-Since (412); then If-None-Match (304), else
 * If-Modified-Since (304). If-Match compares strongly (a weak tag never matches), If-None-Match weakly;
 * either takes `*` and lists. A tag matches quoted or bare, as on S3 (AWS's Java SDK v1 sends it bare). A
 * date that is not one is ignored.
 *
 * Writes (PutObject, CompleteMultipartUpload): S3 takes If-None-Match only as `*` and never beside If-Match
 * (`checkWritePreconditions`), and answers If-Match on a key that holds no object with 404 NoSuchKey
 * (`checkWriteIfMatch`), where Azure answers 412 and Azurite writes on `*`.
 */
import { S3Error, unsupportedHeader } from './errors';
import type { HeaderMap, ProxyResponse, ReadonlyHeaders } from './http';
import { emptyResponse, errorResponse } from './responses';

/** 304 or 412 when the preconditions in `headers` fail for an object of `etag` last modified at `lastModified`. */
export function evaluatePreconditions(headers: HeaderMap, etag: string, lastModified: string | undefined): 304 | 412 | undefined {
  const ifMatch = headers['if-match'];
  const ifNoneMatch = headers['if-none-match'];
  const unmodifiedSince = seconds(headers['if-unmodified-since']);
  const modifiedSince = seconds(headers['if-modified-since']);
  // Every read of an Azure blob comes here: most carry no precondition, so no date is parsed for them.
  if (ifMatch === undefined && ifNoneMatch === undefined && unmodifiedSince === undefined && modifiedSince === undefined) return undefined;
  const modified = seconds(lastModified);
  if (ifMatch !== undefined) {
    if (!tags(ifMatch).some((tag) => tag === '*' || strongMatch(tag, etag))) return 412;
  } else if (unmodifiedSince !== undefined && modified !== undefined && modified > unmodifiedSince) {
    return 412;
  }
  if (ifNoneMatch !== undefined) {
    if (tags(ifNoneMatch).some((tag) => tag === '*' || unquoted(opaque(tag)) === unquoted(opaque(etag)))) return 304;
  } else if (modifiedSince !== undefined && modified !== undefined && modified <= modifiedSince) {
    return 304;
  }
  return undefined;
}

/** S3's answer for a failed precondition of a read (`method`): 304 with the object's validators, or 412. */
export function preconditionResponse(result: 304 | 412, method: string, requestId: string, resource: string, validators: HeaderMap): ProxyResponse {
  if (result === 304) return emptyResponse(304, requestId, validators);
  return errorResponse(preconditionFailed(), requestId, method, resource);
}

/**
 * A write's preconditions in the form S3 takes, checked before anything is sent: If-None-Match only as `*`,
 * and not with If-Match (S3 answers both 501, as for a header it does not implement).
 */
export function checkWritePreconditions(headers: ReadonlyHeaders): void {
  const ifNoneMatch = headers.get('if-none-match');
  if (ifNoneMatch === null) return;
  if (ifNoneMatch.trim() !== '*' || headers.get('if-match') !== null) {
    throw unsupportedHeader('If-None-Match');
  }
}

/**
 * A write's If-Match against the object it would replace (`etag` undefined: none). An ETag matches quoted or
 * not, as clients send it back either way; `*` matches any object.
 *
 * @throws S3Error NoSuchKey without an object, PreconditionFailed when no tag matches.
 */
export function checkWriteIfMatch(ifMatch: string, etag: string | undefined, key: string): void {
  if (etag === undefined) throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: key });
  if (!tags(ifMatch).some((tag) => tag === '*' || strongMatch(tag, etag))) throw preconditionFailed();
}

export const preconditionFailed = (): S3Error => new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');

/**
 * A write's or delete's If-Match as the gateway sends it on: each strong tag bare. S3 compares tags quoted or
 * bare alike, while Ceph RGW 16 and DigitalOcean Spaces match only the bare form, so the quoted ETag every
 * SDK hands back failed with 412 there. Weak tags and `*` stay as they are.
 */
export function bareTags(ifMatch: string): string {
  return tags(ifMatch)
    .map((tag) => (tag.startsWith('W/') ? tag : unquoted(tag)))
    .join(', ');
}

/** RFC 9110's strong comparison, quoted or bare alike: a weak tag never matches. */
function strongMatch(tag: string, etag: string): boolean {
  return !tag.startsWith('W/') && unquoted(tag) === unquoted(etag);
}

/** A quoted tag's opaque part; anything else as it is. */
export function unquoted(tag: string): string {
  return tag.length >= 2 && tag.startsWith('"') && tag.endsWith('"') ? tag.slice(1, -1) : tag;
}

function tags(list: string): string[] {
  return list.split(',').map((tag) => tag.trim());
}

/** An entity tag without its weakness mark, for the weak comparison. */
function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/** The whole seconds of an HTTP date, or undefined for anything else. */
function seconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.floor(at / 1000);
}
