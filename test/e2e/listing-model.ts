import { compareKeys } from '../../functions/core/keys';
import { childOf, decodeEntities, listOf, parseXml, textOf, type ParsedXml } from '../../functions/core/xml';
import type { Keys } from '../support/clients';
import { seededRandom } from '../support/random';
import { rawRequest } from '../support/raw-request';

/**
 * What the listing models share (listing-model.test.ts, listing-model-entries.test.ts): a seeded set of
 * keys, random listings, walks that page a listing to its end through real requests, and S3's rules for
 * what a whole walk shows.
 *
 * A walk shows entries as strings: a key (object listings) or `V:`, `D:` or `U:` with `key#id` (a version,
 * a delete marker, an upload), and `CP:` with a common prefix. A common prefix is an entry in key order
 * like a key: a position at or inside it does not show it again.
 */
export const ADMIN: Keys = { accessKeyId: 'LISTADMIN00000000000', secretAccessKey: 'list/admin/secret/000000000000000000000' };
export const SCOPED: Keys = { accessKeyId: 'LISTSCOPED0000000000', secretAccessKey: 'list/scoped/secret/00000000000000000000' };
/** SCOPED's grants: several runs under the prefix `a`, which `a` itself covers. */
export const GRANTED = ['a', 'ab', 'a b/', 'a-b', 'z'];
const SEGMENTS = ['a', 'b', 'ab', 'a b', 'a+b', 'a-b', '%41', '~x', 'é', 'z', '日本', 'a.b'];
/** Walks per case; `LISTING_WALKS` runs more when exploring. */
export const WALKS = Number(process.env.LISTING_WALKS ?? 60);

export interface Listing {
  readonly bucket: string;
  readonly version: 1 | 2;
  readonly prefix?: string;
  readonly delimiter?: string;
  readonly maxKeys?: number;
  /** start-after (V2), marker (V1) or key-marker (versions, uploads). */
  readonly start?: string;
  readonly url: boolean;
}

/** What a listing shows, page after page, in order. */
export type Shown = string[];

/**
 * 140 keys: nested folders, keys that are prefixes of others, spaces, `+`, `%`, `-`, `~`, `.` and non-ASCII
 * names, so the order is S3's (UTF-8 bytes); and a third of them again under `t/` (a backend_prefix).
 */
export function modelKeys(): string[] {
  const random = seededRandom(2511);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const out = new Set<string>();
  while (out.size < 140) {
    const depth = 1 + Math.floor(random() * 3);
    out.add(Array.from({ length: depth }, () => pick(SEGMENTS)).join('/'));
  }
  const keys = [...out];
  return [...keys, ...keys.filter((_, i) => i % 3 === 0).map((k) => `t/${k}`)];
}

/** Whether a grant on `prefix` covers `key` (configuration.md: `data` covers `data` and `data/…`). */
const covers = (prefix: string, key: string): boolean => (prefix === '' || prefix.endsWith('/') ? key.startsWith(prefix) : key === prefix || key.startsWith(`${prefix}/`));
export const granted = (key: string): boolean => GRANTED.some((p) => covers(p, key));

export const sorted = (list: readonly string[]): string[] => [...list].sort(compareKeys);

/** The key of a shown version or upload (`V:key#id`). */
export const entryKey = (entry: string): string => entry.slice(2, entry.lastIndexOf('#'));

/**
 * What S3 shows for `l` over `entries` (in the backend's order, keys in the caller's space), all pages at
 * once. `keyOf` reads an entry's key. `repeatsMarker`: as RGW lists versions and uploads, starting a key
 * marker given alone at that key's own entries.
 */
export function listingModel(entries: readonly string[], l: Listing, keyOf = (e: string) => e, repeatsMarker = false): Shown {
  const prefix = l.prefix ?? '';
  const shown: Shown = [];
  for (const entry of entries) {
    const key = keyOf(entry);
    if (!key.startsWith(prefix) || (l.start !== undefined && compareKeys(key, l.start) < (repeatsMarker ? 0 : 1))) continue;
    const at = l.delimiter === undefined ? -1 : key.indexOf(l.delimiter, prefix.length);
    if (at < 0) {
      shown.push(entry);
      continue;
    }
    const cp = key.slice(0, at + l.delimiter!.length);
    if (l.start !== undefined && compareKeys(cp, l.start) <= 0) continue;
    if (shown[shown.length - 1] !== `CP:${cp}`) shown.push(`CP:${cp}`);
  }
  return shown;
}

