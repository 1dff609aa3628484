import type { GcsBackend } from '../../config/types';
import { backendDocument } from '../../streams';
import { S3Error } from '../../errors';
import type { BackendResponse, Forward, HeaderMap } from '../../http';
import { fromBase64, toHex } from '../../bytes';
import { encodeKey } from '../../keys';
import { checkWriteIfMatch, evaluatePreconditions, preconditionFailed, preconditionResponse } from '../../preconditions';
import { invalidRange, parseRange, resolveRange } from '../../range';
import { emptyResponse } from '../../responses';
import { collectPage, relativeKey, sortItems, startPosition, toListPage, type BackendListPage, type ListItem } from '../../listing/paging';
import { compareKeys } from '../../keys';
import type { BackendCall, CopyRequest, CopyResult, ListPage, ListParams, ObjectRequest, StoreDeps } from '../store';
import { copySourceConditions, deleted, replacesMetadata, s3ErrorResponse, userMetadata } from '../translate';
import { gcsError, storageClassOf } from './errors';

/** The JSON API's largest `maxResults`. */
const MAX_RESULTS = 1000;

/** The parts of a JSON API object resource the gateway reads. */
interface ObjectResource {
  readonly name: string;
  readonly generation?: string;
  readonly size?: string;
  readonly updated?: string;
  readonly md5Hash?: string;
  readonly contentType?: string;
  readonly contentDisposition?: string;
  readonly contentEncoding?: string;
  readonly contentLanguage?: string;
  readonly cacheControl?: string;
  readonly storageClass?: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** Property fields of a JSON object resource by the S3 request header that sets them. */
const PROPERTIES: Readonly<Record<string, keyof ObjectResource>> = {
  'content-type': 'contentType',
  'content-disposition': 'contentDisposition',
  'content-encoding': 'contentEncoding',
  'content-language': 'contentLanguage',
  'cache-control': 'cacheControl',
};

/**
 * The JSON API, unsigned: for emulators that lack the XML API (firebase-tools' storage emulator). Reads
 * fetch the object resource first (the emulator's media download carries neither metadata nor
 * Last-Modified) and pin the media request to its generation; uploads are resumable sessions whose data
 * request is the Forward, so the body still streams. ETags are the hex MD5, as the XML API and S3 give.
 */
export class GcsJsonApi {
  constructor(
    private readonly backend: GcsBackend,
    private readonly deps: StoreDeps,
  ) {}

  private objectPath(name: string): string {
    return `/b/${encodeKey(this.backend.bucketName, false)}/o/${encodeKey(name, false)}`;
  }

  private async json(method: string, url: string, body: unknown, call: BackendCall | undefined): Promise<{ response: BackendResponse; value: unknown }> {
    const headers: HeaderMap = body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' };
    const response = await this.deps.client({ method, url, headers, body: body === undefined ? null : new TextEncoder().encode(JSON.stringify(body)) }, call);
    const text = await backendDocument(response.body);
    let value: unknown;
    try {
      value = text ? JSON.parse(text) : undefined;
    } catch {
      value = undefined;
    }
    return { response, value };
  }

  /** The object resource, or undefined when there is no such object. */
  private async resource(name: string, call: BackendCall): Promise<ObjectResource | undefined> {
    const { response, value } = await this.json('GET', `${this.backend.endpoint}/storage/v1${this.objectPath(name)}`, undefined, call);
    if (response.status === 404) return undefined;
    if (response.status !== 200) throw gcsError(response.status);
    return value as ObjectResource;
  }

