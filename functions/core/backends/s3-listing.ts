/**
 * An S3 backend's ListBucketResult read into a page in the client's key space: keys URL-decoded (the gateway
 * asks for `encoding-type=url`), the backend prefix stripped, entries outside it dropped.
 *
 * A listing page is the largest document the gateway reads on a hot path (~290 KB for 1,000 keys from RGW).
 * Building the general parser's tree for it and walking the tree again took most of a page's CPU, so
 * `readS3Listing` first tries a scanner that reads the shape every S3 implementation sends (elements without
 * attributes below the root, text without markup) straight into entries, with indexOf over the text. Anything
 * else (a comment, CDATA, an attribute, mixed content, deeper nesting, a stray `<`) makes it give up, and the
 * general hardened parser reads the document instead: the scanner never decides a hostile document, it only
 * recognises the common one. Both paths give the same page for any document the scanner accepts (a spec
 * compares them).
 */
import { childOf, decodeEntities, listOf, parseXml, textOf, type ParsedXml } from '../xml';
import type { ListEntry, ListPage } from './store';

/** The page in `xml`, or undefined when it is no readable ListBucketResult. */
export function readS3Listing(xml: string, backendPrefix: string): ListPage | undefined {
  const scanned = scanS3Listing(xml, backendPrefix);
  return scanned === UNRECOGNISED ? parseS3Listing(xml, backendPrefix) : scanned;
}

/** What the scanner answers for a document outside the shape it reads. */
export const UNRECOGNISED = 'unrecognised';

/** The scanner alone: the page, or UNRECOGNISED when the general parser must decide. */
export function scanS3Listing(xml: string, backendPrefix: string): ListPage | typeof UNRECOGNISED {
  const scanned = scanListing(xml);
  return scanned === GIVE_UP ? UNRECOGNISED : toPage(scanned, backendPrefix);
}

/** The general parser's reading: what readS3Listing answers for any document the scanner does not recognise. */
export function parseS3Listing(xml: string, backendPrefix: string): ListPage | undefined {
  const doc = childOf(parseXml(xml), 'ListBucketResult');
  return doc === undefined ? undefined : toPage(fromTree(doc), backendPrefix);
}

/** The fields of a listing the gateway uses, as the backend wrote them (entities decoded, keys still URL-encoded). */
interface RawListing {
  readonly contents: RawEntry[];
  readonly prefixes: (string | undefined)[];
  isTruncated: string | undefined;
}

interface RawEntry {
  key?: string;
  lastModified?: string;
  etag?: string;
  size?: string;
  storageClass?: string;
}

/** A backend listing with keys URL-decoded and the backend prefix stripped. */
function toPage(raw: RawListing, backendPrefix: string): ListPage {
  const strip = (value: string | undefined): string | undefined => {
    if (value === undefined) return undefined;
    const decoded = value.includes('%') ? decodeURIComponent(value) : value;
    return decoded.startsWith(backendPrefix) ? decoded.slice(backendPrefix.length) : undefined;
  };
  const contents: ListEntry[] = [];
  for (const item of raw.contents) {
    const key = strip(item.key);
    if (key === undefined) continue;
    contents.push({ key, lastModified: item.lastModified ?? '', etag: item.etag ?? '', size: Number(item.size ?? 0), storageClass: item.storageClass ?? 'STANDARD' });
  }
  const commonPrefixes: string[] = [];
  for (const p of raw.prefixes) {
    const stripped = strip(p);
    if (stripped !== undefined) commonPrefixes.push(stripped);
  }
  return { contents, commonPrefixes, isTruncated: raw.isTruncated === 'true' };
}

/** The general parser's tree, read the same way: the first of a repeated field counts, as textOf takes it. */
function fromTree(doc: ParsedXml): RawListing {
  const field = (item: ParsedXml, name: string): string | undefined => textOf(childOf(item, name));
  return {
    contents: listOf(doc, 'Contents').map((item) => ({
      key: field(item, 'Key'),
      lastModified: field(item, 'LastModified'),
      etag: field(item, 'ETag'),
      size: field(item, 'Size'),
      storageClass: field(item, 'StorageClass'),
    })),
    prefixes: listOf(doc, 'CommonPrefixes').map((cp) => field(cp, 'Prefix')),
    isTruncated: field(doc, 'IsTruncated'),
  };
}

/** The scanner met something outside the shape it reads: the general parser decides. */
const GIVE_UP = Symbol('give up');
type Scan = RawListing | typeof GIVE_UP;

/** Fields of an entry by element name; other children (Owner, Type, ChecksumAlgorithm…) are skipped. */
const ENTRY_FIELDS: ReadonlyMap<string, keyof RawEntry> = new Map([['Key', 'key'], ['LastModified', 'lastModified'], ['ETag', 'etag'], ['Size', 'size'], ['StorageClass', 'storageClass']]);
const PREFIX_FIELDS: ReadonlyMap<string, 'prefix'> = new Map([['Prefix', 'prefix']]);
const NO_FIELDS: ReadonlyMap<string, string> = new Map();
const ROOT = 'ListBucketResult';
/** Elements inside an entry may hold one more level (Owner's ID); anything deeper is not a listing's shape. */
const MAX_ENTRY_DEPTH = 2;

/** A cursor over the document: each read moves past what it recognised, or reports that it did not. */
class Cursor {
  i = 0;
  constructor(readonly xml: string) {}

