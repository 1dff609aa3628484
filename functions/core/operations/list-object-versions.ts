/**
 * ListObjectVersions (`GET /{bucket}?versions`), S3 backends only: asked of the backend under
 * `backend_prefix` (keys URL-encoded so any key survives the XML), answered in the virtual bucket's name and
 * key space with the gateway as every owner. As object listings do (list-objects.ts), it reads only the key
 * ranges the caller may list with `list_bucket_versions`, one after another, and its next markers are the
 * last version (or common prefix) it showed, never a backend marker. Versions and delete markers keep the
 * backend's interleaved order (newest first within a key).
 */
import { authorize, listableRanges } from '../auth/authorize';
import type { KeyRange } from '../auth/scopes';
import type { S3Store } from '../backends/s3';
import { backendCall, type BucketContext } from '../context';
import { notImplemented } from '../errors';
import type { ProxyResponse } from '../http';
import { compareKeys, decodeListedKey, encodeKey } from '../keys';
import { markerInside, type ClientAddress } from '../path-mapping';
import type { Query } from '../query';
import { XmlSequence, childOf, listOf, textOf, type ParsedXml, type XmlNode } from '../xml';
import { documentHeaders, documentResponse, readDocument, s3StoreOf, toXmlNode } from './backend-response';
import { GATEWAY_OWNER, foldedPrefix, isAfter, straddles } from './list-objects';
import { encodesUrl, maxEntries } from './listing-params';
import { respond, type Handler } from './operation';

export interface ListVersionsParams {
  readonly prefix: string;
  readonly delimiter?: string;
  readonly keyMarker?: string;
  readonly versionIdMarker?: string;
  readonly maxKeys: number;
  readonly encodeUrl: boolean;
}

/** Reads the listing parameters, with S3's defaults and limits. */
export function listVersionsParams(query: Query): ListVersionsParams {
  return {
    prefix: query.get('prefix') ?? '',
    delimiter: query.get('delimiter') || undefined,
    keyMarker: query.get('key-marker') || undefined,
    versionIdMarker: query.get('version-id-marker') || undefined,
    maxKeys: maxEntries(query, 'max-keys'),
    encodeUrl: encodesUrl(query),
  };
}

const LIST_VERSIONS = { name: 'ListObjectVersions' } as const;
/** Backend pages read for one client page before the gateway answers a short, truncated one. */
const MAX_BACKEND_PAGES = 10;

/** ListObjectVersions on a virtual bucket, authorized as `list_bucket_versions` on its prefix; never anonymous. */
export const listObjectVersions: Handler<'ListObjectVersions'> = async (_op, ctx) =>
  respond(await listVersions(ctx, listVersionsParams(ctx.query), { bucket: ctx.bucket.name, keyPrefix: '' }));

/** A version or a delete marker, in the virtual key space, with the rest of the backend's entry. */
interface Entry {
  readonly kind: 'Version' | 'DeleteMarker';
  readonly key: string;
  readonly versionId: string;
  readonly node: ParsedXml;
}

/** A position: after this key (and this version of it, when given). */
interface Position {
  readonly key: string;
  readonly versionId?: string;
}

/** One backend page under a range, in the virtual key space. */
interface VersionsPage {
  readonly entries: Entry[];
  readonly prefixes: string[];
  /** Where the next backend page starts (the page's last entry or prefix); absent when none follows. */
  readonly next?: Position;
  readonly headers: Record<string, string>;
}

/** The backend's error, already in the virtual bucket's terms, ends the listing. */
class BackendAnswer extends Error {
  constructor(readonly response: ProxyResponse) {
    super('backend error');
  }
}

/**
 * The listing of `ctx`'s bucket as the client addressed it (`address`: with path mapping, a client-level
 * bucket whose keys for this bucket start with `keyPrefix`, which `params.prefix` then starts with too).
 */
