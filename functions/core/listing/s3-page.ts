/**
 * An S3 backend's ListBucketResult read into a page in the client's key space: keys URL-decoded when the
 * store says it encoded them (the gateway asks for `encoding-type=url`; s3rver, for one, ignores it and
 * lists names as they are), the backend prefix stripped, entries outside it dropped.
 *
 * A listing page is the largest document the gateway reads on a hot path (~290 KB for 1,000 keys from RGW).
 * Building the general parser's tree for it and walking the tree again took most of a page's CPU, so the
 * page is first read by a scanner (s3-scanner.ts) that knows the shape every S3 implementation sends,
 * piece by piece as the body arrives. Anything else (a comment, CDATA, an attribute, mixed content, deeper
 * nesting) makes it give up, and the general hardened parser reads the whole document instead: the scanner
 * never decides a hostile document, it only recognises the common one. Both give the same page for any
 * document the scanner accepts (a spec compares them).
 */
import { decodeListedKey } from '../keys';
import { childOf, listOf, parseXml, textOf, type ParsedXml } from '../xml';
import { relativeKey } from './paging';
import { ListingScanner, type RawListing } from './s3-scanner';
import { UNRECOGNISED, scanOrParse } from './scanner';

export { UNRECOGNISED };
import type { ListEntry, ListPage } from '../backends/store';

/** The page in a listing's body as it arrives, or undefined when it is no readable ListBucketResult. */
export async function readS3ListingBody(body: ReadableStream<Uint8Array> | null, backendPrefix: string): Promise<ListPage | undefined> {
  const raw = await readListBucketResultBody(body);
  return raw === undefined ? undefined : toPage(raw, backendPrefix);
}

/**
 * A ListBucketResult's fields as the backend wrote them, read from its body as it arrives (GCS's XML API
 * answers in this shape too): undefined when it is no readable ListBucketResult.
 */
export async function readListBucketResultBody(body: ReadableStream<Uint8Array> | null): Promise<RawListing | undefined> {
  return scanOrParse(body, new ListingScanner(), parseListBucketResult);
}

/** The page in `xml`, or undefined when it is no readable ListBucketResult. */
export function readS3Listing(xml: string, backendPrefix: string): ListPage | undefined {
  const scanned = scanS3Listing(xml, backendPrefix);
  return scanned === UNRECOGNISED ? parseS3Listing(xml, backendPrefix) : scanned;
}

/** The scanner alone, fed `pieces` in turn: the page, or UNRECOGNISED when the general parser must decide. */
export function scanS3Listing(xml: string | readonly string[], backendPrefix: string): ListPage | typeof UNRECOGNISED {
  const raw = new ListingScanner().read(xml);
  return raw === undefined ? UNRECOGNISED : toPage(raw, backendPrefix);
}

/** The general parser's reading: what readS3Listing answers for any document the scanner does not recognise. */
export function parseS3Listing(xml: string, backendPrefix: string): ListPage | undefined {
  const raw = parseListBucketResult(xml);
  return raw === undefined ? undefined : toPage(raw, backendPrefix);
}

/** The general parser's reading of a ListBucketResult's fields. */
export function parseListBucketResult(xml: string): RawListing | undefined {
  const doc = childOf(parseXml(xml), 'ListBucketResult');
  return doc === undefined ? undefined : fromTree(doc);
}

/** A backend listing with keys URL-decoded and the backend prefix stripped. */
function toPage(raw: RawListing, backendPrefix: string): ListPage {
  const urlEncoded = raw.encodingType?.toLowerCase() === 'url';
  const strip = (value: string | undefined): string | undefined => {
    if (value === undefined) return undefined;
    return relativeKey(urlEncoded ? decodeListedKey(value) : value, backendPrefix);
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
    nextMarker: field(doc, 'NextMarker'),
    encodingType: field(doc, 'EncodingType'),
  };
}
