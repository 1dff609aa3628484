/**
 * ListMultipartUploads: asked of the backend under `backend_prefix` (keys URL-encoded so any key survives the
 * XML), answered in the virtual bucket's name and key space. As object listings do (objects.ts), it
 * reads only the key ranges the caller may list, one after another, and its markers are the last upload (or
 * common prefix) it showed: never a backend marker, which could name an upload the caller may not see.
 */
import type { KeyRange } from '../auth/scopes';
import type { BucketContext } from '../context';
import { notImplemented } from '../errors';
import type { ProxyResponse } from '../http';
import type { ClientAddress } from '../path-mapping';
import type { Query } from '../query';
import { childOf, listOf, textOf, type ParsedXml } from '../xml';
import { documentResponse, s3StoreOf, toXmlNode } from '../operations/backend-response';
import { listableRanges, type Access } from '../auth/authorize';
import { GATEWAY_OWNER, foldedPrefix, isAfter, straddles } from './objects';
import {
  BackendAnswer,
  BackendPages,
  MAX_BACKEND_PAGES,
  Shown,
  clientNames,
  endsBefore,
  markerParams,
  pastStart,
  startOf,
  within,
  type Listed,
  type MarkerListing,
  type MarkerParams,
  type Position,
} from './markers';
import { respond, type Handler } from '../operations/operation';

const UPLOADS: MarkerListing<Listed> = { subresource: 'uploads', root: 'ListMultipartUploadsResult', maxName: 'max-uploads', idMarkerName: 'upload-id-marker', entriesOf: uploadsOf };

/** Reads the listing parameters, with S3's defaults and limits. */
export function listUploadsParams(q: Query): MarkerParams {
  return markerParams(q, UPLOADS);
}

/** Backend page size when looking for the uploads of one exact key among the keys that start with it. */
const SCAN_PAGE = 1000;

/** ListMultipartUploads (authorized as `list_bucket` on its prefix; uploads in progress are never anonymous). */
export const listMultipartUploads: Handler<'ListMultipartUploads'> = async (_op, ctx, _services, access) =>
  respond(await listUploads(ctx, listUploadsParams(ctx.query), { bucket: ctx.bucket.name, keyPrefix: '' }, access));

/**
 * The listing of `ctx`'s bucket (already authorized on `params.prefix` under `access`) as the client addressed it (`address`: with path mapping, a client-level
 * bucket whose keys for this bucket start with `keyPrefix`, which `params.prefix` then starts with too).
 */
