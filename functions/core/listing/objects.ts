/**
 * ListObjects (V1) and ListObjectsV2, answered with the gateway's own XML and positions.
 *
 * A listing reads only the key ranges the caller may list (`grantedRanges`: its `list_bucket` scopes for
 * this bucket) under the requested prefix, one range after another in key order, so no backend page holds a
 * name outside them and no page is ever "filtered empty". A range that the delimiter folds into one common
 * prefix above it (listing `data` with `/` over a grant on `data/`) shows as that prefix when it holds
 * anything, asked of the backend with one single-key read. Positions are the last name shown (token.ts).
 */
import { listableRanges, type Access } from '../auth/authorize';
import type { KeyRange } from '../auth/scopes';
import { compareKeys } from '../keys';
import { notImplemented } from '../errors';
import type { ProxyResponse } from '../http';
import type { ListEntry, ListPage, ListParams } from '../backends/store';
import { backendCall, type BucketContext, type RequestContext } from '../context';
import { MARKER_TAG, ListTokens, type ListHint, type ListPosition } from './token';
import { renderListing } from './xml';
import { encodesUrl, maxEntries } from './params';
import { respond, type Handler } from '../operations/operation';

export { GATEWAY_OWNER, renderListing } from './xml';

/** Store pages read for one client page before the gateway answers a short, truncated one (S3 allows it). */
const MAX_STORE_PAGES = 10;

/** Tokens sealed with a random key, for callers that pass none (tests); the Gateway passes its own. */
let defaultTokens: ListTokens | undefined;

export function fallbackTokens(): ListTokens {
  defaultTokens ??= new ListTokens();
  return defaultTokens;
}

/**
 * One run of a listing in the client's key space: a key range of one bucket (under `base`, the client's
 * prefix for that bucket's keys: '' or a path-mapped `repo/`), or a common prefix shown as it is.
 */
export type ListSegment =
  | { readonly kind: 'range'; readonly base: string; readonly ctx: BucketContext; readonly range: KeyRange }
  | { readonly kind: 'folder'; readonly prefix: string };

/** ListObjects (V1) and ListObjectsV2 (authorized as `list_bucket` on the listing's prefix). */
export const listObjectsOperation: Handler<'ListObjects'> = async (op, ctx, services, access) =>
  respond(await listObjects(ctx, op.version, listParams(ctx, op.version), access, services.listTokens));

/** ListObjects (V1) and ListObjectsV2 as the gateway's own XML, with the virtual bucket's name; only the ranges `access` grants are read. */
export async function listObjects(ctx: BucketContext, version: 1 | 2, params: ListParams, access: Access, tokens: ListTokens = fallbackTokens()): Promise<ProxyResponse> {
  const segments = listableRanges(ctx.identity, access, ctx.bucket, params.prefix).map((range): ListSegment => ({ kind: 'range', base: '', ctx, range }));
  const page = await listSegments(segments, params, await startOf(params, tokens), tokens);
  return renderListing(ctx, ctx.bucket.name, version, params, page);
}

/** Where the client asked the listing to start: V2's token or start-after, V1's marker. */
export async function startOf(params: ListParams, tokens: ListTokens): Promise<ListPosition> {
  if (params.version === 2) return params.continuationToken !== undefined ? tokens.decode(params, params.continuationToken) : { after: params.startAfter };
  return params.marker !== undefined ? tokens.marker(params, params.marker) : {};
}

/**
 * Lists `segments` (in key order) from `start`: up to `maxKeys` keys and common prefixes, and the gateway's
 * next marker and token when more may follow.
 */
