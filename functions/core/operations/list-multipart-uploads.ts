/**
 * ListMultipartUploads: asked of the backend under `backend_prefix` (keys URL-encoded so any key survives the
 * XML), answered in the virtual bucket's name and key space. As object listings do (list-objects.ts), it
 * reads only the key ranges the caller may list, one after another, and its markers are the last upload (or
 * common prefix) it showed: never a backend marker, which could name an upload the caller may not see.
 */
import type { KeyRange } from '../auth/scopes';
import { compareKeys, decodeListedKey, encodeKey } from '../keys';
import type { S3Store } from '../backends/s3';
import { notImplemented } from '../errors';
import type { ProxyResponse } from '../http';
import { childOf, listOf, textOf, type ParsedXml } from '../xml';
import { documentHeaders, documentResponse, readDocument, s3StoreOf, toXmlNode } from './backend-response';
import { backendCall, type BucketContext } from '../context';
import { GATEWAY_OWNER, foldedPrefix, isAfter, listableRanges, straddles } from './list-objects';
import { encodesUrl, maxEntries } from './listing-params';
import { authorizeKey, respond, type Handler } from './operation';
import { markerInside, type ClientAddress } from '../path-mapping';
import type { Query } from '../query';

const LIST_UPLOADS = { name: 'ListMultipartUploads' } as const;

export interface ListUploadsParams {
  readonly prefix: string;
  readonly delimiter?: string;
  readonly keyMarker?: string;
  readonly uploadIdMarker?: string;
  readonly maxUploads: number;
  readonly encodeUrl: boolean;
}

/** Reads the listing parameters, with S3's defaults and limits. */
export function listUploadsParams(q: Query): ListUploadsParams {
  return {
    prefix: q.get('prefix') ?? '',
    delimiter: q.get('delimiter') || undefined,
    keyMarker: q.get('key-marker') || undefined,
    uploadIdMarker: q.get('upload-id-marker') || undefined,
    maxUploads: maxEntries(q, 'max-uploads'),
    encodeUrl: encodesUrl(q),
  };
}

/** Backend pages read for one client page before the gateway answers a short, truncated one. */
const MAX_BACKEND_PAGES = 10;
/** Backend page size when looking for the uploads of one exact key among the keys that start with it. */
const SCAN_PAGE = 1000;

/** One upload as listed: its virtual key and id, and the rest of the backend's entry. */
interface ListedUpload {
  readonly key: string;
  readonly uploadId: string;
  readonly entry: ParsedXml;
}

/** A position in an uploads listing: after this key (and upload of it, when given). */
interface UploadMarker {
  readonly key: string;
  readonly uploadId?: string;
}

/** One backend page of uploads under a prefix, in the virtual key space. */
interface UploadsPage {
  readonly uploads: ListedUpload[];
  readonly prefixes: string[];
  /** The backend's own next position (never shown: it may name an upload the caller may not see). */
  readonly next?: UploadMarker;
  readonly headers: Record<string, string>;
}

/** The backend's error, already in the virtual bucket's terms, ends the listing. */
class BackendAnswer extends Error {
  constructor(readonly response: ProxyResponse) {
    super('backend error');
  }
}

/** ListMultipartUploads, authorized as `list_bucket` on its prefix; uploads in progress are never anonymous. */
export const listMultipartUploads: Handler<'ListMultipartUploads'> = async (_op, ctx) =>
  respond(await listUploads(ctx, listUploadsParams(ctx.query), { bucket: ctx.bucket.name, keyPrefix: '' }));

/**
 * The listing of `ctx`'s bucket as the client addressed it (`address`: with path mapping, a client-level
 * bucket whose keys for this bucket start with `keyPrefix`, which `params.prefix` then starts with too).
 */
