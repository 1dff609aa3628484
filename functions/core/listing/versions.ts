/**
 * ListObjectVersions (`GET /{bucket}?versions`), S3 backends only: asked of the backend under
 * `backend_prefix` (keys URL-encoded so any key survives the XML), answered in the virtual bucket's name and
 * key space with the gateway as every owner. As object listings do (objects.ts), it reads only the key
 * ranges the caller may list with `list_bucket_versions`, one after another, and its next markers are the
 * last version (or common prefix) it showed, never a backend marker. Versions and delete markers keep the
 * backend's interleaved order (newest first within a key).
 */
import { listableRanges, type Access } from '../auth/authorize';
import type { BucketContext } from '../context';
import { notImplemented } from '../errors';
import type { ProxyResponse } from '../http';
import type { ClientAddress } from '../path-mapping';
import type { Query } from '../query';
import { XmlSequence, childOf, listOf, textOf, type ParsedXml, type XmlNode } from '../xml';
import { documentResponse, s3StoreOf, toXmlNode } from '../operations/backend-response';
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

const VERSIONS: MarkerListing<Entry> = { subresource: 'versions', root: 'ListVersionsResult', maxName: 'max-keys', idMarkerName: 'version-id-marker', entriesOf: versionsOf };

/** Reads the listing parameters, with S3's defaults and limits. */
export function listVersionsParams(query: Query): MarkerParams {
  return markerParams(query, VERSIONS);
}

/** ListObjectVersions on a virtual bucket (authorized as `list_bucket_versions` on its prefix; never anonymous). */
export const listObjectVersions: Handler<'ListObjectVersions'> = async (_op, ctx, _services, access) =>
  respond(await listVersions(ctx, listVersionsParams(ctx.query), { bucket: ctx.bucket.name, keyPrefix: '' }, access));

/** A version or a delete marker, in the virtual key space, with the rest of the backend's entry. */
interface Entry extends Listed {
  readonly kind: 'Version' | 'DeleteMarker';
}

/**
 * The listing of `ctx`'s bucket (already authorized on `params.prefix` under `access`) as the client addressed it (`address`: with path mapping, a client-level
 * bucket whose keys for this bucket start with `keyPrefix`, which `params.prefix` then starts with too).
 */
export async function listVersions(ctx: BucketContext, params: MarkerParams, address: ClientAddress, access: Access): Promise<ProxyResponse> {
  const store = s3StoreOf(ctx, 'ListObjectVersions');
  const base = address.keyPrefix;
  const prefix = params.prefix.slice(base.length);
  const start = startOf(params, base);
  const { keyMarker, idMarker: versionIdMarker, max } = start;
  const { delimiter } = params;
  const shown = new Shown<Entry>();
  const backend = new BackendPages(ctx, store, VERSIONS, delimiter);
  let pages = 0;
  let truncated = false;

  try {
    walk: for (const range of listableRanges(ctx.identity, access, ctx.bucket, prefix)) {
      if (max === 0) break;
      const full = range.prefix;
      if (keyMarker !== undefined && endsBefore(range, keyMarker, versionIdMarker)) continue;
      const inside: Position | undefined = keyMarker !== undefined && keyMarker.startsWith(full) ? { key: keyMarker, id: versionIdMarker } : undefined;
      const cp = delimiter === undefined ? undefined : foldedPrefix(full, prefix.length, delimiter);
      if (cp !== undefined) {
        // Shown only after the position, so every version in the range is after it (objects.ts).
        if (shown.endsWith(cp) || !isAfter(cp, keyMarker)) continue;
        if (shown.count >= max) {
          truncated = true;
          break;
        }
        if ((await backend.read(range, 1, undefined, false)).entries.some((e) => within(range, e.key))) shown.prefix(cp);
        continue;
      }
      if (!range.exact && delimiter !== undefined && straddles(full, prefix.length, delimiter)) {
        throw notImplemented('A delimiter that can begin inside a granted prefix and end after it');
      }
      let marker = inside;
      for (;;) {
        if (shown.count >= max || pages++ >= MAX_BACKEND_PAGES) {
          truncated = true;
          break walk;
        }
        // An exact key's versions come first among the keys starting with it; the first other key ends them.
        const page = await backend.read(range, max - shown.count, marker, !range.exact);
        let passed = false;
        for (const entry of page.entries) {
          if (!within(range, entry.key)) {
            passed = true;
            continue;
          }
          if (!pastStart(start, entry.key)) continue;
          if (shown.count >= max) {
            truncated = true;
            break walk;
          }
          shown.entry(entry);
        }
        for (const p of page.prefixes) if (p.startsWith(full) && shown.count < max) shown.prefix(p);
        if ((range.exact && passed) || page.next === undefined) break;
        marker = page.next;
      }
    }
  } catch (err) {
    if (err instanceof BackendAnswer) return err.response;
    throw err;
  }
  const next = truncated ? shown.next(params, start) : undefined;
  const { encode, client } = clientNames(params, base);
  const node: XmlNode = {
    Name: address.bucket,
    Prefix: encode(params.prefix),
    KeyMarker: encode(params.keyMarker ?? ''),
    VersionIdMarker: params.idMarker ?? '',
    NextKeyMarker: next === undefined ? undefined : client(next.key),
    NextVersionIdMarker: next?.id,
    MaxKeys: params.max,
    Delimiter: delimiter === undefined ? undefined : encode(delimiter),
    EncodingType: params.encodeUrl ? 'url' : undefined,
    IsTruncated: next !== undefined,
    Entries: new XmlSequence(shown.entries.map((e) => [e.kind, Object.assign(toXmlNode(e.node), { Key: client(e.key), Owner: GATEWAY_OWNER })])),
    CommonPrefixes: shown.prefixes.map((p) => ({ Prefix: client(p) })),
  };
  return documentResponse('ListVersionsResult', node, ctx.requestId, backend.headers);
}

/** A page's versions and delete markers, in document order: the parsed document groups elements by name. */
function versionsOf(result: ParsedXml, text: string, virtual: (node: ParsedXml | undefined) => string | undefined): Entry[] {
  const queues = { Version: listOf(result, 'Version'), DeleteMarker: listOf(result, 'DeleteMarker') };
  const entries: Entry[] = [];
  for (const [, kind] of text.matchAll(/<(Version|DeleteMarker)>/g)) {
    const node = queues[kind as Entry['kind']].shift();
    const key = virtual(childOf(node, 'Key'));
    if (node === undefined || key === undefined) continue;
    entries.push({ kind: kind as Entry['kind'], key, id: textOf(childOf(node, 'VersionId')) ?? '', node });
  }
  return entries;
}