  async forwardObject(request: ObjectRequest): Promise<Forward> {
    const name = this.backend.backendPrefix + request.key;
    if (request.method === 'DELETE') {
      const query = (await this.generationPreconditions(request, name)).join('&');
      return {
        kind: 'forward',
        request: { method: 'DELETE', url: `${this.backend.endpoint}/storage/v1${this.objectPath(name)}${query ? `?${query}` : ''}`, headers: {}, body: null },
        respond: (status) => (status < 300 || status === 404 ? deleted(request) : s3ErrorResponse(gcsError(status), request)),
      };
    }
    if (request.method === 'PUT') return this.put(request, name);
    const object = await this.resource(name, { trace: request.trace });
    if (object === undefined) throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: request.key });
    const headers = objectHeaders(object, request);
    const precondition = evaluatePreconditions(request.headers, headers.etag, object.updated);
    const media = `${this.backend.endpoint}/download/storage/v1${this.objectPath(name)}?alt=media${object.generation ? `&generation=${encodeKey(object.generation, false)}` : ''}`;
    // The size is known: a range is sent resolved, or refused as S3 refuses it (the emulator answers a
    // range past the end with an empty 206).
    const range = parseRange(request.headers.range);
    const size = Number(object.size ?? 0);
    const bytes = range === undefined ? undefined : resolveRange(range, size);
    if (range !== undefined && bytes === undefined && precondition === undefined) throw invalidRange(range, size);
    return {
      kind: 'forward',
      request: { method: precondition === undefined ? request.method : 'HEAD', url: media, headers: bytes && precondition === undefined ? { range: `bytes=${bytes.first}-${bytes.last}` } : {}, body: null },
      respond: (status, responseHeaders) => {
        if (precondition !== undefined) {
          return preconditionResponse(precondition, request.method, request.requestId, `/${request.key}`, { etag: headers.etag, 'last-modified': headers['last-modified'] });
        }
        if (status >= 400) return s3ErrorResponse(gcsError(status), request);
        const out: HeaderMap = Object.assign({}, headers);
        for (const h of ['content-length', 'content-range', 'accept-ranges']) {
          const value = responseHeaders.get(h);
          if (value !== null) out[h] = value;
        }
        // The emulator's HEAD carries no length; S3 clients need it.
        if (request.method === 'HEAD' && out['content-length'] === undefined) out['content-length'] = object.size ?? '0';
        return { status, headers: out };
      },
    };
  }

  /**
   * A write's or delete's preconditions as generation preconditions, which the JSON API enforces
   * atomically: `If-None-Match: *` is generation 0, and `If-Match` is read against the object's ETag and
   * pinned to its generation. The emulator ignores them, so the gateway checks first as well; their form
   * was checked with the request (checkWritePreconditions).
   */
  private async generationPreconditions(request: ObjectRequest, name: string): Promise<string[]> {
    const ifNoneMatch = request.headers['if-none-match'];
    const ifMatch = request.headers['if-match'];
    if (ifNoneMatch === undefined && ifMatch === undefined) return [];
    const current = await this.resource(name, { trace: request.trace });
    if (ifNoneMatch !== undefined) {
      if (current !== undefined) throw preconditionFailed();
      return ['ifGenerationMatch=0'];
    }
    checkWriteIfMatch(ifMatch ?? '', current && etagOf(current), request.key);
    return current?.generation ? [`ifGenerationMatch=${encodeKey(current.generation, false)}`] : [];
  }

  /** A resumable session carries name, properties and metadata; its data request is the Forward. */
  private async put(request: ObjectRequest, name: string): Promise<Forward> {
    const resource: Record<string, unknown> = { name };
    for (const [header, field] of Object.entries(PROPERTIES)) if (request.headers[header] !== undefined) resource[field] = request.headers[header];
    const metadata = Object.fromEntries(userMetadata(request.headers));
    if (Object.keys(metadata).length > 0) resource.metadata = metadata;
    const query = [`uploadType=resumable`, `name=${encodeKey(name, false)}`];
    query.push(...(await this.generationPreconditions(request, name)));
    const url = `${this.backend.endpoint}/upload/storage/v1/b/${encodeKey(this.backend.bucketName, false)}/o?${query.join('&')}`;
    const { response } = await this.json('POST', url, resource, { trace: request.trace });
    const session = response.headers.get('location');
    if (response.status !== 200 || !session) throw gcsError(response.status === 200 ? 502 : response.status);
    const headers: HeaderMap = {};
    if (request.headers['content-length'] !== undefined) headers['content-length'] = request.headers['content-length'];
    return {
      kind: 'forward',
      request: { method: 'PUT', url: session, headers, body: request.body ?? null },
      // The answer is the new object's JSON resource: its MD5 is the ETag S3's PutObject answers, with an
      // empty body. An unreadable resource still means the object was stored.
      respond: (status) =>
        status < 300
          ? { maxBytes: RESOURCE_MAX_BYTES, rewrite: (body) => emptyResponse(200, request.requestId, etagHeader(body)) }
          : s3ErrorResponse(gcsError(status), request),
    };
  }

  /**
   * CopyObject onto `copyTo` from `source` (a bucket of this endpoint). The source's resource is read first:
   * the copy-source preconditions are evaluated on it as a read's (a failed one is 412, as S3 answers), and
   * the copy is pinned to its generation (`ifSourceGenerationMatch`, which the emulator ignores). COPY sends
   * no resource, so the source's properties and metadata are kept; REPLACE sends the request's, each
   * property it lacks as null. The emulator serves `copyTo` only under `/b/` (real GCS: `/storage/v1/b/`).
   */
  async copy(request: CopyRequest, source: GcsJsonApi, call: BackendCall = {}): Promise<CopyResult> {
    const sourceName = source.backend.backendPrefix + request.source.key;
    const object = await source.resource(sourceName, call);
    if (object === undefined) throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: request.source.key });
    if (evaluatePreconditions(copySourceConditions(request.headers), etagOf(object), object.updated) !== undefined) throw preconditionFailed();
    let resource: Record<string, unknown> | undefined;
    if (replacesMetadata(request.headers)) {
      resource = { metadata: Object.fromEntries(userMetadata(request.headers)) };
      for (const [header, field] of Object.entries(PROPERTIES)) resource[field] = request.headers[header] ?? null;
    }
    const pin = object.generation ? `?ifSourceGenerationMatch=${encodeKey(object.generation, false)}` : '';
    const url = `${this.backend.endpoint}${source.objectPath(sourceName)}/copyTo${this.objectPath(this.backend.backendPrefix + request.key)}${pin}`;
    const { response, value } = await this.json('POST', url, resource, call);
    if (response.status === 404) throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: request.source.key });
    if (response.status !== 200 || typeof value !== 'object' || value === null) throw gcsError(response.status === 200 ? 502 : response.status);
    const copied = value as ObjectResource;
    return { etag: etagOf(copied), lastModified: new Date(copied.updated ?? this.deps.now()).toISOString() };
  }

  async list(params: ListParams, call?: BackendCall): Promise<ListPage> {
    const prefix = this.backend.backendPrefix;
    const fetchPage = async (marker: string | undefined, limit: number): Promise<BackendListPage> => {
      const query: [string, string][] = [['prefix', prefix + params.prefix], ['maxResults', String(Math.max(1, Math.min(limit, MAX_RESULTS)))]];
      if (params.delimiter) query.push(['delimiter', params.delimiter]);
      if (marker) query.push(['pageToken', marker]);
      const url = `${this.backend.endpoint}/storage/v1/b/${encodeKey(this.backend.bucketName, false)}/o?${query.map(([n, v]) => `${n}=${encodeKey(v, false)}`).join('&')}`;
      const { response, value } = await this.json('GET', url, undefined, call);
      if (response.status === 404) throw new S3Error('NoSuchBucket', 'The backend bucket of this bucket does not exist.');
      if (response.status !== 200 || typeof value !== 'object' || value === null) throw gcsError(response.status === 200 ? 502 : response.status);
      const page = value as { items?: ObjectResource[]; prefixes?: string[]; nextPageToken?: string };
      const items: ListItem[] = [];
      for (const object of page.items ?? []) {
        const key = relativeKey(object.name, prefix);
        if (key === undefined) continue;
        items.push({
          key,
          entry: {
            key,
            lastModified: object.updated ? new Date(object.updated).toISOString() : '',
            etag: etagOf(object),
            size: Number(object.size ?? 0),
            storageClass: storageClassOf(object.storageClass),
          },
        });
      }
      // The emulator lists every prefix on every page, wherever it sorts; one past the page's last object
      // is deferred to the page where it belongs (it comes again), and earlier repeats are dropped by
      // collectPage. Real GCS interleaves prefixes by position, but is spoken to through the XML API.
      const next = page.nextPageToken || undefined;
      const lastObject = items.length > 0 ? items[items.length - 1].key : undefined;
      for (const p of page.prefixes ?? []) {
        const key = relativeKey(p, prefix);
        if (key === undefined) continue;
        if (next === undefined || lastObject === undefined || compareKeys(key, lastObject) < 0) items.push({ key });
      }
      return { items: sortItems(items), next };
    };
    const { items, resume } = await collectPage(fetchPage, startPosition(params), params.maxKeys, MAX_RESULTS);
    return toListPage(params, items, resume);
  }
}

