/**
 * What ListObjectVersions and ListMultipartUploads share: listings of an S3 backend positioned by a key
 * marker and an id marker (a version's or an upload's), asked under `backend_prefix` with keys URL-encoded so
 * any key survives the XML, and read back into the virtual key space. Each walks the caller's listable
 * ranges itself, since their rules for an exact key differ; the parameters, where a listing starts, the
 * backend pages, the entries shown and the position they leave are here.
 */
import type { KeyRange } from '../auth/scopes';
import type { S3Store } from '../backends/s3';
import { backendCall, type BucketContext } from '../context';
import type { ProxyResponse } from '../http';
import { compareKeys, decodeListedKey, encodeKey } from '../keys';
import { markerInside } from '../path-mapping';
import type { Query } from '../query';
import { childOf, listOf, textOf, type ParsedXml } from '../xml';
import { documentHeaders, readDocument } from '../operations/backend-response';
import { encodesUrl, maxEntries } from './params';

/** How one of these listings is asked of the backend, named in the query, and read back. */
export interface MarkerListing<E extends Listed> {
  /** The subresource in the query: `versions` or `uploads`. */
  readonly subresource: string;
  /** The backend document's root element. */
  readonly root: string;
  readonly maxName: 'max-keys' | 'max-uploads';
  readonly idMarkerName: string;
  /** A page's entries in document order (the text keeps the order the parsed document loses). */
  readonly entriesOf: (document: ParsedXml, text: string, virtual: (node: ParsedXml | undefined) => string | undefined) => E[];
}

export interface MarkerParams {
  readonly prefix: string;
  readonly delimiter?: string;
  readonly keyMarker?: string;
  /** `version-id-marker` or `upload-id-marker`. */
  readonly idMarker?: string;
  /** `max-keys` or `max-uploads`. */
  readonly max: number;
  readonly encodeUrl: boolean;
}

/** Reads the listing's parameters, with S3's defaults and limits. */
export function markerParams(query: Query, listing: MarkerListing<Listed>): MarkerParams {
  return {
    prefix: query.get('prefix') ?? '',
    delimiter: query.get('delimiter') || undefined,
    keyMarker: query.get('key-marker') || undefined,
    idMarker: query.get(listing.idMarkerName) || undefined,
    max: maxEntries(query, listing.maxName),
    encodeUrl: encodesUrl(query),
  };
}

/** A position: after this key (and this version or upload of it, when given). */
export interface Position {
  readonly key: string;
  readonly id?: string;
}

/** Where a listing of one bucket starts, inside it, and how many entries it may show. */
export interface Start {
  readonly keyMarker?: string;
  /** Only beside a key marker. */
  readonly idMarker?: string;
  readonly max: number;
}

/**
 * The start of the listing inside the bucket whose keys the client sees under `base` (path mapping): none
 * may be shown when the key marker lies past all of them.
 */
export function startOf(params: MarkerParams, base: string): Start {
  const inside = markerInside(params.keyMarker, base);
  return { keyMarker: inside.marker, idMarker: inside.marker === undefined ? undefined : params.idMarker, max: inside.pastEnd ? 0 : params.max };
}

/** Whether an entry is past the start: S3 starts after every entry of a key marker given alone (RGW would list them again). */
export function pastStart(start: Start, key: string): boolean {
  return start.idMarker !== undefined || key !== start.keyMarker;
}

/** An entry as listed: its virtual key, its version or upload id, and the rest of the backend's entry. */
export interface Listed {
  readonly key: string;
  readonly id: string;
  readonly node: ParsedXml;
}

/** One backend page under a range, in the virtual key space. */
export interface MarkerPage<E extends Listed> {
  readonly entries: E[];
  readonly prefixes: string[];
  /** Where the next backend page starts (the page's last entry or prefix); absent when none follows. */
  readonly next?: Position;
}

/** Backend pages read for one client page before the gateway answers a short, truncated one. */
export const MAX_BACKEND_PAGES = 10;

/** The backend's error, already in the virtual bucket's terms, ends the listing. */
export class BackendAnswer extends Error {
  constructor(readonly response: ProxyResponse) {
    super('backend error');
  }
}

/** Whether `key` belongs to `range`. */
export function within(range: KeyRange, key: string): boolean {
  return range.exact ? key === range.prefix : key.startsWith(range.prefix);
}

