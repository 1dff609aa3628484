/**
 * ListObjects (V1 and V2) on a client-level bucket of a path-mapped deployment (`/{account}`): one
 * listing whose keys are `{repo}/{key}` across every mapped bucket under it, in S3's key order.
 *
 * Mapped buckets are visited in the order of `repo + "/"`, which is the order of all their keys (no
 * segment contains `/`). A prefix reaching inside one bucket (`repo/dir/`) lists that bucket alone,
 * authorized as any listing is; a shorter prefix spans every bucket it matches that the caller may list,
 * silently leaving out the others. When the delimiter falls inside the mapped segments (with `/`, always),
 * a bucket collapses into its common prefix (`repo/`) without a backend call, so each mapped bucket the
 * caller may list shows as a "folder", empty or not. Inside each bucket only the ranges the caller may list
 * are read (objects.ts). Markers, start-after and keys are in the client's space; continuation tokens
 * are the gateway's own (token.ts).
 */
import { authorize, isAuthorizedInBucket } from '../auth/authorize';
import type { ListParams } from '../backends/store';
import type { BucketContext, RequestContext } from '../context';
import { accessDenied } from '../errors';
import type { Dispatch, ProxyResponse } from '../http';
import { prefixLevelUnsupported, type MappedOperation } from '../path-mapping';
import type { BucketOperation } from '../routing';
import { bucketLocation, headBucket } from '../operations/buckets';
import { fallbackTokens, listParams, listSegments, listableRanges, renderListing, startOf, type ListSegment } from './objects';
import { listUploads, listUploadsParams } from './uploads';
import { listVersions, listVersionsParams } from './versions';
import type { ListTokens } from './token';
import { respond, type S3Services } from '../operations/operation';

/** A mapped bucket under the listed client-level bucket. */
export interface ListedChild {
  /** Its key prefix in the client's space, without the trailing `/` (`repo`). */
  readonly path: string;
  readonly ctx: BucketContext;
}

const LIST = { name: 'ListObjects' } as const;
const LIST_VERSIONS = { name: 'ListObjectVersions' } as const;

/**
 * An operation on a client-level bucket (`/{account}`): ListObjects spans its mapped buckets; HeadBucket and
 * GetBucketLocation answer for it; ListObjectVersions and ListMultipartUploads list the one mapped bucket
 * their prefix reaches into; anything else needs one mapped bucket (501). The caller must be able to list
 * (for versions: list versions) in at least one of the mapped buckets, else AccessDenied.
 */
export async function accountLevel(mapped: Extract<MappedOperation, { level: 'prefix' }>, children: readonly ListedChild[], ctx: RequestContext, services: S3Services): Promise<Dispatch> {
  const op = mapped.operation;
  const rule = op.name === 'ListObjectVersions' ? LIST_VERSIONS : LIST;
  if (!children.some((child) => isAuthorizedInBucket(ctx.identity, rule, child.ctx.bucket))) throw accessDenied();
  switch (op.name) {
    case 'ListObjects':
      return respond(await listMapped(ctx, mapped.name, listParams(ctx, op.version), children, services.listTokens));
    case 'HeadBucket':
      return respond(headBucket(ctx.requestId));
    case 'GetBucketLocation':
      return respond(bucketLocation(ctx.requestId));
    case 'ListObjectVersions': {
      const params = listVersionsParams(ctx.query);
      const child = childUnder(children, params.prefix, op);
      return respond(await listVersions(child.ctx, params, { bucket: mapped.name, keyPrefix: `${child.path}/` }));
    }
    case 'ListMultipartUploads': {
      const params = listUploadsParams(ctx.query);
      const child = childUnder(children, params.prefix, op);
      return respond(await listUploads(child.ctx, params, { bucket: mapped.name, keyPrefix: `${child.path}/` }));
    }
    default:
      throw prefixLevelUnsupported(op);
  }
}

/**
 * The one mapped bucket a listing's prefix reaches into (`repo/…`): version and upload listings span a
 * single mapped bucket, so any other prefix is 501 NotImplemented.
 */
function childUnder(children: readonly ListedChild[], prefix: string, op: BucketOperation): ListedChild {
  const child = children.find((c) => prefix.startsWith(`${c.path}/`));
  if (child === undefined) throw prefixLevelUnsupported(op);
  return child;
}

/**
 * The listing across `children`. A prefix reaching inside one of them is authorized there as any listing
 * is; wider listings leave out the mapped buckets the caller may not list.
 */
export async function listMapped(
  ctx: RequestContext,
  name: string,
  params: ListParams,
  children: readonly ListedChild[],
  tokens: ListTokens = fallbackTokens(),
): Promise<ProxyResponse> {
  const { prefix, delimiter } = params;
  const segments: ListSegment[] = [];
  for (const child of children) {
    const base = `${child.path}/`;
    const inside = prefix.startsWith(base);
    if (!inside && !base.startsWith(prefix)) continue;
    if (inside) authorize(ctx.identity, LIST, { bucket: child.ctx.bucket, key: prefix.slice(base.length) });
    else if (!isAuthorizedInBucket(ctx.identity, LIST, child.ctx.bucket)) continue;
    if (!inside && delimiter !== undefined) {
      const at = base.indexOf(delimiter, prefix.length);
      if (at >= 0) {
        segments.push({ kind: 'folder', prefix: base.slice(0, at + delimiter.length) });
        continue;
      }
    }
    for (const range of listableRanges(child.ctx, inside ? prefix.slice(base.length) : '')) segments.push({ kind: 'range', base, ctx: child.ctx, range });
  }
  const page = await listSegments(segments, params, await startOf(params, tokens), tokens);
  return renderListing(ctx, name, params.version, params, page);
}