/** An object resource is a few hundred bytes; its metadata can make it larger, never this large. */
const RESOURCE_MAX_BYTES = 64 * 1024;

/** The ETag header of an upload's answer, from the object resource it returned. */
function etagHeader(body: Uint8Array): HeaderMap {
  try {
    const object = JSON.parse(new TextDecoder().decode(body)) as ObjectResource;
    return typeof object === 'object' && object !== null ? { etag: etagOf(object) } : {};
  } catch {
    return {};
  }
}

/** The S3 ETag of an object: its quoted hex MD5 (what the XML API answers for non-composite objects). */
function etagOf(object: ObjectResource): string {
  if (!object.md5Hash) return `"${object.generation ?? ''}"`;
  const md5 = fromBase64(object.md5Hash);
  return md5 === undefined ? `"${object.generation ?? ''}"` : `"${toHex(md5)}"`;
}

/** The S3 response headers of a read, from the object resource (`response-*` overrides applied). */
function objectHeaders(object: ObjectResource, request: ObjectRequest): HeaderMap {
  const out: HeaderMap = { etag: etagOf(object), 'x-amz-request-id': request.requestId };
  if (object.updated) out['last-modified'] = new Date(object.updated).toUTCString();
  for (const [header, field] of Object.entries(PROPERTIES)) {
    const value = request.query?.[`response-${header}`] ?? object[field];
    if (typeof value === 'string' && value !== '') out[header] = value;
  }
  out['content-type'] ??= 'application/octet-stream';
  for (const [name, value] of Object.entries(object.metadata ?? {})) {
    if (name !== 'firebaseStorageDownloadTokens') out[`x-amz-meta-${name.toLowerCase()}`] = value;
  }
  const storageClass = storageClassOf(object.storageClass);
  if (storageClass !== 'STANDARD') out['x-amz-storage-class'] = storageClass;
  return out;
}