export async function listVersions(ctx: BucketContext, params: ListVersionsParams, address: ClientAddress): Promise<ProxyResponse> {
  const store = s3StoreOf(ctx, 'ListObjectVersions');
  const base = address.keyPrefix;
  const prefix = params.prefix.slice(base.length);
  authorize(ctx.identity, LIST_VERSIONS, { bucket: ctx.bucket, key: prefix });
  const start = markerInside(params.keyMarker, base);
  const keyMarker = start.marker;
  const versionIdMarker = keyMarker === undefined ? undefined : params.versionIdMarker;
  const { delimiter } = params;
  const max = start.pastEnd ? 0 : params.maxKeys;
  const entries: Entry[] = [];
  const prefixes: string[] = [];
  let last: Position | undefined;
  let headers: Record<string, string> = {};
  let pages = 0;
  let truncated = false;
  const count = (): number => entries.length + prefixes.length;
  const fetch = async (range: KeyRange, n: number, marker: Position | undefined, withDelimiter: boolean): Promise<VersionsPage> => {
    const page = await versionsPage(ctx, store, range.prefix, withDelimiter ? delimiter : undefined, n, marker);
    headers = page.headers;
    return page;
  };
  const emitPrefix = (cp: string): void => {
    if (prefixes[prefixes.length - 1] === cp) return;
    prefixes.push(cp);
    if (last === undefined || compareKeys(cp, last.key) > 0) last = { key: cp };
  };
  // S3 starts after every version of a key marker given alone (RGW would list them again).
  const shown = (entry: Entry): boolean => versionIdMarker !== undefined || entry.key !== keyMarker;

  try {
    walk: for (const range of listableRanges(ctx.identity, LIST_VERSIONS, ctx.bucket, prefix)) {
      if (max === 0) break;
      const full = range.prefix;
      if (keyMarker !== undefined && endsBefore(range, keyMarker, versionIdMarker)) continue;
      const inside: Position | undefined = keyMarker !== undefined && keyMarker.startsWith(full) ? { key: keyMarker, versionId: versionIdMarker } : undefined;
      const cp = delimiter === undefined ? undefined : foldedPrefix(full, prefix.length, delimiter);
      if (cp !== undefined) {
        // Shown only after the position, so every version in the range is after it (list-objects.ts).
        if (prefixes[prefixes.length - 1] === cp || !isAfter(cp, keyMarker)) continue;
        if (count() >= max) {
          truncated = true;
          break;
        }
        if ((await fetch(range, 1, undefined, false)).entries.some((e) => within(range, e.key))) emitPrefix(cp);
        continue;
      }
      if (!range.exact && delimiter !== undefined && straddles(full, prefix.length, delimiter)) {
        throw notImplemented('A delimiter that can begin inside a granted prefix and end after it');
      }
      let marker = inside;
      for (;;) {
        if (count() >= max || pages++ >= MAX_BACKEND_PAGES) {
          truncated = true;
          break walk;
        }
        // An exact key's versions come first among the keys starting with it; the first other key ends them.
        const page = await fetch(range, max - count(), marker, !range.exact);
        let passed = false;
        for (const entry of page.entries) {
          if (!within(range, entry.key)) {
            passed = true;
            continue;
          }
          if (!shown(entry)) continue;
          if (count() >= max) {
            truncated = true;
            break walk;
          }
          entries.push(entry);
          if (last === undefined || compareKeys(entry.key, last.key) >= 0) last = { key: entry.key, versionId: entry.versionId };
        }
        for (const p of page.prefixes) if (p.startsWith(full) && count() < max) emitPrefix(p);
        if ((range.exact && passed) || page.next === undefined) break;
        marker = page.next;
      }
    }
  } catch (err) {
    if (err instanceof BackendAnswer) return err.response;
    throw err;
  }
  // Only what was shown names the next page.
  const next = truncated ? (last ?? (params.keyMarker === undefined ? undefined : { key: keyMarker ?? '', versionId: versionIdMarker })) : undefined;
  const encode = (value: string): string => (params.encodeUrl ? encodeKey(value) : value);
  const client = (key: string): string => encode(base + key);
  const node: XmlNode = {
    Name: address.bucket,
    Prefix: encode(params.prefix),
    KeyMarker: encode(params.keyMarker ?? ''),
    VersionIdMarker: params.versionIdMarker ?? '',
    NextKeyMarker: next === undefined ? undefined : client(next.key),
    NextVersionIdMarker: next?.versionId,
    MaxKeys: params.maxKeys,
    Delimiter: delimiter === undefined ? undefined : encode(delimiter),
    EncodingType: params.encodeUrl ? 'url' : undefined,
    IsTruncated: next !== undefined,
    Entries: new XmlSequence(entries.map((e) => [e.kind, Object.assign(toXmlNode(e.node), { Key: client(e.key), Owner: GATEWAY_OWNER })])),
    CommonPrefixes: prefixes.map((p) => ({ Prefix: client(p) })),
  };
  return documentResponse('ListVersionsResult', node, ctx.requestId, headers);
}

