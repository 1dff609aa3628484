import { compareKeys } from '../keys';
import { fromBase64Url, fromUtf8, toBase64Url, utf8 } from '../bytes';
import { S3Error } from '../errors';
import type { ListEntry, ListPage, ListParams } from '../backends/store';

/**
 * S3 listing semantics over backends whose own pagination differs (Azure List Blobs, the GCS JSON API):
 * pages of exactly `max-keys` entries, `marker`/`start-after` as keys, and continuation tokens that resume
 * where the previous page stopped. The backend's page marker is carried inside the store's token, which names
 * backend keys: the gateway hands it to clients only sealed (token.ts).
 */

/** One listed name relative to the backend prefix: an object, or a common prefix when `entry` is absent. */
export interface ListItem {
  readonly key: string;
  readonly entry?: ListEntry;
}

/**
 * A name a store listed, relative to the bucket's backend prefix: undefined when it lies outside it, and a
 * page drops it (a store may list a sibling that merely shares the prefix's text).
 */
export function relativeKey(name: string, backendPrefix: string): string | undefined {
  return name.startsWith(backendPrefix) ? name.slice(backendPrefix.length) : undefined;
}

/** One backend page: items in the backend's (lexicographic) order and the backend's marker for the next. */
export interface BackendListPage {
  readonly items: readonly ListItem[];
  readonly next?: string;
}

/** Fetches the backend page starting at `marker` (undefined: the first), asking for at most `limit` items. */
export type FetchListPage = (marker: string | undefined, limit: number) => Promise<BackendListPage>;

/** Where a listing resumes: the backend page to fetch, and the last name already returned (skipped again). */
export interface ListPosition {
  readonly marker?: string;
  readonly after?: string;
}

/** Backend round trips per client page before the gateway answers a short, truncated page (S3 allows it). */
const MAX_ROUNDS = 50;

/**
 * Collects up to `maxKeys` items (objects and common prefixes) from `start`. Backend pages are asked for no
 * more than still needed; when one overshoots (while skipping past `after`), the position resumes inside
 * that page. Names at or before `after` are dropped, which also removes prefixes a backend repeats across
 * pages (the firebase storage emulator does).
 */
export async function collectPage(
  fetchPage: FetchListPage,
  start: ListPosition,
  maxKeys: number,
  pageLimit: number,
): Promise<{ readonly items: ListItem[]; readonly resume?: ListPosition }> {
  const items: ListItem[] = [];
  if (maxKeys <= 0) return { items };
  let { marker, after } = start;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const want = maxKeys - items.length;
    const page = await fetchPage(marker, after === undefined ? Math.min(want, pageLimit) : pageLimit);
    const since = after;
    const fresh = since === undefined ? page.items : page.items.filter((item) => compareKeys(item.key, since) > 0);
    if (fresh.length > want) {
      items.push(...fresh.slice(0, want));
      return { items, resume: { marker, after: items[items.length - 1].key } };
    }
    items.push(...fresh);
    if (fresh.length > 0) after = fresh[fresh.length - 1].key;
    if (page.next === undefined || page.next === '') return { items };
    marker = page.next;
    if (items.length === maxKeys) return { items, resume: { marker, after } };
  }
  return { items, resume: { marker, after } };
}

/** Items sorted in S3 order; backends that return objects and prefixes in separate lists are merged here. */
export function sortItems(items: ListItem[]): ListItem[] {
  return items.sort((x, y) => compareKeys(x.key, y.key));
}

interface TokenBody {
  /** The listing's prefix and delimiter: a token is only valid for the listing that issued it. */
  readonly p: string;
  readonly d: string;
  readonly m?: string;
  readonly a?: string;
}

/** V1 markers the gateway issues start with this, so a plain key used as a marker is still recognised. */
const MARKER_TAG = 'gw1.';

/** The opaque continuation token (V2) for `position`: base64url of JSON. */
export function encodeToken(params: ListParams, position: ListPosition): string {
  const body: TokenBody = { p: params.prefix, d: params.delimiter ?? '', m: position.marker, a: position.after };
  return textToBase64Url(JSON.stringify(body));
}