/** Whether every entry in `range` comes at or before the position (`keyMarker`, `idMarker`). */
export function endsBefore(range: KeyRange, keyMarker: string, idMarker: string | undefined): boolean {
  if (range.exact) return compareKeys(range.prefix, keyMarker) < 0 || (range.prefix === keyMarker && idMarker === undefined);
  return !keyMarker.startsWith(range.prefix) && compareKeys(keyMarker, range.prefix) > 0;
}

/** The entries and common prefixes shown so far, and the last of them: only what was shown names the next page. */
export class Shown<E extends Listed> {
  readonly entries: E[] = [];
  readonly prefixes: string[] = [];
  last: Position | undefined;

  get count(): number {
    return this.entries.length + this.prefixes.length;
  }

  /** Whether `cp` is the common prefix shown last (one shown twice in a row is shown once). */
  endsWith(cp: string): boolean {
    return this.prefixes[this.prefixes.length - 1] === cp;
  }

  entry(entry: E): void {
    this.entries.push(entry);
    if (this.last === undefined || compareKeys(entry.key, this.last.key) >= 0) this.last = { key: entry.key, id: entry.id };
  }

  prefix(cp: string): void {
    if (this.endsWith(cp)) return;
    this.prefixes.push(cp);
    if (this.last === undefined || compareKeys(cp, this.last.key) > 0) this.last = { key: cp };
  }

  /**
   * Where a truncated page's successor starts: after the last entry or prefix shown; with nothing shown
   * (the backend pages ran out first), where this page started, so the listing still says more follows.
   */
  next(params: MarkerParams, start: Start): Position | undefined {
    return this.last ?? (params.keyMarker === undefined ? undefined : { key: start.keyMarker ?? '', id: start.idMarker });
  }
}

/** Names in the client's space (under the path-mapped `base`), URL-encoded when the client asked. */
export function clientNames(params: MarkerParams, base: string): { encode(value: string): string; client(key: string): string } {
  const encode = (value: string): string => (params.encodeUrl ? encodeKey(value) : value);
  return { encode, client: (key) => encode(base + key) };
}

/** The backend pages one client page reads; the answer carries the headers of the last. */
export class BackendPages<E extends Listed> {
  headers: Record<string, string> = {};

  constructor(
    private readonly ctx: BucketContext,
    private readonly store: S3Store,
    private readonly listing: MarkerListing<E>,
    private readonly delimiter: string | undefined,
  ) {}

  /** At most `max` entries of `range` after `marker`, in the virtual key space, rolled up by the delimiter when asked. */
  async read(range: KeyRange, max: number, marker: Position | undefined, withDelimiter: boolean): Promise<MarkerPage<E>> {
    const { ctx, store, listing } = this;
    const query: Record<string, string> = { [listing.subresource]: '', 'encoding-type': 'url', [listing.maxName]: String(Math.max(1, max)), prefix: store.backendKey(range.prefix) };
    if (withDelimiter && this.delimiter) query.delimiter = this.delimiter;
    if (marker !== undefined) {
      query['key-marker'] = store.backendKey(marker.key);
      if (marker.id) query[listing.idMarkerName] = marker.id;
    }
    const response = await store.send({ method: 'GET', query, headers: {} }, backendCall(ctx));
    const read = await readDocument(response, listing.root, ctx);
    if (read.response) throw new BackendAnswer(read.response);
    this.headers = documentHeaders(response);
    const result = read.document;
    /** A backend key (URL-encoded by request) in the virtual space, or undefined outside the prefix. */
    const virtual = (node: ParsedXml | undefined): string | undefined => {
      const raw = textOf(node);
      return raw === undefined || raw === '' ? undefined : store.virtualKey(decodeListedKey(raw));
    };
    const entries = listing.entriesOf(result, read.text, virtual);
    // The next page starts after the last entry listed, not at NextKeyMarker: RGW writes that one unencoded
    // whatever `encoding-type` asked, so a key holding `%` would be read as another.
    const lastEntry = entries[entries.length - 1];
    let lastSeen: Position | undefined = lastEntry === undefined ? undefined : { key: lastEntry.key, id: lastEntry.id };
    const prefixes: string[] = [];
    for (const cp of listOf(result, 'CommonPrefixes')) {
      const p = virtual(childOf(cp, 'Prefix'));
      if (p === undefined) continue;
      prefixes.push(p);
      if (lastSeen === undefined || compareKeys(p, lastSeen.key) > 0) lastSeen = { key: p };
    }
    const more = textOf(childOf(result, 'IsTruncated')) === 'true' && lastSeen !== undefined;
    return { entries, prefixes, next: more ? lastSeen : undefined };
  }
}