/** RFC 3986 encoding of a query value, as SigV4 canonicalizes it. */
function q(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function text(node: ParsedXml | undefined, name: string): string | undefined {
  return textOf(childOf(node, name));
}

/** A page's entries in key order (`nameOf` reads it); a stable sort, so one key's entries keep theirs. */
function inKeyOrder(entries: string[], nameOf: (entry: string) => string): string[] {
  return entries.sort((a, b) => compareKeys(nameOf(a), nameOf(b)));
}

/** Pages `l` to its end at `endpoint`, checking each page's own fields; what it showed, in order. */
export async function walkObjects(endpoint: string, who: Keys, l: Listing, rgwMarkers = false): Promise<Shown> {
  const shown: Shown = [];
  let position: string | undefined;
  for (let page = 0; page < 400; page++) {
    const params: string[] = [];
    if (l.version === 2) params.push('list-type=2');
    if (l.prefix !== undefined) params.push(`prefix=${q(l.prefix)}`);
    if (l.delimiter !== undefined) params.push(`delimiter=${q(l.delimiter)}`);
    if (l.maxKeys !== undefined) params.push(`max-keys=${l.maxKeys}`);
    if (l.url) params.push('encoding-type=url');
    if (l.version === 2) {
      if (position !== undefined) params.push(`continuation-token=${q(position)}`);
      else if (l.start !== undefined) params.push(`start-after=${q(l.start)}`);
    } else {
      const marker = position ?? l.start;
      if (marker !== undefined) params.push(`marker=${q(marker)}`);
    }
    const target = `/${l.bucket}?${params.join('&')}`;
    const res = await rawRequest(endpoint, { method: 'GET', target }, who);
    if (res.status !== 200) throw new Error(`${target}: ${res.status} ${res.body}`);
    const doc = childOf(parseXml(res.body), 'ListBucketResult');
    const decode = (v: string | undefined): string | undefined => (v !== undefined && l.url ? decodeURIComponent(v) : v);
    const contents = listOf(doc, 'Contents').map((c) => decode(text(c, 'Key'))!);
    const prefixes = listOf(doc, 'CommonPrefixes').map((c) => decode(text(c, 'Prefix'))!);
    const onPage = inKeyOrder([...contents, ...prefixes.map((p) => `CP:${p}`)], (e) => e.replace(/^CP:/, ''));
    expect(onPage.length).toBeLessThanOrEqual(l.maxKeys ?? 1000);
    if (l.version === 2) expect(Number(text(doc, 'KeyCount'))).toBe(onPage.length);
    shown.push(...onPage);
    if (text(doc, 'IsTruncated') !== 'true') return shown;
    if (l.version === 2) {
      position = text(doc, 'NextContinuationToken');
      expect(position).toBeTruthy();
    } else {
      // S3 sends NextMarker only with a delimiter; without one the client resumes from the last key.
      // RGW writes NextMarker unencoded with encoding-type=url, where S3 (and the gateway) encode it.
      const next = text(doc, 'NextMarker');
      position = (rgwMarkers ? next : decode(next)) ?? contents[contents.length - 1];
      expect(position).toBeDefined();
    }
  }
  throw new Error(`${JSON.stringify(l)}: no end after 400 pages`);
}

/**
 * A random listing of `bucket` over `names`; `listable` says which prefixes the caller may list (a listing's
 * prefix must be covered by a grant), and another prefix becomes `a`.
 */
export function randomListing(random: () => number, bucket: string, names: readonly string[], listable = (_prefix: string) => true): Listing {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const cut = (s: string): string => s.slice(0, Math.floor(random() * (s.length + 1)));
  const r = random();
  const prefix = r < 0.3 ? '' : r < 0.8 ? cut(pick(names)) : pick(['a', 'a/', 'é', 'zz', '日']);
  return {
    bucket,
    version: random() < 0.5 ? 1 : 2,
    prefix: listable(prefix) ? prefix || undefined : 'a',
    delimiter: pick([undefined, undefined, '/', '/', '-', 'b', ' ']),
    maxKeys: pick([undefined, 1, 2, 3, 5, 8, 1000]),
    start: random() < 0.6 ? undefined : random() < 0.7 ? cut(pick(names)) : pick(names),
    url: random() < 0.5,
  };
}

/** What a kind of entry listing is asked with and answers. */
export interface EntryListing {
  /** The subresource, its page size parameter, and its second marker. */
  readonly subresource: string;
  readonly maxParam: string;
  readonly idMarker: string;
  /** Entries in document order: their element names and id field, and the letter each is shown with. */
  readonly elements: Readonly<Record<string, string>>;
  readonly idField: string;
}

export const VERSIONS: EntryListing = { subresource: 'versions', maxParam: 'max-keys', idMarker: 'version-id-marker', elements: { Version: 'V', DeleteMarker: 'D' }, idField: 'VersionId' };
export const UPLOADS: EntryListing = { subresource: 'uploads', maxParam: 'max-uploads', idMarker: 'upload-id-marker', elements: { Upload: 'U' }, idField: 'UploadId' };

/**
 * Pages a version or upload listing to its end (`l.start` as the key marker); what it showed, in order:
 * each entry as its letter, `:`, its key, `#` and its id.
 */
export async function walkEntries(kind: EntryListing, endpoint: string, who: Keys, l: Listing, rgwMarkers = false): Promise<Shown> {
  const shown: Shown = [];
  const names = Object.keys(kind.elements).join('|');
  let position: { key: string; id?: string } | undefined = l.start === undefined ? undefined : { key: l.start };
  for (let page = 0; page < 400; page++) {
    const params = [kind.subresource];
    if (l.prefix !== undefined) params.push(`prefix=${q(l.prefix)}`);
    if (l.delimiter !== undefined) params.push(`delimiter=${q(l.delimiter)}`);
    if (l.maxKeys !== undefined) params.push(`${kind.maxParam}=${l.maxKeys}`);
    if (l.url) params.push('encoding-type=url');
    if (position !== undefined) params.push(`key-marker=${q(position.key)}`);
    if (position?.id !== undefined) params.push(`${kind.idMarker}=${q(position.id)}`);
    const target = `/${l.bucket}?${params.join('&')}`;
    const res = await rawRequest(endpoint, { method: 'GET', target }, who);
    if (res.status !== 200) throw new Error(`${target}: ${res.status} ${res.body}`);
    const decode = (v: string): string => (l.url ? decodeURIComponent(v) : decodeEntities(v));
    const field = (xml: string, name: string): string | undefined => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
    const entries = [...res.body.matchAll(new RegExp(`<(${names})>(.*?)</\\1>`, 'g'))].map(
      (m) => `${kind.elements[m[1]]}:${decode(field(m[2], 'Key') ?? '')}#${field(m[2], kind.idField)}`,
    );
    const prefixes = [...res.body.matchAll(/<CommonPrefixes><Prefix>([^<]*)<\/Prefix><\/CommonPrefixes>/g)].map((m) => `CP:${decode(m[1])}`);
    const onPage = inKeyOrder([...entries, ...prefixes], (e) => (e.startsWith('CP:') ? e.slice(3) : entryKey(e)));
    expect(onPage.length).toBeLessThanOrEqual(l.maxKeys ?? 1000);
    shown.push(...onPage);
    if (field(res.body, 'IsTruncated') !== 'true') return shown;
    const nextKey = field(res.body, 'NextKeyMarker');
    expect(nextKey).toBeDefined();
    // RGW writes NextKeyMarker unencoded with encoding-type=url, where S3 (and the gateway) encode it.
    position = { key: rgwMarkers ? decodeEntities(nextKey!) : decode(nextKey!), id: field(res.body, `Next${kind.idField}Marker`) || undefined };
  }
  throw new Error(`${JSON.stringify(l)}: no end after 400 pages`);
}
