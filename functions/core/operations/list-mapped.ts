/**
 * ListObjects (V1 and V2) on a client-level bucket of a path-mapped deployment (`/{account}`): one
 * listing whose keys are `{repo}/{key}` across every mapped bucket under it, in S3's key order.
 *
 * Mapped buckets are visited in the order of `repo + "/"`, which is the order of all their keys (no
 * segment contains `/`). A prefix reaching inside one bucket (`repo/dir/`) lists that bucket alone,
 * authorized as any listing is; a shorter prefix spans every bucket it matches that the caller may list,
 * silently leaving out the others. When the delimiter falls inside the mapped segments (with `/`, always),
 * a bucket collapses into its common prefix (`repo/`) without a backend call, so each mapped bucket the
 * caller may list shows as a "folder", empty or not. Markers, start-after and keys are in the client's
 * space; continuation tokens are the gateway's own, carrying the position inside one bucket.
 */
import type { Scope } from '../config/types';
import { S3Error, notImplemented } from '../errors';
import type { ProxyResponse } from '../http';
import { textFromBase64Url, textToBase64Url } from '../backends/listing';
import type { ListEntry, ListPage, ListParams } from '../backends/store';
import { compare } from '../path-mapping';
import type { BucketContext, RequestContext } from '../context';
import { onlyAllowed, renderListing } from './list-objects';

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
  /** The caller's scopes, to drop entries they do not cover (absent: anonymous, nothing to drop). */
  readonly scopes?: readonly Scope[];
}

/** The gateway's V2 token: inside one mapped bucket (`p`, that store's token `t`) or after a key (`a`). */
type Position = { readonly p: string; readonly t: string } | { readonly a: string };

const TOKEN_TAG = 'pm1.';

export async function listMapped(
  ctx: RequestContext,
  name: string,
  params: ListParams,
  children: readonly ListedChild[],
  access: ListAccess,
): Promise<ProxyResponse> {
  const { prefix, delimiter } = params;
  const start = startOf(params);
  let after = start.after;
  let resume = start.resume;
  const contents: ListEntry[] = [];
  const commonPrefixes: string[] = [];
  let count = 0;
  let last: string | undefined;
  let next: { marker: string; token: Position } | undefined;

  const emitPrefix = (cp: string): void => {
    if (commonPrefixes[commonPrefixes.length - 1] === cp) return;
    commonPrefixes.push(cp);
    count++;
    last = cp;
  };

  for (const child of children) {
    const base = `${child.path}/`;
    const inside = prefix.startsWith(base);
    if (!inside && !base.startsWith(prefix)) continue;
    if (resume !== undefined && compare(base, `${resume.p}/`) < 0) continue;
    if (inside) access.authorize(child, prefix.slice(base.length));
    else if (!child.visible) continue;
    if (count >= params.maxKeys) {
      if (last !== undefined) next = { marker: last, token: { a: last } };
      break;
    }
    if (!inside && delimiter !== undefined) {
      const at = base.indexOf(delimiter, prefix.length);
      if (at >= 0 && at + delimiter.length <= base.length) {
        const cp = base.slice(0, at + delimiter.length);
        if (after === undefined || compare(cp, after) > 0) emitPrefix(cp);
        continue;
      }
      // Only a delimiter holding "/" can match across the end of the mapped segments.
      if (delimiter.includes('/')) throw notImplemented('A delimiter containing "/" other than "/" itself above the mapped buckets');
    }
    const resuming = resume !== undefined && resume.p === child.path ? resume : undefined;
    resume = undefined;
    let innerAfter: string | undefined;
    if (resuming === undefined && after !== undefined) {
      if (after.startsWith(base)) innerAfter = after.slice(base.length);
      else if (compare(after, base) > 0) continue;
    }
    after = undefined;
    const raw = await child.ctx.store.list(
      {
        version: params.version,
        prefix: inside ? prefix.slice(base.length) : '',
        delimiter,
        maxKeys: params.maxKeys - count,
        marker: params.version === 1 ? innerAfter : undefined,
        startAfter: params.version === 2 ? innerAfter : undefined,
        continuationToken: resuming?.t,
        fetchOwner: params.fetchOwner,
      },
      child.ctx.request.signal,
    );
    const page: ListPage = access.scopes ? onlyAllowed(raw, access.scopes, child.ctx.bucket.name) : raw;
    for (const entry of page.contents) contents.push({ ...entry, key: base + entry.key });
    for (const cp of page.commonPrefixes) emitPrefix(base + cp);
    count += page.contents.length;
    const lastRaw = lastOf(raw);
    if (lastRaw !== undefined && (last === undefined || compare(base + lastRaw, last) > 0)) last = base + lastRaw;
    if (raw.isTruncated) {
      const marker = base + (raw.nextMarker ?? lastRaw ?? '');
      next = { marker, token: raw.nextContinuationToken ? { p: child.path, t: raw.nextContinuationToken } : { a: marker } };
      break;
    }
  }
  const page: ListPage = {
    contents,
    commonPrefixes,
    isTruncated: next !== undefined,
    nextMarker: next?.marker,
    nextContinuationToken: next ? encodePosition(next.token) : undefined,
  };
  return renderListing(ctx, name, params.version, params, page);
}

/** Where a listing starts: after a key (marker, start-after, or a token between buckets) or inside one. */
function startOf(params: ListParams): { after?: string; resume?: { p: string; t: string } } {
  if (params.version === 1) return { after: params.marker };
  if (params.continuationToken === undefined) return { after: params.startAfter };
  const position = decodePosition(params.continuationToken);
  return 'a' in position ? { after: position.a } : { resume: position };
}

function lastOf(page: ListPage): string | undefined {
  const key = page.contents[page.contents.length - 1]?.key;
  const cp = page.commonPrefixes[page.commonPrefixes.length - 1];
  if (key === undefined) return cp;
  return cp === undefined || compare(key, cp) > 0 ? key : cp;
}

function encodePosition(position: Position): string {
  return TOKEN_TAG + textToBase64Url(JSON.stringify(position));
}

function decodePosition(token: string): Position {
  const invalid = new S3Error('InvalidArgument', 'The continuation token provided is incorrect');
  if (!token.startsWith(TOKEN_TAG)) throw invalid;
  let value: unknown;
  try {
    value = JSON.parse(textFromBase64Url(token.slice(TOKEN_TAG.length)));
  } catch {
    throw invalid;
  }
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof v.p === 'string' && typeof v.t === 'string') return { p: v.p, t: v.t };
  if (typeof v.a === 'string') return { a: v.a };
  throw invalid;
}
