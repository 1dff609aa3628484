import type { Action, Bucket } from '../config/types';
import { accessDenied } from '../errors';
import type { ReadonlyHeaders } from '../http';
import { grantedRanges, holdsScopeOn, isAllowed, isAllowedSomewhere, rangesUnder, type KeyRange } from './scopes';
import type { Identity } from './identity';

/**
 * The rules every request is authorized by. Each operation's `Access` is declared once, in its row of the
 * operation table (operations/table.ts), and the S3 dispatcher (s3.ts) authorizes every request from it
 * before the handler runs. Handlers ask here again only for what no row can say: a copy source, each
 * DeleteObjects entry, the key ranges a listing may show, a form upload's signer.
 */

/** What an operation's action applies to. */
export type Target =
  /** The object key the request names. */
  | 'key'
  /** The listing's `prefix` parameter (the keys it may show are narrowed further by `listableRanges`). */
  | 'prefix'
  /** Somewhere in the bucket (bucket-level reads). */
  | 'bucket'
  /** Somewhere in the bucket first; then each entry of the body, by the handler, as the row's `entry` access. */
  | 'entries'
  /** Nothing the dispatcher can see: a form upload, authorized by its handler once the form's signer and key are read. */
  | 'form';

/**
 * How an operation is authorized: the action it needs on its target, whether anonymous callers and SigV2
 * links may ever do it, the action naming a version needs instead, and the further actions the request's
 * headers ask for.
 */
export interface Access {
  readonly action: Action;
  readonly on: Target;
  /** Anonymous callers may, on a bucket with `anonymous_access` (reads only, never a version or an extra). */
  readonly anonymous: boolean;
  /** A SigV2 presigned link may (object reads only: header-signed SigV2 and SigV2 writes are never accepted). */
  readonly sigv2: boolean;
  /** The request names a version (`?versionId=`): this action instead, and `also` beside it. */
  readonly versioned?: { readonly action: Action; readonly also?: Action };
  /** Actions needed beside the operation's own when the request carries what they allow. */
  readonly extras?: readonly Extra[];
}

/** A further action a request needs because of what it carries (a header, or a form field standing for one). */
export interface Extra {
  readonly action: Action;
  /** The header (or header family) that asks for it, as the refusal names it. */
  readonly header: string;
  readonly present: (headers: ReadonlyHeaders) => boolean;
}

/** What of a request authorization reads besides its target: the version it names and its headers. */
export interface AccessRequest {
  readonly versionId?: string;
  readonly headers: ReadonlyHeaders;
}

const has = (name: string) => (headers: ReadonlyHeaders) => headers.get(name) !== null;

/** Whether any header starts with `prefix`. */
function anyStartingWith(headers: ReadonlyHeaders, prefix: string): boolean {
  let found = false;
  headers.forEach((_, name) => {
    if (name.startsWith(prefix)) found = true;
  });
  return found;
}

/** Whether an `If-Match` (or DeleteObjects `<ETag>`) value names an ETag, which only a reader may compare. */
export function namesEtag(value: string | null | undefined): boolean {
  return value !== null && value !== undefined && value.trim() !== '*';
}

/**
 * The extras, as AWS IAM asks for them (docs/authorization.md): an object's ACL, tags, retention and legal
 * hold are each their own permission beside the write that sets them.
 */
export const EXTRAS = {
  /**
   * Any canned ACL or grant but `private`: that is the ACL every new object gets anyway, so it widens nothing,
   * and rclone sends it with every upload by default (AWS asks for PutObjectAcl even then: docs/authorization.md).
   */
  acl: {
    action: 'put_object_acl',
    header: 'x-amz-acl or x-amz-grant-*',
    present: (h) => (h.get('x-amz-acl') ?? 'private').trim().toLowerCase() !== 'private' || anyStartingWith(h, 'x-amz-grant-'),
  },
  tagging: { action: 'put_object_tagging', header: 'x-amz-tagging', present: has('x-amz-tagging') },
  /** A copy's `x-amz-tagging` counts only with `x-amz-tagging-directive: REPLACE`: COPY keeps the source's tags. */
  copyTagging: {
    action: 'put_object_tagging',
    header: 'x-amz-tagging',
    present: (h) => h.get('x-amz-tagging') !== null && h.get('x-amz-tagging-directive')?.trim().toUpperCase() === 'REPLACE',
  },
  retention: {
    action: 'put_object_retention',
    header: 'x-amz-object-lock-mode or x-amz-object-lock-retain-until-date',
    present: (h) => h.get('x-amz-object-lock-mode') !== null || h.get('x-amz-object-lock-retain-until-date') !== null,
  },
  legalHold: { action: 'put_object_legal_hold', header: 'x-amz-object-lock-legal-hold', present: has('x-amz-object-lock-legal-hold') },
  bypassGovernance: {
    action: 'bypass_governance_retention',
    header: 'x-amz-bypass-governance-retention',
    present: (h) => h.get('x-amz-bypass-governance-retention')?.trim().toLowerCase() === 'true',
  },
  /** A write or delete conditional on an ETag tells whether the ETag matches, so S3 asks for GetObject too (`*` only asks for existence). */
  comparesEtag: { action: 'get_object', header: 'If-Match', present: (h) => namesEtag(h.get('if-match')) },
} as const satisfies Record<string, Extra>;