export async function listUploads(ctx: BucketContext, params: MarkerParams, address: ClientAddress, access: Access): Promise<ProxyResponse> {
  if (ctx.store.multipart !== undefined) return noUploads(ctx, params, address);
  const store = s3StoreOf(ctx, 'ListMultipartUploads');
  const base = address.keyPrefix;
  const prefix = params.prefix.slice(base.length);
  const { delimiter } = params;
  const start = startOf(params, base);
  const { keyMarker, idMarker: uploadIdMarker, max: maxUploads } = start;
  const shown = new Shown<Listed>();
  const backend = new BackendPages(ctx, store, UPLOADS, delimiter);
  let pages = 0;
  let truncated = false;
  /**
   * The uploads of the key `range.prefix` after `marker`, at most `max`, and whether more follow. They are
   * found among every key starting with it (`data` lists `database/…` too), read until past them: after a
   * key that continues with a character above "." (S3 lists by key, RGW by `key.uploadId`, where `data-x`
   * sorts before `data`'s own uploads and `data/x` after them).
   */
  const exactUploads = async (range: KeyRange, max: number, marker: Position | undefined): Promise<{ found: Listed[]; more: boolean }> => {
    const found: Listed[] = [];
    let from = marker;
    for (;;) {
      const page = await backend.read(range, SCAN_PAGE, from, false);
      let passed = false;
      for (const upload of page.entries) {
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
    walk: for (const range of listableRanges(ctx.identity, access, ctx.bucket, prefix)) {
      if (maxUploads === 0) break;
      const full = range.prefix;
      if (keyMarker !== undefined && endsBefore(range, keyMarker, uploadIdMarker)) continue;
      const inside: Position | undefined = keyMarker !== undefined && keyMarker.startsWith(full) ? { key: keyMarker, id: uploadIdMarker } : undefined;
      const cp = delimiter === undefined ? undefined : foldedPrefix(full, prefix.length, delimiter);
      if (cp !== undefined) {
        // Shown only after the position, so every upload in the range is after it (objects.ts).
        if (shown.endsWith(cp) || !isAfter(cp, keyMarker)) continue;
        if (shown.count >= maxUploads) {
          truncated = true;
          break;
        }
        const holds = range.exact ? (await exactUploads(range, 1, undefined)).found.length > 0 : (await backend.read(range, 1, undefined, false)).entries.some((u) => within(range, u.key));
        if (holds) shown.prefix(cp);
        continue;
      }
      if (shown.count >= maxUploads) {
        truncated = true;
        break;
      }
      if (range.exact) {
        const { found, more } = await exactUploads(range, maxUploads - shown.count, inside);
        for (const upload of found) shown.entry(upload);
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
        const page = await backend.read(range, maxUploads - shown.count, marker, true);
        for (const upload of page.entries) if (within(range, upload.key) && pastStart(start, upload.key) && shown.count < maxUploads) shown.entry(upload);
        for (const p of page.prefixes) if (p.startsWith(full) && shown.count < maxUploads) shown.prefix(p);
        if (page.next === undefined) break;
        if (shown.count >= maxUploads) {
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
  const next = truncated ? shown.next(params, start) : undefined;
  const { encode, client } = clientNames(params, base);
  return documentResponse(
    'ListMultipartUploadsResult',
    {
      Bucket: address.bucket,
      KeyMarker: encode(params.keyMarker ?? ''),
      UploadIdMarker: params.idMarker ?? '',
      NextKeyMarker: next === undefined ? undefined : client(next.key),
      NextUploadIdMarker: next?.id,
      Prefix: encode(params.prefix),
      Delimiter: delimiter === undefined ? undefined : encode(delimiter),
      MaxUploads: params.max,
      EncodingType: params.encodeUrl ? 'url' : undefined,
      IsTruncated: next !== undefined,
      Upload: shown.entries.map((u) => Object.assign(toXmlNode(u.node), { Key: client(u.key), Initiator: GATEWAY_OWNER, Owner: GATEWAY_OWNER })),
      CommonPrefixes: shown.prefixes.map((p) => ({ Prefix: client(p) })),
    },
    ctx.requestId,
    backend.headers,
  );
}

/**
 * The listing of a store whose uploads the gateway carries out itself (`multipart`: Azure): empty. Nothing
 * records them (their ids are sealed, docs/backends.md), and Azure shows a blob's uncommitted blocks only
 * while the key has no committed blob, without an upload's id or date.
 */
function noUploads(ctx: BucketContext, params: MarkerParams, address: ClientAddress): ProxyResponse {
  const { encode } = clientNames(params, address.keyPrefix);
  return documentResponse(
    'ListMultipartUploadsResult',
    {
      Bucket: address.bucket,
      KeyMarker: encode(params.keyMarker ?? ''),
      UploadIdMarker: params.idMarker ?? '',
      Prefix: encode(params.prefix),
      Delimiter: params.delimiter === undefined ? undefined : encode(params.delimiter),
      MaxUploads: params.max,
      EncodingType: params.encodeUrl ? 'url' : undefined,
      IsTruncated: false,
    },
    ctx.requestId,
  );
}

/** A page's uploads. */
function uploadsOf(result: ParsedXml, _text: string, virtual: (node: ParsedXml | undefined) => string | undefined): Listed[] {
  const uploads: Listed[] = [];
  for (const node of listOf(result, 'Upload')) {
    const key = virtual(childOf(node, 'Key'));
    if (key !== undefined) uploads.push({ key, id: textOf(childOf(node, 'UploadId')) ?? '', node });
  }
  return uploads;
}
