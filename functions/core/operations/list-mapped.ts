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
 * are read (list-objects.ts). Markers, start-after and keys are in the client's space; continuation tokens
 * are the gateway's own (list-token.ts).
 */
import type { ProxyResponse } from '../http';
import type { ListParams } from '../backends/store';
import type { BucketContext, RequestContext } from '../context';
import { fallbackTokens, listSegments, listableRanges, renderListing, startOf, type ListSegment } from './list-objects';
import type { ListTokens } from './list-token';

/** A mapped bucket under the listed client-level bucket. */
export interface ListedChild {
  /** Its key prefix in the client's space, without the trailing `/` (`repo`). */
  readonly path: string;
  readonly ctx: BucketContext;
  /** Whether the caller may list somewhere in it; listings spanning several buckets skip the others. */
  readonly visible: boolean;
}

export interface ListAccess {
  /** Authorizes a listing inside one mapped bucket under `prefix`; throws AccessDenied. */
  readonly authorize: (child: ListedChild, prefix: string) => void;
}

export async function listMapped(
  ctx: RequestContext,
  name: string,
  params: ListParams,
  children: readonly ListedChild[],
  access: ListAccess,
  tokens: ListTokens = fallbackTokens(),
): Promise<ProxyResponse> {
  const { prefix, delimiter } = params;
  const segments: ListSegment[] = [];
  for (const child of children) {
    const base = `${child.path}/`;
    const inside = prefix.startsWith(base);
    if (!inside && !base.startsWith(prefix)) continue;
    if (inside) access.authorize(child, prefix.slice(base.length));
    else if (!child.visible) continue;
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
