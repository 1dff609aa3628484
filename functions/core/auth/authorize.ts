import type { Action, Bucket } from '../config/types';
import { accessDenied } from '../errors';
import type { OperationName } from '../routing';
import { grantedRanges, isAllowed, isAllowedSomewhere, rangesUnder, type KeyRange } from './scopes';
import type { Identity } from './identity';

/**
 * Where every request is authorized. An operation is authorized as one action on a resource: anonymous
 * callers by the bucket's `anonymous_access` flag and the short list of reads it opens, everyone else by
 * their scopes. Operations, copy sources, DeleteObjects' keys and listings all ask here; nothing else decides.
 */

/**
 * What an operation is authorized as, whether an anonymous caller may ever do it, and whether a SigV2
 * presigned link may (only object reads: header-signed SigV2 and SigV2 writes are never accepted).
 */
export interface Rule {
  readonly action: Action;
  readonly anonymous: boolean;
  readonly sigv2: boolean;
}

/** One row per operation (spec and decisions.md, "Authorization"); a named version needs the version action. */
export const RULES: Readonly<Record<Exclude<OperationName, 'ListBuckets'>, Rule>> = {
  GetObject: { action: 'get_object', anonymous: true, sigv2: true },
  HeadObject: { action: 'head_object', anonymous: true, sigv2: true },
  ListObjects: { action: 'list_bucket', anonymous: true, sigv2: false },
  HeadBucket: { action: 'list_bucket', anonymous: true, sigv2: false },
  GetBucketLocation: { action: 'list_bucket', anonymous: true, sigv2: false },
  // Uploads in progress are not part of the anonymous ListBucket grant.
  ListMultipartUploads: { action: 'list_bucket', anonymous: false, sigv2: false },
  ListParts: { action: 'list_bucket', anonymous: false, sigv2: false },
  PutObject: { action: 'put_object', anonymous: false, sigv2: false },
  // A browser form upload (presigned POST): the key is written as by PutObject, signed by the policy's signer.
  PostObject: { action: 'put_object', anonymous: false, sigv2: false },
  CopyObject: { action: 'put_object', anonymous: false, sigv2: false },
  DeleteObject: { action: 'delete_object', anonymous: false, sigv2: false },
  DeleteObjects: { action: 'delete_object', anonymous: false, sigv2: false },
  CreateMultipartUpload: { action: 'create_multipart_upload', anonymous: false, sigv2: false },
  UploadPart: { action: 'upload_part', anonymous: false, sigv2: false },
  CompleteMultipartUpload: { action: 'complete_multipart_upload', anonymous: false, sigv2: false },
  AbortMultipartUpload: { action: 'abort_multipart_upload', anonymous: false, sigv2: false },
};

/** An operation as authorization sees it: its name and, for reads, the version it names. */
export interface Authorizable {
  readonly name: keyof typeof RULES;
  readonly versionId?: string;
}

/** The rule an operation is authorized by: a read naming a version is `get_object_version`, never anonymous. */
export function ruleOf(operation: Authorizable): Rule {
  if (operation.versionId !== undefined && (operation.name === 'GetObject' || operation.name === 'HeadObject')) {
    return { action: 'get_object_version', anonymous: false, sigv2: true };
  }
  return RULES[operation.name];
}

/** The resource: a bucket, and a key in it (an object key, or a listing's prefix). */
export interface Resource {
  readonly bucket: Bucket;
  readonly key: string;
}

/**
 * Whether `identity` may do `operation` on `resource`.
 *
 * @example isAuthorized(identity, { name: 'GetObject' }, { bucket, key: 'reports/q1.csv' })
 */
export function isAuthorized(identity: Identity, operation: Authorizable, resource: Resource): boolean {
  const rule = ruleOf(operation);
  if (identity.sigv2 && !rule.sigv2) return false;
  const principal = identity.principal;
  if (principal.type === 'anonymous') return rule.anonymous && resource.bucket.anonymousAccess;
  return isAllowed(principal.scopes, resource.bucket.name, rule.action, resource.key);
}

/**
 * Throws 403 AccessDenied unless `identity` may do `operation` on `resource`. The message names the check
 * for a signed caller (who already knows its own scopes) and nothing for an anonymous one.
 */
export function authorize(identity: Identity, operation: Authorizable, resource: Resource): void {
  if (isAuthorized(identity, operation, resource)) return;
  const principal = identity.principal;
  if (principal.type === 'anonymous') throw accessDenied();
  if (identity.sigv2 && !ruleOf(operation).sigv2) throw accessDenied(SIGV2_READS_ONLY);
  const action = ruleOf(operation).action;
  throw accessDenied(`Access Denied: ${principal.name} may not ${action} on ${resource.bucket.name}/${resource.key}`);
}

/** Whether `identity` may do `operation` somewhere in `bucket` (bucket-level operations, the first stage of DeleteObjects). */
export function isAuthorizedInBucket(identity: Identity, operation: Authorizable, bucket: Bucket): boolean {
  const rule = ruleOf(operation);
  if (identity.sigv2 && !rule.sigv2) return false;
  const principal = identity.principal;
  if (principal.type === 'anonymous') return rule.anonymous && bucket.anonymousAccess;
  return isAllowedSomewhere(principal.scopes, bucket.name, rule.action);
}

/** Throws 403 AccessDenied unless `identity` may do `operation` somewhere in `bucket`. */
export function authorizeInBucket(identity: Identity, operation: Authorizable, bucket: Bucket): void {
  if (isAuthorizedInBucket(identity, operation, bucket)) return;
  throw accessDenied(identity.sigv2 && !ruleOf(operation).sigv2 ? SIGV2_READS_ONLY : undefined);
}

/** ListBuckets: any signed caller (a SigV2 link only reads objects); the list itself is every virtual bucket. */
export function authorizeListBuckets(identity: Identity): void {
  if (identity.sigv2) throw accessDenied(SIGV2_READS_ONLY);
  if (identity.principal.type === 'anonymous') throw accessDenied();
}

const SIGV2_READS_ONLY = 'Access Denied: a SigV2 presigned URL may only read an object (GET or HEAD); sign anything else with AWS4-HMAC-SHA256';

/** Every key of a bucket. */
const WHOLE_BUCKET: readonly KeyRange[] = [{ prefix: '', exact: false }];

/**
 * The key ranges under `prefix` that `identity` may list with `operation` in `bucket`, in key order: what a
 * listing reads from the backend, so nothing outside them is ever fetched or shown. Only scopes for this
 * bucket (or `*`) holding the operation's action count; an anonymous caller gets the whole bucket when the
 * bucket allows the operation anonymously.
 */
export function listableRanges(identity: Identity, operation: Authorizable, bucket: Bucket, prefix: string): KeyRange[] {
  const rule = ruleOf(operation);
  if (identity.sigv2 && !rule.sigv2) return [];
  const principal = identity.principal;
  if (principal.type === 'anonymous') return rule.anonymous && bucket.anonymousAccess ? rangesUnder(WHOLE_BUCKET, prefix) : [];
  return rangesUnder(grantedRanges(principal.scopes, bucket.name, rule.action), prefix);
}