export async function listUploads(ctx: BucketContext, params: ListUploadsParams, address: ClientAddress): Promise<ProxyResponse> {
  const store = s3StoreOf(ctx, 'ListMultipartUploads');
  const base = address.keyPrefix;
  const prefix = params.prefix.slice(base.length);
  authorizeKey(ctx, LIST_UPLOADS, prefix);
  const { delimiter } = params;
  const start = markerInside(params.keyMarker, base);
  const maxUploads = start.pastEnd ? 0 : params.maxUploads;
  const keyMarker = start.marker;
  const uploadIdMarker = keyMarker === undefined ? undefined : params.uploadIdMarker;
  const uploads: ListedUpload[] = [];
  const prefixes: string[] = [];
  let last: UploadMarker | undefined;
  let headers: Record<string, string> = {};
  let pages = 0;
  let truncated = false;
  const count = (): number => uploads.length + prefixes.length;
  const emitPrefix = (cp: string): void => {
    if (prefixes[prefixes.length - 1] === cp) return;
    prefixes.push(cp);
    if (last === undefined || compareKeys(cp, last.key) > 0) last = { key: cp };
  };
  const emitUpload = (upload: ListedUpload): void => {
    uploads.push(upload);
    if (last === undefined || compareKeys(upload.key, last.key) >= 0) last = { key: upload.key, uploadId: upload.uploadId };
  };
  // S3 starts after every upload of a key marker given alone (RGW would list them again).
  const shown = (upload: ListedUpload): boolean => uploadIdMarker !== undefined || upload.key !== keyMarker;
  const fetch = async (range: KeyRange, max: number, marker: UploadMarker | undefined, withDelimiter: boolean): Promise<UploadsPage> => {
    const page = await uploadsPage(ctx, store, range.prefix, withDelimiter ? delimiter : undefined, max, marker);
    headers = page.headers;
    return page;
  };
  /**
   * The uploads of the key `range.prefix` after `marker`, at most `max`, and whether more follow. They are
   * found among every key starting with it (`data` lists `database/…` too), read until past them: after a
   * key that continues with a character above "." (S3 lists by key, RGW by `key.uploadId`, where `data-x`
   * sorts before `data`'s own uploads and `data/x` after them).
   */
  const exactUploads = async (range: KeyRange, max: number, marker: UploadMarker | undefined): Promise<{ found: ListedUpload[]; more: boolean }> => {
    const found: ListedUpload[] = [];
    let from = marker;
    for (;;) {
      const page = await fetch(range, SCAN_PAGE, from, false);
      let passed = false;
      for (const upload of page.uploads) {
        if (upload.key !== range.prefix) {
          passed ||= found.length > 0 || upload.key.charCodeAt(range.prefix.length) > 0x2e;
          continue;
        }
        if (found.length === max) return { found, more: true };
        found.push(upload);
      }
      if (passed || page.next === undefined) return { found, more: false };
      from = page.next;
    }
  };

  try {
    walk: for (const range of listableRanges(ctx, prefix)) {
      if (maxUploads === 0) break;
      const full = range.prefix;
      if (keyMarker !== undefined && (range.exact ? compareKeys(full, keyMarker) < 0 || (full === keyMarker && uploadIdMarker === undefined) : !keyMarker.startsWith(full) && compareKeys(keyMarker, full) > 0)) continue;
      const inside: UploadMarker | undefined = keyMarker !== undefined && keyMarker.startsWith(full) ? { key: keyMarker, uploadId: uploadIdMarker } : undefined;
      const cp = delimiter === undefined ? undefined : foldedPrefix(full, prefix.length, delimiter);
      if (cp !== undefined) {
        // Shown only after the position, so every upload in the range is after it (list-objects.ts).
        if (prefixes[prefixes.length - 1] === cp || !isAfter(cp, keyMarker)) continue;
        if (count() >= maxUploads) {
          truncated = true;
          break;
        }
        const holds = range.exact ? (await exactUploads(range, 1, undefined)).found.length > 0 : (await fetch(range, 1, undefined, false)).uploads.some((u) => within(range, u.key));
        if (holds) emitPrefix(cp);
        continue;
      }
      if (count() >= maxUploads) {
        truncated = true;
        break;
      }
      if (range.exact) {
        const { found, more } = await exactUploads(range, maxUploads - count(), inside);
        found.forEach(emitUpload);
        if (more) {
          truncated = true;
          break;
        }
        continue;
      }
      if (delimiter !== undefined && straddles(full, prefix.length, delimiter)) {
        throw notImplemented('A delimiter that can begin inside a granted prefix and end after it');
      }
      let marker = inside;
      for (;;) {
        if (pages++ >= MAX_BACKEND_PAGES) {
          truncated = true;
          break walk;
        }
        const page = await fetch(range, maxUploads - count(), marker, true);
        for (const upload of page.uploads) if (within(range, upload.key) && shown(upload) && count() < maxUploads) emitUpload(upload);
        for (const p of page.prefixes) if (p.startsWith(full) && count() < maxUploads) emitPrefix(p);
        if (page.next === undefined) break;
        if (count() >= maxUploads) {
          truncated = true;
          break walk;
        }
        marker = page.next;
      }
    }
  } catch (err) {
    if (err instanceof BackendAnswer) return err.response;
    throw err;
  }
  // Only what was shown names the next page.
  const next = truncated ? (last ?? (keyMarker === undefined ? undefined : { key: keyMarker, uploadId: uploadIdMarker })) : undefined;
  const encode = (value: string): string => (params.encodeUrl ? encodeKey(value) : value);
  const client = (key: string): string => encode(base + key);
  return documentResponse(
    'ListMultipartUploadsResult',
    {
      Bucket: address.bucket,
      KeyMarker: encode(params.keyMarker ?? ''),
      UploadIdMarker: params.uploadIdMarker ?? '',
      NextKeyMarker: next === undefined ? undefined : client(next.key),
      NextUploadIdMarker: next?.uploadId,
      Prefix: encode(params.prefix),
      Delimiter: delimiter === undefined ? undefined : encode(delimiter),
      MaxUploads: params.maxUploads,
      EncodingType: params.encodeUrl ? 'url' : undefined,
      IsTruncated: next !== undefined,
      Upload: uploads.map((u) => Object.assign(toXmlNode(u.entry), { Key: client(u.key), Initiator: GATEWAY_OWNER, Owner: GATEWAY_OWNER })),
      CommonPrefixes: prefixes.map((p) => ({ Prefix: client(p) })),
    },
    ctx.requestId,
    headers,
  );
}