/** The position a V2 continuation token stands for; a token from another listing is InvalidArgument. */
export function decodeToken(params: ListParams, token: string): ListPosition {
  const body = parseToken(token);
  if (body === undefined || body.p !== params.prefix || body.d !== (params.delimiter ?? '')) {
    throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect');
  }
  return { marker: body.m, after: body.a };
}

/**
 * Where a listing starts, from V2's continuation-token or start-after, or V1's marker. A V1 marker the
 * gateway issued resumes directly; any other marker is a key, and the listing skips past it.
 */
export function startPosition(params: ListParams): ListPosition {
  if (params.version === 2) {
    if (params.continuationToken) return decodeToken(params, params.continuationToken);
    return { after: params.startAfter };
  }
  const marker = params.marker;
  if (marker === undefined) return {};
  if (marker.startsWith(MARKER_TAG)) {
    const body = parseToken(marker.slice(MARKER_TAG.length));
    if (body !== undefined && body.p === params.prefix && body.d === (params.delimiter ?? '')) return { marker: body.m, after: body.a };
  }
  return { after: marker };
}

/** An S3 page from collected items: contents and common prefixes, and the next marker or token. */
export function toListPage(params: ListParams, items: readonly ListItem[], resume: ListPosition | undefined): ListPage {
  const contents: ListEntry[] = [];
  const commonPrefixes: string[] = [];
  for (const item of items) {
    if (item.entry) contents.push(item.entry);
    else commonPrefixes.push(item.key);
  }
  if (resume === undefined) return { contents, commonPrefixes, isTruncated: false };
  const token = encodeToken(params, resume);
  return { contents, commonPrefixes, isTruncated: true, nextContinuationToken: token, nextMarker: MARKER_TAG + token };
}

function parseToken(token: string): TokenBody | undefined {
  try {
    const value: unknown = JSON.parse(textFromBase64Url(token));
    if (typeof value !== 'object' || value === null) return undefined;
    const v = value as Record<string, unknown>;
    const optional = (x: unknown): boolean => x === undefined || typeof x === 'string';
    if (typeof v.p !== 'string' || typeof v.d !== 'string' || !optional(v.m) || !optional(v.a)) return undefined;
    return { p: v.p, d: v.d, m: v.m as string | undefined, a: v.a as string | undefined };
  } catch {
    return undefined;
  }
}

/** base64url of the UTF-8 of `text`: the form of the gateway's opaque listing tokens. */
export function textToBase64Url(text: string): string {
  return toBase64Url(utf8(text));
}

/** The text of a base64url token; throws when it is not base64url of UTF-8. */
export function textFromBase64Url(token: string): string {
  const bytes = fromBase64Url(token);
  if (bytes === undefined) throw new TypeError('not base64url');
  return fromUtf8(bytes);
}

const MONTHS = 'JanFebMarAprMayJunJulAugSepOctNovDec';
/** RFC 1123 as stores write it, with a day every month has: the rest goes through Date.parse. */
const HTTP_DATE = /^[A-Z][a-z]{2}, (0[1-9]|1[0-9]|2[0-8]) ([A-Z][a-z]{2}) ([0-9]{4}) ([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]) GMT$/;

/** `Last-Modified` (RFC 1123) as S3 listings write it: ISO 8601 with milliseconds. */
export function isoDate(httpDate: string): string {
  // Rearranged where it can be: V8's Date.parse of this form took a fifth of an Azure listing page's CPU.
  const m = HTTP_DATE.exec(httpDate);
  const month = m === null ? -1 : MONTHS.indexOf(m[2]);
  if (m !== null && month % 3 === 0) return `${m[3]}-${String(month / 3 + 1).padStart(2, '0')}-${m[1]}T${m[4]}:${m[5]}:${m[6]}.000Z`;
  const ms = Date.parse(httpDate);
  return Number.isNaN(ms) ? httpDate : new Date(ms).toISOString();
}

/** ETags are quoted in S3 listings and headers; some backends list them bare. */
export function quoteEtag(etag: string): string {
  return etag.startsWith('"') || etag.startsWith('W/"') ? etag : `"${etag}"`;
}