export async function listSegments(segments: readonly ListSegment[], params: ListParams, start: ListPosition, tokens: ListTokens): Promise<ListPage> {
  const { prefix, delimiter, maxKeys } = params;
  const after = start.after;
  const contents: ListEntry[] = [];
  const commonPrefixes: string[] = [];
  let last: string | undefined;
  let pages = 0;
  const count = (): number => contents.length + commonPrefixes.length;
  const seen = (name: string): void => {
    if (last === undefined || compareKeys(name, last) > 0) last = name;
  };
  const emitPrefix = (cp: string): void => {
    if (commonPrefixes[commonPrefixes.length - 1] === cp) return;
    commonPrefixes.push(cp);
    seen(cp);
  };
  const stop = async (hint?: ListHint): Promise<ListPage> => {
    const position: ListPosition = { after: last ?? after, hint };
    const token = await tokens.encode(params, position);
    // A name shown goes out as it is, unless it could be read back as the gateway's own marker.
    const plain = hint === undefined && position.after !== undefined && !position.after.startsWith(MARKER_TAG);
    const marker = plain ? position.after : MARKER_TAG + token;
    return { contents, commonPrefixes, isTruncated: true, nextContinuationToken: token, nextMarker: marker };
  };

  // A sealed hint names the segment it was issued in: the ones before it were done.
  let from = 0;
  const hint = start.hint;
  if (hint !== undefined) {
    const at = segments.findIndex((s) => s.kind === 'range' && s.ctx.bucket.name === hint.bucket && s.range.prefix === hint.range);
    if (at >= 0) from = at;
  }

  for (let i = from; i < segments.length && maxKeys > 0; i++) {
    const segment = segments[i];
    if (segment.kind === 'folder') {
      if (isAfter(segment.prefix, after) && commonPrefixes[commonPrefixes.length - 1] !== segment.prefix) {
        if (count() >= maxKeys) return stop();
        emitPrefix(segment.prefix);
      }
      continue;
    }
    const { base, ctx, range } = segment;
    const full = base + range.prefix;
    if (after !== undefined && endsBefore(range, full, after)) continue;
    const inner = after !== undefined && after.startsWith(full) ? after.slice(base.length) : undefined;
    const cp = delimiter === undefined ? undefined : foldedPrefix(full, prefix.length, delimiter);
    if (cp !== undefined) {
      // A common prefix is an entry in key order, as the backends list it: one at or before the position is
      // not shown again, also when the position lies inside it. So every key of the range is before the
      // position or after it, and the range is asked from its start.
      if (commonPrefixes[commonPrefixes.length - 1] === cp || !isAfter(cp, after)) continue;
      if (count() >= maxKeys) return stop();
      if (await holdsAny(ctx, range)) emitPrefix(cp);
      continue;
    }
    if (range.exact) {
      if (count() >= maxKeys) return stop();
      const entry = await exactKey(ctx, range.prefix);
      if (entry !== undefined) {
        contents.push({ ...entry, key: full });
        seen(full);
      }
      continue;
    }
    if (delimiter !== undefined && straddles(full, prefix.length, delimiter)) {
      throw notImplemented('A delimiter that can begin inside a granted prefix and end after it');
    }
    const useHint = hint !== undefined && i === from && hint.bucket === ctx.bucket.name && hint.range === range.prefix;
    let token = useHint ? hint.token : undefined;
    let startAfter = token === undefined ? inner : undefined;
    for (;;) {
      if (count() >= maxKeys) return stop();
      if (pages >= MAX_STORE_PAGES) return stop({ bucket: ctx.bucket.name, range: range.prefix, token });
      pages++;
      const page = await ctx.store.list(
        { version: 2, prefix: range.prefix, delimiter, maxKeys: maxKeys - count(), startAfter, continuationToken: token, fetchOwner: false },
        backendCall(ctx),
      );
      // Whatever a backend answers outside the range (one that ignored the prefix) is never shown. The
      // store's entry is the page's own: copied only to move its key under a path-mapped base (a copy per
      // entry was 1.6% of a 1,000-key page's CPU in a profile).
      for (const entry of page.contents) {
        if (!entry.key.startsWith(range.prefix)) continue;
        const shown = base === '' ? entry : { ...entry, key: base + entry.key };
        contents.push(shown);
        seen(shown.key);
      }
      for (const p of page.commonPrefixes) if (p.startsWith(range.prefix)) emitPrefix(base + p);
      if (!page.isTruncated) break;
      token = page.nextContinuationToken;
      startAfter = last !== undefined && last.startsWith(full) ? last.slice(base.length) : startAfter;
      if (count() >= maxKeys) {
        return stop(token === undefined ? undefined : { bucket: ctx.bucket.name, range: range.prefix, token });
      }
    }
  }
  return { contents, commonPrefixes, isTruncated: false };
}

/**
 * Whether `name` comes after the position `after` (every name does when there is none). A common prefix is
 * shown only then, as backends list it: a position inside it is after it.
 */
export function isAfter(name: string, after: string | undefined): boolean {
  return after === undefined || compareKeys(name, after) > 0;
}

/** Whether every key of the range (`full`: its prefix in the client's space) is at or before `after`. */
function endsBefore(range: KeyRange, full: string, after: string): boolean {
  if (range.exact) return compareKeys(full, after) <= 0;
  return !after.startsWith(full) && compareKeys(after, full) > 0;
}

/**
 * The common prefix every key under `full` rolls up into when the delimiter occurs in `full` at or after
 * the listing prefix (`from`), or undefined when keys roll up further in.
 */
export function foldedPrefix(full: string, from: number, delimiter: string): string | undefined {
  const at = full.indexOf(delimiter, from);
  return at < 0 ? undefined : full.slice(0, at + delimiter.length);
}

/**
 * Whether a delimiter could begin inside `full` (at or after `from`) and end past it: a backend listing of
 * `full` looks for it only after `full`, so it would roll keys up in the wrong place.
 */
export function straddles(full: string, from: number, delimiter: string): boolean {
  for (let at = Math.max(from, full.length - delimiter.length + 1); at < full.length; at++) {
    if (delimiter.startsWith(full.slice(at))) return true;
  }
  return false;
}

/** Whether the range holds a key: one single-key backend read. */
async function holdsAny(ctx: BucketContext, range: KeyRange): Promise<boolean> {
  if (range.exact) return (await exactKey(ctx, range.prefix)) !== undefined;
  const page = await ctx.store.list({ version: 2, prefix: range.prefix, maxKeys: 1, fetchOwner: false }, backendCall(ctx));
  return page.contents.some((entry) => entry.key.startsWith(range.prefix)) || page.commonPrefixes.some((p) => p.startsWith(range.prefix));
}

/** The listing entry of exactly `key`, when it exists: it sorts first among the keys starting with it. */
async function exactKey(ctx: BucketContext, key: string): Promise<ListEntry | undefined> {
  const page = await ctx.store.list({ version: 2, prefix: key, maxKeys: 1, fetchOwner: false }, backendCall(ctx));
  const entry = page.contents[0];
  return entry?.key === key ? entry : undefined;
}

/** Reads the listing parameters from the query, with S3's defaults and limits. */
export function listParams(ctx: RequestContext, version: 1 | 2): ListParams {
  const q = ctx.query;
  const maxKeys = maxEntries(q, 'max-keys');
  encodesUrl(q); // checked here; renderListing reads it from the query
  return {
    version,
    prefix: q.get('prefix') ?? '',
    delimiter: q.get('delimiter') || undefined,
    maxKeys,
    marker: version === 1 ? q.get('marker') || undefined : undefined,
    continuationToken: version === 2 ? q.get('continuation-token') || undefined : undefined,
    startAfter: version === 2 ? q.get('start-after') || undefined : undefined,
    fetchOwner: q.get('fetch-owner') === 'true',
  };
}
