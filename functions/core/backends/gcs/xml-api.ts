import type { GcsBackend } from '../../config/types';
import { backendDocument } from '../../streams';
import { S3Error } from '../../errors';
import type { Forward, HeaderMap, ProxyResponse, ResponseHead, ReadonlyHeaders } from '../../http';
import { encodeKey } from '../../keys';
import { checkWriteIfMatch } from '../../preconditions';
import { parseRange, unsatisfiedRange, type ByteRange } from '../../range';
import { childOf, parseXml, textOf } from '../../xml';
import type { RawListing } from '../../listing/s3-scanner';
import { readListBucketResultBody } from '../../listing/s3-page';
import { collectPage, relativeKey, sortItems, startPosition, toListPage, type BackendListPage, type ListItem, type ListPosition } from '../../listing/paging';
import { compareKeys } from '../../keys';
import type { BackendCall, CopyRequest, CopyResult, ListPage, ListParams, ObjectRequest, StoreDeps } from '../store';
import { copySourceConditions, deleted, replacesMetadata, s3ErrorResponse, s3ResponseHeaders, userMetadata } from '../translate';
import { gcsError, storageClassOf } from './errors';
import { importServiceAccountKey, signUrl, type RsaKey } from './v4-signing';

/** Lifetime of the signed URL a Forward carries; GCS checks it when the request starts. */
const SIGNED_URL_SECONDS = 900;
/** The XML API's largest `max-keys`. */
const MAX_KEYS = 1000;
const READ_HEADERS = ['range', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since'];
/** Request headers a PUT carries and signs; GCS stores them with the object. */
const PUT_SIGNED_HEADERS = ['content-type', 'content-md5', 'content-disposition', 'content-encoding', 'content-language', 'cache-control'];
/** Response overrides the XML API supports on a signed GET. */
const READ_QUERY = ['response-content-type', 'response-content-disposition'];

/**
 * Real Cloud Storage through its XML API, which is S3-shaped: V4 signed URLs (the only kind GCS accepts for
 * object URLs) carry every object request, so bodies stream in the adapter, and listings are the XML API's
 * ListBucketResult with key markers. Anonymous (public) buckets get plain URLs.
 */
export class GcsXmlApi {
  private key?: Promise<RsaKey>;

  constructor(
    private readonly backend: GcsBackend,
    private readonly deps: StoreDeps,
  ) {}

  private host(): string {
    return this.backend.endpoint.replace(/^https?:\/\//i, '').replace(/\/.*$/, '');
  }

  private bucketPath(): string {
    return `/${encodeKey(this.backend.bucketName, false)}`;
  }

  /** A signed URL for `path` (or the plain URL for an anonymous backend). */
  private async url(method: string, path: string, query: Record<string, string>, headers: HeaderMap): Promise<string> {
    const account = this.backend.serviceAccount;
    if (account === undefined) {
      const q = Object.entries(query).map(([n, v]) => `${encodeKey(n, false)}=${encodeKey(v, false)}`).join('&');
      return `${this.backend.endpoint}${path}${q ? `?${q}` : ''}`;
    }
    this.key ??= importServiceAccountKey(account.privateKey);
    const signed = await signUrl(
      { method, origin: this.backend.endpoint, host: this.host(), path, query, headers, clientEmail: account.clientEmail, now: this.deps.now(), expiresSeconds: SIGNED_URL_SECONDS },
      await this.key,
    );
    return signed.url;
  }

  async forwardObject(request: ObjectRequest): Promise<Forward> {
    const path = `${this.bucketPath()}/${encodeKey(this.backend.backendPrefix + request.key)}`;
    const query: Record<string, string> = {};
    const signed: HeaderMap = {};
    const unsigned: HeaderMap = {};
    if (request.method === 'GET' || request.method === 'HEAD') {
      for (const name of READ_QUERY) if (request.query?.[name] !== undefined) query[name] = request.query[name];
      for (const name of READ_HEADERS) if (request.headers[name] !== undefined) unsigned[name] = request.headers[name];
    } else if (request.method === 'PUT') {
      for (const name of PUT_SIGNED_HEADERS) if (request.headers[name] !== undefined) signed[name] = request.headers[name];
      for (const [name, value] of userMetadata(request.headers)) signed[`x-goog-meta-${name}`] = value;
      Object.assign(signed, await this.writePrecondition(path, request));
      if (request.headers['content-length'] !== undefined) unsigned['content-length'] = request.headers['content-length'];
    } else {
      Object.assign(signed, await this.writePrecondition(path, request));
    }
    const url = await this.url(request.method, path, query, signed);
    return {
      kind: 'forward',
      request: { method: request.method, url, headers: Object.assign({}, signed, unsigned), body: request.method === 'PUT' ? request.body ?? null : null },
      respond: (status, headers) => respond(request, status, headers, parseRange(request.headers.range)),
    };
  }

  /**
   * S3's conditional PUT and DELETE as GCS generation preconditions: `If-None-Match: *` is generation 0 (no live
   * object); `If-Match: <etag>` is checked against the object's ETag and pinned to its generation, so the
   * write still fails if the object changes in between.
   */
  private async writePrecondition(path: string, request: ObjectRequest): Promise<HeaderMap> {
    const headers = request.headers;
    const ifNoneMatch = headers['if-none-match'];
    const ifMatch = headers['if-match'];
    const out: HeaderMap = {};
    if (ifNoneMatch !== undefined) out['x-goog-if-generation-match'] = '0';
    if (ifMatch !== undefined) {
      const response = await this.deps.client({ method: 'HEAD', url: await this.url('HEAD', path, {}, {}), headers: {} }, { trace: request.trace });
      await response.body?.cancel();
      if (response.status !== 200 && response.status !== 404) throw gcsError(response.status);
      checkWriteIfMatch(ifMatch, response.status === 404 ? undefined : response.headers.get('etag') ?? '', request.key);
      out['x-goog-if-generation-match'] = response.headers.get('x-goog-generation') ?? '0';
    }
    return out;
  }

  /**
   * CopyObject as the XML API's copy (https://cloud.google.com/storage/docs/xml-api/put-object-copy; no XML
   * API runs here, so this is Google's documented shape, unverified): a PUT of the destination with
   * `x-goog-copy-source`, the metadata directive, and the copy-source preconditions as
   * `x-goog-copy-source-if-*`, which GCS evaluates against its own ETags and times. REPLACE sends the
   * request's properties and metadata. GCS's CopyObjectResult names the ETag and time S3's does.
   */
  async copy(request: CopyRequest, source: GcsBackend, call?: BackendCall): Promise<CopyResult> {
    const path = `${this.bucketPath()}/${encodeKey(this.backend.backendPrefix + request.key)}`;
    const replace = replacesMetadata(request.headers);
    const signed: HeaderMap = {
      'x-goog-copy-source': `/${encodeKey(source.bucketName, false)}/${encodeKey(source.backendPrefix + request.source.key)}`,
      'x-goog-metadata-directive': replace ? 'REPLACE' : 'COPY',
    };
    for (const [name, value] of Object.entries(copySourceConditions(request.headers))) signed[`x-goog-copy-source-${name}`] = value;
    if (replace) {
      for (const name of PUT_SIGNED_HEADERS) if (name !== 'content-md5' && request.headers[name] !== undefined) signed[name] = request.headers[name];
      for (const [name, value] of userMetadata(request.headers)) signed[`x-goog-meta-${name}`] = value;
    }
    const url = await this.url('PUT', path, {}, signed);
    const response = await this.deps.client({ method: 'PUT', url, headers: { ...signed, 'content-length': '0' }, body: new Uint8Array(0) }, call);
    const doc = parseXml(await backendDocument(response.body));
    if (response.status !== 200) throw gcsError(response.status, textOf(childOf(childOf(doc, 'Error'), 'Code')));
    const result = childOf(doc, 'CopyObjectResult');
    const etag = textOf(childOf(result, 'ETag'));
    const lastModified = textOf(childOf(result, 'LastModified'));
    if (etag === undefined || lastModified === undefined) throw new S3Error('BadGateway', 'The GCS backend answered the copy with an unreadable document');
    return { etag, lastModified: new Date(lastModified).toISOString() };
  }

  async list(params: ListParams, call?: BackendCall): Promise<ListPage> {
    const prefix = this.backend.backendPrefix;
    const fetchPage = async (marker: string | undefined, limit: number): Promise<BackendListPage> => {
      const query: Record<string, string> = { prefix: prefix + params.prefix, 'max-keys': String(Math.max(1, Math.min(limit, MAX_KEYS))) };
      if (params.delimiter) query.delimiter = params.delimiter;
      if (marker) query.marker = marker;
      const url = await this.url('GET', this.bucketPath(), query, {});
      const response = await this.deps.client({ method: 'GET', url, headers: {} }, call);
      if (response.status !== 200) {
        const text = await backendDocument(response.body);
        throw gcsError(response.status, textOf(childOf(childOf(parseXml(text), 'Error'), 'Code')));
      }
      const raw = await readListBucketResultBody(response.body);
      if (raw === undefined) throw new S3Error('BadGateway', 'The GCS backend answered the listing with an unreadable document');
      return toBackendPage(raw, prefix);
    };
    // The XML API's marker is a key, as S3's: a plain key marker or start-after needs no scan here.
    const start = startPosition(params);
    const position: ListPosition = start.marker === undefined && start.after !== undefined ? { marker: prefix + start.after, after: start.after } : start;
    const { items, resume } = await collectPage(fetchPage, position, params.maxKeys, MAX_KEYS);
    return toListPage(params, items, resume);
  }
}

/** The XML API's ListBucketResult (read as S3's: keys as written, GCS's Generation fields skipped) as one backend page. */
function toBackendPage(raw: RawListing, backendPrefix: string): BackendListPage {
  const items: ListItem[] = [];
  let last: string | undefined;
  for (const item of raw.contents) {
    const name = item.key ?? '';
    last = name;
    const key = relativeKey(name, backendPrefix);
    if (key === undefined) continue;
    items.push({
      key,
      entry: {
        key,
        lastModified: item.lastModified ?? '',
        etag: item.etag ?? '',
        size: Number(item.size ?? 0),
        storageClass: storageClassOf(item.storageClass),
      },
    });
  }
  for (const cp of raw.prefixes) {
    const name = cp ?? '';
    if (last === undefined || compareKeys(name, last) > 0) last = name;
    const key = relativeKey(name, backendPrefix);
    if (key !== undefined) items.push({ key });
  }
  sortItems(items);
  return { items, next: raw.isTruncated === 'true' ? raw.nextMarker || last : undefined };
}

/** A forwarded XML API answer in S3's terms; a range past the object's end is 416, as S3 answers it. */
function respond(request: ObjectRequest, status: number, headers: ReadonlyHeaders, range?: ByteRange): ResponseHead | ProxyResponse {
  const unsatisfied = unsatisfiedRange(range, status, headers);
  if (unsatisfied !== undefined) return s3ErrorResponse(unsatisfied, request);
  if (status >= 400) {
    if (request.method === 'DELETE' && status === 404) return deleted(request);
    return s3ErrorResponse(gcsError(status), request);
  }
  if (request.method === 'DELETE') return deleted(request);
  const out = s3ResponseHeaders(headers, request.requestId, 'x-goog-meta-', (name) => name);
  const storageClass = storageClassOf(headers.get('x-goog-storage-class'));
  if (storageClass !== 'STANDARD') out['x-amz-storage-class'] = storageClass;
  return { status, headers: out };
}