/** Whether `key` belongs to `range`. */
function within(range: KeyRange, key: string): boolean {
  return range.exact ? key === range.prefix : key.startsWith(range.prefix);
}

/** One backend ListMultipartUploads page under `prefix`, in the virtual key space. */
async function uploadsPage(
  ctx: BucketContext,
  store: S3Store,
  prefix: string,
  delimiter: string | undefined,
  maxUploads: number,
  marker: { key: string; uploadId?: string } | undefined,
): Promise<UploadsPage> {
  const query: Record<string, string> = { uploads: '', 'encoding-type': 'url', 'max-uploads': String(Math.max(1, maxUploads)), prefix: store.backendKey(prefix) };
  if (delimiter) query.delimiter = delimiter;
  if (marker !== undefined) {
    query['key-marker'] = store.backendKey(marker.key);
    if (marker.uploadId) query['upload-id-marker'] = marker.uploadId;
  }
  const response = await store.send({ method: 'GET', query, headers: {} }, backendCall(ctx));
  const read = await readDocument(response, 'ListMultipartUploadsResult', ctx);
  if (read.response) throw new BackendAnswer(read.response);
  const result = read.document;
  /** A backend key (URL-encoded by request) in the virtual space, or undefined outside the prefix. */
  const virtual = (node: ParsedXml | undefined): string | undefined => {
    const raw = textOf(node);
    if (raw === undefined || raw === '') return undefined;
    return store.virtualKey(decodeListedKey(raw));
  };
  // The next page starts after the last entry listed, not at NextKeyMarker: RGW writes that one unencoded
  // whatever `encoding-type` asked, so a key holding `%` would be read as another.
  const uploads: ListedUpload[] = [];
  let lastSeen: UploadMarker | undefined;
  for (const upload of listOf(result, 'Upload')) {
    const key = virtual(childOf(upload, 'Key'));
    if (key === undefined) continue;
    const uploadId = textOf(childOf(upload, 'UploadId')) ?? '';
    uploads.push({ key, uploadId, entry: upload });
    lastSeen = { key, uploadId };
  }
  const prefixes: string[] = [];
  for (const cp of listOf(result, 'CommonPrefixes')) {
    const p = virtual(childOf(cp, 'Prefix'));
    if (p === undefined) continue;
    prefixes.push(p);
    if (lastSeen === undefined || compareKeys(p, lastSeen.key) > 0) lastSeen = { key: p };
  }
  const more = textOf(childOf(result, 'IsTruncated')) === 'true' && lastSeen !== undefined;
  return { uploads, prefixes, next: more ? lastSeen : undefined, headers: documentHeaders(response) };
}