/** The extras of every write that stores an object with its headers (PutObject, CreateMultipartUpload, the form). */
export const OBJECT_WRITE_EXTRAS: readonly Extra[] = [EXTRAS.acl, EXTRAS.tagging, EXTRAS.retention, EXTRAS.legalHold];

/**
 * A copy source (CopyObject, UploadPartCopy) is read as by GetObject: `get_object`, or `get_object_version`
 * when it names a version. Anonymous callers never copy, and the copy's own headers ask nothing of the source.
 */
export const COPY_SOURCE: Access = { action: 'get_object', on: 'key', anonymous: false, sigv2: false, versioned: { action: 'get_object_version' } };

/** The actions a request needs, each with what asks for it: the operation's own (or its version's), then the extras. */
export function neededActions(access: Access, request: AccessRequest): Array<{ action: Action; header?: string }> {
  const versioned = request.versionId !== undefined ? access.versioned : undefined;
  const needed: Array<{ action: Action; header?: string }> = [{ action: versioned?.action ?? access.action }];
  if (versioned?.also !== undefined) needed.push({ action: versioned.also });
  for (const extra of access.extras ?? []) {
    if (extra.present(request.headers) && !needed.some((n) => n.action === extra.action)) needed.push({ action: extra.action, header: extra.header });
  }
  return needed;
}

/** Why a request is refused, or undefined when it may go on. */
type Refusal = { readonly kind: 'anonymous' } | { readonly kind: 'sigv2' } | { readonly kind: 'action'; readonly action: Action; readonly header?: string };

/**
 * The refusal of `request` by `identity` under `access` on `bucket`: on `key` when one is given, else
 * anywhere in the bucket.
 */
function refusal(identity: Identity, access: Access, request: AccessRequest, bucket: Bucket, key: string | undefined): Refusal | undefined {
  if (identity.sigv2 && !access.sigv2) return { kind: 'sigv2' };
  const needed = neededActions(access, request);
  const principal = identity.principal;
  if (principal.type === 'anonymous') {
    const plainRead = access.anonymous && bucket.anonymousAccess && request.versionId === undefined && needed.length === 1;
    return plainRead ? undefined : { kind: 'anonymous' };
  }
  for (const { action, header } of needed) {
    const allowed = key === undefined ? isAllowedSomewhere(principal.scopes, bucket.name, action) : isAllowed(principal.scopes, bucket.name, action, key);
    if (!allowed) return { kind: 'action', action, header };
  }
  return undefined;
}

/**
 * Throws 403 AccessDenied unless `identity` may make `request` under `access` on `key` of `bucket` (no key:
 * somewhere in the bucket). The message names the missing action (and the header that asked for it) to a
 * signed caller, who already knows its own scopes, and nothing to an anonymous one.
 *
 * @example authorize(identity, OPERATIONS.GetObject.access, { headers }, bucket, 'reports/q1.csv')
 */
export function authorize(identity: Identity, access: Access, request: AccessRequest, bucket: Bucket, key?: string): void {
  const refused = refusal(identity, access, request, bucket, key);
  if (refused === undefined) return;
  const principal = identity.principal;
  if (refused.kind === 'sigv2') throw accessDenied(SIGV2_READS_ONLY);
  if (refused.kind === 'anonymous') throw accessDenied();
  if (principal.type === 'anonymous') throw accessDenied();
  const where = key === undefined ? bucket.name : `${bucket.name}/${key}`;
  const because = refused.header === undefined ? '' : ` (the request carries ${refused.header})`;
  throw accessDenied(`Access Denied: ${principal.name} may not ${refused.action} on ${where}${because}`);
}

/** Whether `identity` may make `request` under `access` (see `authorize`). */
export function isAuthorized(identity: Identity, access: Access, request: AccessRequest, bucket: Bucket, key?: string): boolean {
  return refusal(identity, access, request, bucket, key) === undefined;
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
 * The key ranges under `prefix` that `identity` may list under `access` in `bucket`, in key order: what a
 * listing reads from the backend, so nothing outside them is ever fetched or shown. Only scopes for this
 * bucket (or `*`) holding the action count; an anonymous caller gets the whole bucket when the bucket
 * allows the listing anonymously.
 */
export function listableRanges(identity: Identity, access: Access, bucket: Bucket, prefix: string): KeyRange[] {
  if (identity.sigv2 && !access.sigv2) return [];
  const principal = identity.principal;
  if (principal.type === 'anonymous') return access.anonymous && bucket.anonymousAccess ? rangesUnder(WHOLE_BUCKET, prefix) : [];
  return rangesUnder(grantedRanges(principal.scopes, bucket.name, access.action), prefix);
}