  skipSpace(): void {
    const xml = this.xml;
    let c = xml.charCodeAt(this.i);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = xml.charCodeAt(++this.i);
  }

  /** Reads `<Name>` (no attributes) at the cursor: the name, or undefined when it is not a plain start tag. */
  openTag(): string | undefined {
    const xml = this.xml;
    if (xml.charCodeAt(this.i) !== 60 /* < */) return undefined;
    const start = this.i + 1;
    let j = start;
    let c = xml.charCodeAt(j);
    while ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) c = xml.charCodeAt(++j);
    if (c !== 62 /* > */ || j === start) return undefined;
    this.i = j + 1;
    return xml.slice(start, j);
  }

  /** Consumes `</name>` at the cursor; false when it is not there. */
  closeTag(name: string): boolean {
    const xml = this.xml;
    const at = this.i;
    if (xml.charCodeAt(at) !== 60 || xml.charCodeAt(at + 1) !== 47 /* / */ || !xml.startsWith(name, at + 2) || xml.charCodeAt(at + 2 + name.length) !== 62) return false;
    this.i = at + 3 + name.length;
    return true;
  }

  /** Text up to the next `<`, entities decoded; undefined when it holds an entity the parser refuses. */
  text(): string | undefined {
    const xml = this.xml;
    const end = xml.indexOf('<', this.i);
    if (end < 0) return undefined;
    const raw = xml.slice(this.i, end);
    this.i = end;
    if (!raw.includes('&')) return raw;
    // Quoted ETags are the one entity nearly every entry carries; each `&` starts its own reference, so
    // replacing these first decodes the same as the general decoder does.
    const quoted = raw.replaceAll('&quot;', '"');
    if (!quoted.includes('&')) return quoted;
    try {
      return decodeEntities(quoted);
    } catch {
      return undefined;
    }
  }

  /** Whether only whitespace is left. */
  atEnd(): boolean {
    this.skipSpace();
    return this.i >= this.xml.length;
  }
}

/**
 * Reads the common shape: an optional `<?xml …?>` declaration, `<ListBucketResult …>` (attributes allowed
 * on the root only, without `>` in their values), then elements. GIVE_UP for anything else.
 */
function scanListing(xml: string): Scan {
  const at = new Cursor(xml);
  at.skipSpace();
  if (xml.startsWith('<?xml', at.i)) {
    const end = xml.indexOf('?>', at.i);
    if (end < 0) return GIVE_UP;
    at.i = end + 2;
    at.skipSpace();
  }
  if (!xml.startsWith(`<${ROOT}`, at.i)) return GIVE_UP;
  const rootEnd = xml.indexOf('>', at.i);
  const afterName = xml.charCodeAt(at.i + ROOT.length + 1);
  if (rootEnd < 0 || (afterName !== 62 && afterName !== 32) || /["'<]/.test(xml.slice(at.i + 1, rootEnd).replace(/="[^"<>]*"/g, ''))) return GIVE_UP;
  if (xml.charCodeAt(rootEnd - 1) === 47 /* self-closing root */) return GIVE_UP;
  at.i = rootEnd + 1;
  const listing: RawListing = { contents: [], prefixes: [], isTruncated: undefined };
  for (;;) {
    at.skipSpace();
    if (at.closeTag(ROOT)) return at.atEnd() ? listing : GIVE_UP;
    const name = at.openTag();
    if (name === undefined) return GIVE_UP;
    if (name === 'Contents') {
      const entry: RawEntry = {};
      if (!element(at, name, ENTRY_FIELDS, entry)) return GIVE_UP;
      listing.contents.push(entry);
    } else if (name === 'CommonPrefixes') {
      const common: { prefix?: string } = {};
      if (!element(at, name, PREFIX_FIELDS, common)) return GIVE_UP;
      listing.prefixes.push(common.prefix);
    } else {
      const value = leaf(at, name);
      if (value === undefined) return GIVE_UP;
      if (name === 'IsTruncated' && listing.isTruncated === undefined) listing.isTruncated = value;
    }
  }
}

/** Text content and the end tag of a leaf element whose start tag was read. */
function leaf(at: Cursor, name: string): string | undefined {
  const value = at.text();
  return value !== undefined && at.closeTag(name) ? value : undefined;
}

/**
 * An element with children (its start tag read): the text of each leaf child named in `fields` goes to its
 * slot in `out` (the first one counts); other children are skipped, and a child with children of its own
 * (Owner) is read through. False for anything else: text beside elements, an element with neither, or a
 * wanted field holding elements (each of which the parser would read differently).
 */
function element<K extends string>(at: Cursor, name: string, fields: ReadonlyMap<string, K>, out: Partial<Record<K, string>>, depth = 1): boolean {
  let children = 0;
  for (;;) {
    at.skipSpace();
    if (at.closeTag(name)) return children > 0;
    const child = at.openTag();
    if (child === undefined) return false;
    children++;
    const start = at.i;
    const value = at.text();
    if (value === undefined) return false;
    const slot = fields.get(child);
    if (at.closeTag(child)) {
      if (slot !== undefined && out[slot] === undefined) out[slot] = value;
      continue;
    }
    // Not a leaf: only whitespace may stand before its first child.
    if (slot !== undefined || depth >= MAX_ENTRY_DEPTH || value.trim() !== '') return false;
    at.i = start;
    if (!element(at, child, NO_FIELDS, {}, depth + 1)) return false;
  }
}
