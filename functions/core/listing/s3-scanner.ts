/**
 * The scanner behind readS3Listing (s3-page.ts): reads a ListBucketResult of the shape S3 implementations
 * send, piece by piece as the body arrives, and gives up on anything else (the general parser decides then).
 *
 * Fed piece by piece, it never holds the whole document as one string: only the unread tail of the last
 * piece and the entries read so far. A string over ~128 KB goes to V8's large-object space, a fresh mapping
 * per string; on the bench machine decoding a 290 KB page into one string took ~7x as long per byte as
 * decoding it in 64 KB pieces, and flattening the whole page cost as much again.
 *
 * The shape: an optional `<?xml …?>` declaration, `<ListBucketResult …>` (attributes allowed on the root
 * only, quoted, without `<` or `>` in them), then elements without attributes, whose text holds no markup
 * (no comment, CDATA or processing instruction) and only the references parseXml decodes; fields below the
 * root may be empty elements. Entries may hold one more level (Owner's ID). Anything else makes the scanner
 * give up.
 */
import { COMPACT_ENTRY, COMPACT_PREFIX, compactEntry, compactPrefix } from './compact';
import { Cursor, EMPTY_ELEMENT, FAILED, MORE, PieceScanner, type Step } from './scanner';

/** The fields of a listing the gateway uses, as the backend wrote them (entities decoded, keys still URL-encoded). */
export interface RawListing {
  readonly contents: RawEntry[];
  readonly prefixes: (string | undefined)[];
  isTruncated: string | undefined;
  /** Sent by GCS's XML API (and S3's V1 with a delimiter); the S3 store pages by its own markers. */
  nextMarker: string | undefined;
  /** `url` when the store URL-encoded the names it lists (one that ignores `encoding-type` sends none). */
  encodingType: string | undefined;
}

export interface RawEntry {
  key?: string;
  lastModified?: string;
  etag?: string;
  size?: string;
  storageClass?: string;
}

/** Fields of an entry by element name; other children (Owner, Type, ChecksumAlgorithm…) are skipped. */
type Fields<K extends string> = ReadonlyArray<readonly [name: string, slot: K]>;
const ENTRY_FIELDS: Fields<keyof RawEntry> = [['Key', 'key'], ['LastModified', 'lastModified'], ['ETag', 'etag'], ['Size', 'size'], ['StorageClass', 'storageClass']];
const PREFIX_FIELDS: Fields<'prefix'> = [['Prefix', 'prefix']];
const NO_FIELDS: Fields<string> = [];
const ROOT = 'ListBucketResult';
/** Elements inside an entry may hold one more level (Owner's ID); anything deeper is not a listing's shape. */
const MAX_ENTRY_DEPTH = 2;

export class ListingScanner extends PieceScanner<RawListing> {
  readonly listing: RawListing = { contents: [], prefixes: [], isTruncated: undefined, nextMarker: undefined, encodingType: undefined };

  constructor() {
    super(ROOT);
  }

  protected result(): RawListing {
    return this.listing;
  }

  /** Reads one element below the root (or the root's end tag) once all of it has arrived. */
  protected element(at: Cursor): Step {
    const xml = at.xml;
    const start = at.i;
    if (at.closeTag(ROOT)) {
      this.finish();
      return true;
    }
    if (xml.startsWith('<Contents>', start)) {
      let entry = compactEntry(xml, start);
      if (entry !== undefined) {
        // Entries come back to back: read the run here rather than one per call.
        const contents = this.listing.contents;
        do {
          contents.push(entry);
          at.i = COMPACT_ENTRY.lastIndex;
          entry = xml.startsWith('<Contents>', at.i) ? compactEntry(xml, at.i) : undefined;
        } while (entry !== undefined);
        return true;
      }
    } else if (xml.startsWith('<CommonPrefixes>', start)) {
      const prefix = compactPrefix(xml, start);
      if (prefix !== undefined) {
        this.listing.prefixes.push(prefix);
        at.i = COMPACT_PREFIX.lastIndex;
        return true;
      }
    }
    const listing = this.listing;
    EMPTY_ELEMENT.lastIndex = start;
    const empty = EMPTY_ELEMENT.exec(xml);
    if (empty !== null) {
      // `<Prefix/>`, as GCS writes an empty field; an entry without fields is left to the parser.
      const name = empty[1];
      if (name === 'Contents' || name === 'CommonPrefixes') return FAILED;
      at.i = EMPTY_ELEMENT.lastIndex;
      rootField(listing, name, '');
      return true;
    }
    const name = at.openTag();
    if (name === undefined) return FAILED;
    if (xml.indexOf(`</${name}>`, at.i) < 0) {
      at.i = start;
      return MORE;
    }
    if (name === 'Contents') {
      const entry: RawEntry = {};
      if (!children(at, start + 1, name.length, ENTRY_FIELDS, entry)) return FAILED;
      listing.contents.push(entry);
    } else if (name === 'CommonPrefixes') {
      const common: { prefix?: string } = {};
      if (!children(at, start + 1, name.length, PREFIX_FIELDS, common)) return FAILED;
      listing.prefixes.push(common.prefix);
    } else {
      const value = at.text();
      if (value === undefined || !at.closeTag(name)) return FAILED;
      rootField(listing, name, value);
    }
    return true;
  }
}

/** A field below the root: the first of each counts, as the parser's textOf takes it. */
function rootField(listing: RawListing, name: string, value: string): void {
  if (name === 'IsTruncated') listing.isTruncated ??= value;
  else if (name === 'NextMarker') listing.nextMarker ??= value;
  else if (name === 'EncodingType') listing.encodingType ??= value;
}

/**
 * An element with children (its start tag read; its name at `nameStart`): the text of each leaf child named
 * in `fields` goes to its slot in `out` (the first one counts); other children are skipped, and a child with
 * children of its own (Owner) is read through. False for anything else: text beside elements, an element
 * with neither, or a wanted field holding elements (each of which the parser would read differently). Names
 * are compared where they stand and only the wanted values are cut out: most of a page is neither.
 */
function children<K extends string>(at: Cursor, nameStart: number, nameLength: number, fields: Fields<K>, out: Partial<Record<K, string>>, depth = 1): boolean {
  let count = 0;
  for (;;) {
    at.skipSpace();
    if (at.closeAt(nameStart, nameLength)) return count > 0;
    const childLength = at.openName();
    if (childLength < 0) return false;
    count++;
    const childStart = at.i - childLength - 1;
    const slot = fieldAt(at.xml, childStart, childLength, fields);
    const start = at.i;
    const value = slot === undefined ? at.skipText() : at.text();
    if (value === undefined) return false;
    if (at.closeAt(childStart, childLength)) {
      if (slot !== undefined && out[slot] === undefined) out[slot] = value;
      continue;
    }
    // Not a leaf: only whitespace may stand before its first child.
    if (slot !== undefined || depth >= MAX_ENTRY_DEPTH || !at.blankSince(start)) return false;
    at.i = start;
    if (!children(at, childStart, childLength, NO_FIELDS, {}, depth + 1)) return false;
  }
}

/** The slot of the field whose name stands at `start`, if it is one of `fields`. */
function fieldAt<K extends string>(xml: string, start: number, length: number, fields: Fields<K>): K | undefined {
  for (let f = 0; f < fields.length; f++) {
    const [name, slot] = fields[f];
    if (name.length === length && xml.startsWith(name, start)) return slot;
  }
  return undefined;
}