/** Whether every version in `range` comes at or before the position (`keyMarker`, `versionIdMarker`). */
function endsBefore(range: KeyRange, keyMarker: string, versionIdMarker: string | undefined): boolean {
  if (range.exact) return compareKeys(range.prefix, keyMarker) < 0 || (range.prefix === keyMarker && versionIdMarker === undefined);
  return !keyMarker.startsWith(range.prefix) && compareKeys(keyMarker, range.prefix) > 0;
}

function within(range: KeyRange, key: string): boolean {
  return range.exact ? key === range.prefix : key.startsWith(range.prefix);
}

/** One backend ListObjectVersions page under `prefix`, in the virtual key space, entries in document order. */
async function versionsPage(
  ctx: BucketContext,
  store: S3Store,
  prefix: string,
  delimiter: string | undefined,
  maxKeys: number,
  marker: Position | undefined,
): Promise<VersionsPage> {
  const query: Record<string, string> = { versions: '', 'encoding-type': 'url', 'max-keys': String(Math.max(1, maxKeys)), prefix: store.backendKey(prefix) };
  if (delimiter) query.delimiter = delimiter;
  if (marker !== undefined) {
    query['key-marker'] = store.backendKey(marker.key);
    if (marker.versionId) query['version-id-marker'] = marker.versionId;
  }
  const response = await store.send({ method: 'GET', query, headers: {} }, backendCall(ctx));
  const read = await readDocument(response, 'ListVersionsResult', ctx);
  if (read.response) throw new BackendAnswer(read.response);
  const result = read.document;
  const virtual = (node: ParsedXml | undefined): string | undefined => {
    const raw = textOf(node);
    return raw === undefined || raw === '' ? undefined : store.virtualKey(decodeListedKey(raw));
  };
  // The parsed document groups elements by name; the text keeps their order.
  const queues = { Version: listOf(result, 'Version'), DeleteMarker: listOf(result, 'DeleteMarker') };
  const entries: Entry[] = [];
  let lastSeen: Position | undefined;
  for (const [, kind] of read.text.matchAll(/<(Version|DeleteMarker)>/g)) {
    const node = queues[kind as Entry['kind']].shift();
    const key = virtual(childOf(node, 'Key'));
    if (node === undefined || key === undefined) continue;
    const entry: Entry = { kind: kind as Entry['kind'], key, versionId: textOf(childOf(node, 'VersionId')) ?? '', node };
    entries.push(entry);
    lastSeen = { key, versionId: entry.versionId };
  }
  const prefixes: string[] = [];
  for (const cp of listOf(result, 'CommonPrefixes')) {
    const p = virtual(childOf(cp, 'Prefix'));
    if (p === undefined) continue;
    prefixes.push(p);
    if (lastSeen === undefined || compareKeys(p, lastSeen.key) > 0) lastSeen = { key: p };
  }
  const more = textOf(childOf(result, 'IsTruncated')) === 'true' && lastSeen !== undefined;
  return { entries, prefixes, next: more ? lastSeen : undefined, headers: documentHeaders(response) };
}
