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
import { authorize, isAuthorized, listableRanges, type Access } from '../auth/authorize';
import type { ListParams } from '../backends/store';
import type { BucketContext, RequestContext } from '../context';
import { accessDenied } from '../errors';
import type { Dispatch, ProxyResponse } from '../http';
import { prefixLevelUnsupported, type MappedOperation } from '../path-mapping';
import type { BucketOperation } from '../routing';
import { bucketLocation, headBucket } from '../operations/buckets';
import { fallbackTokens, listParams, listSegments, renderListing, startOf, type ListSegment } from './objects';
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


/**
 * An operation on a client-level bucket (`/{account}`): ListObjects spans its mapped buckets; HeadBucket and
 * GetBucketLocation answer for it; ListObjectVersions and ListMultipartUploads list the one mapped bucket
 * their prefix reaches into; anything else needs one mapped bucket (501). The caller must be able to list
 * (for versions: list versions) in at least one of the mapped buckets, else AccessDenied.
 */
export async function accountLevel(
  mapped: Extract<MappedOperation, { level: 'prefix' }>,
  children: readonly ListedChild[],
  ctx: RequestContext,
  services: S3Services,
  access: Access | 'refused' | 'signed caller',
): Promise<Dispatch> {
  const op = mapped.operation;
  if (typeof access !== 'object' || access.on === 'form' || access.on === 'entries') throw prefixLevelUnsupported(op);
  const request = { headers: ctx.request.headers };
  if (!children.some((child) => isAuthorized(ctx.identity, access, request, child.ctx.bucket))) throw accessDenied();
  switch (op.name) {
    case 'ListObjects':
      return respond(await listMapped(ctx, mapped.name, listParams(ctx, op.version), children, access, services.listTokens));
    case 'HeadBucket':
      return respond(headBucket(ctx.requestId));
    case 'GetBucketLocation':
      return respond(bucketLocation(ctx.requestId));
    case 'ListObjectVersions': {
      const params = listVersionsParams(ctx.query);
      const child = childUnder(children, params.prefix, op);
      authorize(ctx.identity, access, request, child.ctx.bucket, params.prefix.slice(child.path.length + 1));
      return respond(await listVersions(child.ctx, params, { bucket: mapped.name, keyPrefix: `${child.path}/` }, access));
    }
    case 'ListMultipartUploads': {
      const params = listUploadsParams(ctx.query);
      const child = childUnder(children, params.prefix, op);
      authorize(ctx.identity, access, request, child.ctx.bucket, params.prefix.slice(child.path.length + 1));
      return respond(await listUploads(child.ctx, params, { bucket: mapped.name, keyPrefix: `${child.path}/` }, access));
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
  access: Access,
  tokens: ListTokens = fallbackTokens(),
): Promise<ProxyResponse> {
  const { prefix, delimiter } = params;
  const segments: ListSegment[] = [];
  for (const child of children) {
    const base = `${child.path}/`;
    const inside = prefix.startsWith(base);
    if (!inside && !base.startsWith(prefix)) continue;
    const request = { headers: ctx.request.headers };
    if (inside) authorize(ctx.identity, access, request, child.ctx.bucket, prefix.slice(base.length));
    else if (!isAuthorized(ctx.identity, access, request, child.ctx.bucket)) continue;
    if (!inside && delimiter !== undefined) {
      const at = base.indexOf(delimiter, prefix.length);
      if (at >= 0) {
        segments.push({ kind: 'folder', prefix: base.slice(0, at + delimiter.length) });
        continue;
      }
    }
    for (const range of listableRanges(ctx.identity, access, child.ctx.bucket, inside ? prefix.slice(base.length) : '')) segments.push({ kind: 'range', base, ctx: child.ctx, range });
  }
  const page = await listSegments(segments, params, await startOf(params, tokens), tokens);
  return renderListing(ctx, name, params.version, params, page);
}
