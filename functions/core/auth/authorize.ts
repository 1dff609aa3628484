import type { Action, Bucket } from '../config/types';
import { accessDenied } from '../errors';
import type { OperationName } from '../routing';
import { grantedRanges, holdsScopeOn, isAllowed, isAllowedSomewhere, rangesUnder, type KeyRange } from './scopes';
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
  /** A second action the caller must hold as well (a tagging call naming a version: `get_object_version`). */
  readonly also?: Action;
  readonly anonymous: boolean;
  readonly sigv2: boolean;
}

/**
 * One row per operation (spec and decisions.md, "Authorization"). A version named by a read, a delete or a
 * tagging call is a variant of its row (`ruleOf`). CreateBucket has no row: it never reaches a bucket's
 * actions (see `ownsBucket`).
 */
export const RULES: Readonly<Record<Exclude<OperationName, 'ListBuckets' | 'CreateBucket'>, Rule>> = {
  GetObject: { action: 'get_object', anonymous: true, sigv2: true },
  HeadObject: { action: 'head_object', anonymous: true, sigv2: true },
  // What a HEAD tells, in a document.
  GetObjectAttributes: { action: 'head_object', anonymous: true, sigv2: false },
  ListObjects: { action: 'list_bucket', anonymous: true, sigv2: false },
  HeadBucket: { action: 'list_bucket', anonymous: true, sigv2: false },
  GetBucketLocation: { action: 'list_bucket', anonymous: true, sigv2: false },
  GetBucketVersioning: { action: 'list_bucket', anonymous: false, sigv2: false },
  ListObjectVersions: { action: 'list_bucket_versions', anonymous: false, sigv2: false },
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
  UploadPartCopy: { action: 'upload_part', anonymous: false, sigv2: false },
  CompleteMultipartUpload: { action: 'complete_multipart_upload', anonymous: false, sigv2: false },
  AbortMultipartUpload: { action: 'abort_multipart_upload', anonymous: false, sigv2: false },
  GetObjectTagging: { action: 'get_object_tagging', anonymous: false, sigv2: false },
  PutObjectTagging: { action: 'put_object_tagging', anonymous: false, sigv2: false },
  DeleteObjectTagging: { action: 'delete_object_tagging', anonymous: false, sigv2: false },
};

/** An operation as authorization sees it: its name, the version it names, if any, and whether it reads an ETag. */
export interface Authorizable {
  readonly name: keyof typeof RULES;
  readonly versionId?: string;
  /**
   * A write or delete conditional on the object's ETag (`If-Match` naming one, an `<ETag>` in DeleteObjects):
   * its answer tells whether the ETag matches, so S3 asks for GetObject as well (`*` only asks for existence).
   */
  readonly comparesEtag?: boolean;
}

/** The rows of operations that name a version: never implied by the unversioned action, never anonymous. */
const VERSIONED: Partial<Record<keyof typeof RULES, Rule>> = {
  GetObject: { action: 'get_object_version', anonymous: false, sigv2: true },
  HeadObject: { action: 'get_object_version', anonymous: false, sigv2: true },
  GetObjectAttributes: { action: 'get_object_version', anonymous: false, sigv2: false },
  DeleteObject: { action: 'delete_object_version', anonymous: false, sigv2: false },
  GetObjectTagging: { action: 'get_object_tagging', also: 'get_object_version', anonymous: false, sigv2: false },
  PutObjectTagging: { action: 'put_object_tagging', also: 'get_object_version', anonymous: false, sigv2: false },
  DeleteObjectTagging: { action: 'delete_object_tagging', also: 'get_object_version', anonymous: false, sigv2: false },
};

/**
 * The rule an operation is authorized by. Naming a version changes it: a read is `get_object_version`, a
 * delete `delete_object_version`, a tagging call needs `get_object_version` as well as its own action. A
 * write or delete comparing the object's ETag needs `get_object` as well.
 */
export function ruleOf(operation: Authorizable): Rule {
  const rule = (operation.versionId !== undefined ? VERSIONED[operation.name] : undefined) ?? RULES[operation.name];
  return operation.comparesEtag === true && rule.also === undefined ? { ...rule, also: 'get_object' } : rule;
}

/** Whether an `If-Match` (or DeleteObjects `<ETag>`) value names an ETag, which only a reader may compare. */
export function namesEtag(value: string | null | undefined): boolean {
  return value !== null && value !== undefined && value.trim() !== '*';
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
  return missingAction(identity, ruleOf(operation), resource) === undefined;
}

/** The action (of `rule`) the caller lacks on `resource`, or undefined when it may; `anonymous` for a refused anonymous caller. */
function missingAction(identity: Identity, rule: Rule, resource: Resource): Action | 'anonymous' | 'sigv2' | undefined {
  if (identity.sigv2 && !rule.sigv2) return 'sigv2';
  const principal = identity.principal;
  if (principal.type === 'anonymous') return rule.anonymous && resource.bucket.anonymousAccess ? undefined : 'anonymous';
  for (const action of rule.also === undefined ? [rule.action] : [rule.action, rule.also]) {
    if (!isAllowed(principal.scopes, resource.bucket.name, action, resource.key)) return action;
  }
  return undefined;
}

/**
 * Throws 403 AccessDenied unless `identity` may do `operation` on `resource`. The message names the check
 * for a signed caller (who already knows its own scopes) and nothing for an anonymous one.
 */
export function authorize(identity: Identity, operation: Authorizable, resource: Resource): void {
  const missing = missingAction(identity, ruleOf(operation), resource);
  if (missing === undefined) return;
  const principal = identity.principal;
  if (missing === 'anonymous' || principal.type === 'anonymous') throw accessDenied();
  if (missing === 'sigv2') throw accessDenied(SIGV2_READS_ONLY);
  throw accessDenied(`Access Denied: ${principal.name} may not ${missing} on ${resource.bucket.name}/${resource.key}`);
}

/** Whether `identity` may do `operation` somewhere in `bucket` (bucket-level operations, the first stage of DeleteObjects). */
export function isAuthorizedInBucket(identity: Identity, operation: Authorizable, bucket: Bucket): boolean {
  const rule = ruleOf(operation);
  if (identity.sigv2 && !rule.sigv2) return false;
  const principal = identity.principal;
  if (principal.type === 'anonymous') return rule.anonymous && bucket.anonymousAccess;
  return isAllowedSomewhere(principal.scopes, bucket.name, rule.action) && (rule.also === undefined || isAllowedSomewhere(principal.scopes, bucket.name, rule.also));
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

/**
 * Whether S3 would call the caller the owner of an existing bucket (CreateBucket's 409
 * BucketAlreadyOwnedByYou): any scope on it, or on `*`, whatever its actions. Anonymous callers own nothing.
 */
export function ownsBucket(identity: Identity, bucket: Bucket): boolean {
  const principal = identity.principal;
  return principal.type !== 'anonymous' && holdsScopeOn(principal.scopes, bucket.name);
}

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
