import type { AzureBackend } from '../config/types';
import { backendDocument } from '../streams';
import { S3Error, notImplemented } from '../errors';
import { isProxyResponse, type BackendResponse, type Forward, type HeaderMap, type ProxyResponse, type ResponseHead, type ReadonlyHeaders } from '../http';
import { encodeKey } from '../keys';
import { checkWriteIfMatch, evaluatePreconditions, preconditionFailed, preconditionResponse } from '../preconditions';
import { invalidRange, parseRange, resolveRange, unsatisfiedRange, type ByteRange } from '../range';
import { fromBase64 } from '../bytes';
import { storageClassOf } from './azure/access-tier';
import { azureError } from './azure/errors';
import { S3_ETAG_METADATA, s3EtagOfAnswer } from './azure/etag';
import { readBlobListBody } from './azure/listing';
import { AzureMultipart, type CopySourceBlob } from './azure/multipart';
import { SAS_RESPONSE_OVERRIDES, blobSasQuery, type BlobSas } from './azure/sas';
import { sharedKeyAuthorization } from './azure/shared-key';
import { azureTags, readTagsDocument, tagsDocument, tagsHeader } from './azure/tags';
import { parseTaggingHeader, type Tag } from '../tags';
import { collectPage, startPosition, toListPage, type BackendListPage } from '../listing/paging';
import type { BackendCall, CopyRequest, CopyResult, DeleteBatch, DeleteOutcome, ListPage, ListParams, MultipartStore, ObjectRequest, ObjectStore, StoreDeps, TagStore } from './store';
import { copySourceConditions, deleteEach, deleted, refuseUnsupportedFeatures, replacesMetadata, s3ErrorResponse, s3ResponseHeaders, userMetadata } from './translate';

/** The Blob service version the gateway speaks (header `x-ms-version` and SAS `sv`). */
export const AZURE_API_VERSION = '2021-12-02';
/** Lifetime of the SAS a Forward carries: it is checked when the request starts, not when it ends. */
const SAS_LIFETIME_MS = 15 * 60_000;
/** List Blobs' largest `maxresults`. */
const MAX_RESULTS = 5000;

/** The `x-ms-blob-*` property headers Put Blob stores, by the S3 request header they come from. */
const PUT_PROPERTY_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'x-ms-blob-content-type',
  'content-encoding': 'x-ms-blob-content-encoding',
  'content-language': 'x-ms-blob-content-language',
  'content-disposition': 'x-ms-blob-content-disposition',
  'cache-control': 'x-ms-blob-cache-control',
};
// Preconditions are evaluated on Azure's answer, as S3 evaluates them (preconditions.ts), never sent.
const READ_HEADERS = ['range'];
const PUT_HEADERS = ['content-length', 'content-md5', 'if-match', 'if-none-match'];

/**
 * An Azure Blob container as a virtual bucket. Object requests are forwarded through short-lived service
 * SAS URLs (or plain URLs for an anonymous backend); List Blobs is a Shared Key signed request the core
 * makes itself. Answers are translated into S3's statuses, headers and errors.
 */
export class AzureStore implements ObjectStore {
  private readonly key?: Uint8Array;
  readonly multipart: MultipartStore = new AzureMultipart({
    blobUrl: (key) => this.blobUrl(this.blobName(key)),
    send: (method, url, call, headers, body) => this.send(method, url, call, headers, body),
    head: (key, call) => this.blobHead(this.blobName(key), call),
    objectHeaders: (headers) => objectHeaders(headers),
    copySource: (request, operation, call) => this.partSource(request, operation, call),
    now: () => this.deps.now(),
  });
  /** S3 object tags as blob index tags (azure/tags.ts), through Get and Set Blob Tags. */
  readonly tags: TagStore = {
    get: async (key, call) => {
      const response = await this.send('GET', `${this.blobUrl(this.blobName(key))}?comp=tags`, call);
      const text = await backendDocument(response.body);
      if (response.status !== 200) throw azureError(response.status, response.headers.get('x-ms-error-code') ?? undefined);
      const tags = readTagsDocument(text);
      if (tags === undefined) throw new S3Error('BadGateway', 'The Azure backend answered Get Blob Tags with an unreadable document');
      return tags;
    },
    put: async (key, tags, call) => {
      const body = new TextEncoder().encode(tagsDocument(tags));
      const headers = { 'content-type': 'application/xml', 'content-length': String(body.length) };
      await checked(await this.send('PUT', `${this.blobUrl(this.blobName(key))}?comp=tags`, call, headers, body));
    },
  };

  constructor(
    private readonly backend: AzureBackend,
    private readonly deps: StoreDeps,
  ) {
    if (backend.accessKey !== undefined) {
      this.key = fromBase64(backend.accessKey);
      if (this.key === undefined) throw new TypeError(`access_key of Azure account ${backend.accountName} is not base64`);
    }
  }

  private containerUrl(): string {
    return `${this.backend.endpoint}/${encodeKey(this.backend.containerName, false)}`;
  }

  async forwardObject(request: ObjectRequest): Promise<Forward> {
    refuseUnsupportedFeatures(request, true);
    const blob = this.blobName(request.key);
    const headers: HeaderMap = { 'x-ms-version': AZURE_API_VERSION };
    const range = parseRange(request.headers.range);
    const query = request.query ?? {};
    let permissions: string;
    const overrides: Partial<Record<'rscc' | 'rscd' | 'rsce' | 'rscl' | 'rsct', string>> = {};
    if (request.method === 'GET' || request.method === 'HEAD') {
      permissions = 'r';
      copy(request.headers, headers, READ_HEADERS);
      if (range !== undefined && 'suffix' in range) {
        // Azure has no suffix ranges (`bytes=-N`; Azurite answers 500): resolve it against the blob's size.
        const size = await this.blobSize(blob, { trace: request.trace });
        const bytes = resolveRange(range, size);
        if (bytes === undefined) throw invalidRange(range, size);
        headers.range = `bytes=${bytes.first}-${bytes.last}`;
      }
      for (const [s3Name, sasName] of Object.entries(SAS_RESPONSE_OVERRIDES)) {
        if (query[s3Name] !== undefined) overrides[sasName] = query[s3Name];
      }
    } else if (request.method === 'PUT') {
      headers['x-ms-blob-type'] = 'BlockBlob';
      copy(request.headers, headers, PUT_HEADERS);
      Object.assign(headers, objectHeaders(request.headers));
      // Tags on a write are a tags write too (SAS permission `t`).
      permissions = headers['x-ms-tags'] === undefined ? 'cw' : 'cwt';
      await this.pinIfMatch(request, blob, headers);
    } else {
      permissions = 'd';
      headers['x-ms-delete-snapshots'] = 'include';
      await this.pinIfMatch(request, blob, headers);
    }
    let url = this.blobUrl(blob);
    if (this.key !== undefined) {
      const sas: BlobSas = {
        account: this.backend.accountName,
        container: this.backend.containerName,
        blob,
        permissions,
        expiry: this.deps.now() + SAS_LIFETIME_MS,
        version: AZURE_API_VERSION,
        overrides,
      };
      url += `?${await blobSasQuery(sas, this.key)}`;
    }
    return {
      kind: 'forward',
      request: { method: request.method, url, headers, body: request.method === 'PUT' ? request.body ?? null : null },
      respond: (status, responseHeaders) => this.respond(request, status, responseHeaders, range),
    };
  }

  /**
   * The blob of `key`, under `backend_prefix`. Azure reads `\` in a blob name as `/` (Azurite stores `a\b`
   * as `a/b`), so the blob reached would not be the key authorized: such keys are refused, as S3 keys Azure
   * cannot hold.
   */
  private blobName(key: string): string {
    if (key.includes('\\')) {
      throw new S3Error('InvalidArgument', 'An Azure backend cannot store a key holding "\\": Azure reads it as "/"', { Key: key });
    }
    return this.backend.backendPrefix + key;
  }

  /**
   * Azure's answer in S3's terms: 201 Created is 200, 202 Accepted (delete) is 204, errors are S3 XML, the
   * ETag is the blob's S3 ETag (azure/etag.ts). A read's preconditions are evaluated on that ETag and the
   * answer's Last-Modified, so a 304 or 412 still begins the read (and drops it) and holds for the very bytes
   * read; a range past the blob's end is 416, as S3 answers it (Azurite answers it with the blob).
   */
  private respond(request: ObjectRequest, status: number, headers: ReadonlyHeaders, range?: ByteRange): ResponseHead | ProxyResponse {
    const etag = s3EtagOfAnswer(status, headers);
    if (status === 200 || status === 206) {
      const lastModified = headers.get('last-modified') ?? undefined;
      const failed = evaluatePreconditions(request.headers, etag, lastModified);
      if (failed !== undefined) {
        const validators: HeaderMap = { etag };
        if (lastModified !== undefined) validators['last-modified'] = lastModified;
        return preconditionResponse(failed, request.method, request.requestId, `/${request.key}`, validators);
      }
    }
    const unsatisfied = unsatisfiedRange(range, status, headers);
    if (unsatisfied !== undefined) return s3ErrorResponse(unsatisfied, request);
    if (status >= 400) {
      const code = headers.get('x-ms-error-code') ?? undefined;
      if (request.method === 'DELETE' && status === 404 && code !== 'ContainerNotFound') return deleted(request);
      return s3ErrorResponse(azureError(status, code), request);
    }
    if (request.method === 'DELETE') return deleted(request);
    const out = s3ResponseHeaders(headers, request.requestId, 'x-ms-meta-', fromAzureMetadataName);
    delete out[HIDDEN_METADATA];
    if (out.etag !== undefined) out.etag = etag;
    const storageClass = storageClassOf(headers.get('x-ms-access-tier'));
    if (storageClass !== 'STANDARD') out['x-amz-storage-class'] = storageClass;
    if (request.method === 'PUT') {
      delete out['last-modified'];
      return { status: status === 201 ? 200 : status, headers: out };
    }
    return { status, headers: out };
  }

  /**
   * A write's or delete's If-Match, read as S3 reads it against the blob's S3 ETag (its MD5, azure/etag.ts)
   * and pinned to Azure's own ETag of the blob read: Azure answers If-Match on a missing blob with 412
   * (Azurite writes on `*`) and knows only its own ETags. The pin keeps the request atomic: a blob changed in
   * between still fails. (A write's If-None-Match is only `*`, which Azure takes as it is.)
   */
  private async pinIfMatch(request: ObjectRequest, blob: string, headers: HeaderMap): Promise<void> {
    const ifMatch = request.headers['if-match'];
    if (ifMatch === undefined) return;
    const current = await this.blobHead(blob, { trace: request.trace });
    checkWriteIfMatch(ifMatch, current === undefined ? undefined : s3EtagOfAnswer(200, current), request.key);
    headers['if-match'] = current?.get('etag') ?? '';
  }

  /** A Shared Key signed (or, without a key, anonymous) request the core sends itself, with `extra` headers. */
  private async send(method: string, url: string, call?: BackendCall, extra: HeaderMap = {}, body?: ReadableStream<Uint8Array> | Uint8Array): Promise<BackendResponse> {
    const headers: HeaderMap = { ...extra, 'x-ms-version': AZURE_API_VERSION, 'x-ms-date': new Date(this.deps.now()).toUTCString() };
    if (this.key !== undefined) headers.authorization = await sharedKeyAuthorization(this.backend.accountName, this.key, { method, url, headers });
    return this.deps.client({ method, url, headers, body: body ?? (method === 'PUT' ? new Uint8Array(0) : null) }, call);
  }

  private async blobSize(blob: string, call: BackendCall): Promise<number> {
    const head = await this.blobHead(blob, call);
    if (head === undefined) throw azureError(404, 'BlobNotFound');
    return Number(head.get('content-length') ?? 0);
  }

  /** The blob's properties, or undefined when there is no such blob. */
  private async blobHead(blob: string, call: BackendCall): Promise<ReadonlyHeaders | undefined> {
    const response = await this.send('HEAD', this.blobUrl(blob), call);
    await response.body?.cancel();
    const code = response.headers.get('x-ms-error-code') ?? undefined;
    if (response.status === 404 && code !== 'ContainerNotFound') return undefined;
    if (response.status !== 200) throw azureError(response.status, code);
    return response.headers;
  }

  /**
   * Key by key, each as its DeleteObject. Blob Batch (Azurite serves it) would save requests, but each
   * subrequest would need its own If-Match pinning and error mapping; per-key deletes keep one path.
   */
  deleteObjects(batch: DeleteBatch, call?: BackendCall): Promise<DeleteOutcome> {
    return deleteEach(this, this.deps.client, batch, call);
  }

  /**
   * CopyObject onto Copy Blob, within one account: the destination's Shared Key authorizes the read of a
   * same-account source, so the source URL carries no SAS. The source's HEAD comes first: the copy-source
   * preconditions are evaluated on it as a read's (a failed one is 412, as S3 answers), and the copy is
   * pinned to the ETag it read. Copy Blob keeps the source's properties and metadata; with REPLACE, Set Blob
   * Metadata and Set Blob Properties then write the request's (its Content-MD5 kept). Copy Blob takes no
   * tags from its source (on Azure as on Azurite): the tagging directive COPY reads the source's and gives
   * them to Copy Blob, REPLACE gives the request's. A copy Azure runs asynchronously is waited for. The
   * answer's ETag and time are what a HEAD of the new blob gives.
   */
  async copyObject(request: CopyRequest, call: BackendCall = {}): Promise<CopyResult> {
    // The request's tags are checked before anything is sent.
    const replacedTags = request.headers['x-amz-tagging-directive'] === 'REPLACE' ? azureTags(parseTaggingHeader(request.headers['x-amz-tagging'] ?? '')) : undefined;
    const { store: source, blob: sourceBlob, head } = await this.copySource(request, 'CopyObject', call);
    const blob = this.blobName(request.key);
    const url = this.blobUrl(blob);
    const sourceUrl = source.blobUrl(sourceBlob);
    // A copy onto itself (REPLACE: the handler refused it otherwise) only sets what it replaces.
    if (sourceUrl !== url) {
      const tags = replacedTags ?? (await source.tags.get(request.source.key, call));
      await this.copyBlob(url, sourceUrl, head.get('etag'), tags, blob, call);
    } else if (replacedTags !== undefined) {
      await this.tags.put(request.key, replacedTags, call);
    }

    if (replacesMetadata(request.headers)) {
      const metadata: HeaderMap = { 'content-length': '0' };
      for (const [name, value] of userMetadata(request.headers)) metadata[`x-ms-meta-${toAzureMetadataName(name)}`] = value;
      await checked(await this.send('PUT', `${url}?comp=metadata`, call, metadata));
      // Set Blob Properties clears each property it is not given: the blob's MD5 is given again.
      const properties: HeaderMap = { 'content-length': '0' };
      const md5 = head.get('content-md5');
      if (md5 !== null) properties['x-ms-blob-content-md5'] = md5;
      for (const [s3Name, azureName] of Object.entries(PUT_PROPERTY_HEADERS)) {
        if (request.headers[s3Name] !== undefined) properties[azureName] = request.headers[s3Name];
      }
      await checked(await this.send('PUT', `${url}?comp=properties`, call, properties));
    }
    const written = await this.blobHead(blob, call);
    if (written === undefined) throw azureError(404, 'BlobNotFound');
    const headers = this.respond({ method: 'HEAD', key: request.key, headers: {}, requestId: request.requestId }, 200, written).headers;
    return { etag: headers.etag ?? '', lastModified: new Date(headers['last-modified'] ?? this.deps.now()).toISOString() };
  }

  /**
   * A copy's source (CopyObject, UploadPartCopy), found by one HEAD: in the same account and endpoint only,
   * else 501 naming the reason; missing, NoSuchKey; its copy-source conditions evaluated as a read's (a
   * failed one is 412, as S3 answers).
   */
  private async copySource(request: CopyRequest, operation: string, call: BackendCall): Promise<{ store: AzureStore; blob: string; head: ReadonlyHeaders }> {
    const from = request.source.backend;
    if (from.type !== 'azure' || from.endpoint !== this.backend.endpoint || from.accountName !== this.backend.accountName) {
      throw notImplemented(`${operation} from another store or Azure account`);
    }
    const store = from === this.backend ? this : new AzureStore(from, this.deps);
    const blob = store.blobName(request.source.key);
    const head = await store.blobHead(blob, call);
    if (head === undefined) throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: request.source.key });
    const read = store.respond({ method: 'HEAD', key: request.source.key, headers: copySourceConditions(request.headers), requestId: request.requestId }, 200, head);
    if (isProxyResponse(read)) throw preconditionFailed();
    return { store, blob, head };
  }

  /** A part copy's source: its size, and ranged reads of it (Get Blob) pinned to the ETag its HEAD read. */
  private async partSource(request: CopyRequest, operation: string, call: BackendCall): Promise<CopySourceBlob> {
    const { store, blob, head } = await this.copySource(request, operation, call);
    const etag = head.get('etag');
    return {
      size: Number(head.get('content-length') ?? 0),
      read: async (first, last) => {
        const headers: HeaderMap = { range: `bytes=${first}-${last}` };
        if (etag !== null) headers['if-match'] = etag;
        const response = await store.send('GET', store.blobUrl(blob), call, headers);
        if (response.status !== 206 || response.body === null) {
          await response.body?.cancel();
          throw azureError(response.status, response.headers.get('x-ms-error-code') ?? undefined);
        }
        return response.body;
      },
    };
  }

  private blobUrl(blob: string): string {
    return `${this.containerUrl()}/${encodeKey(blob)}`;
  }

  /** Copy Blob of `sourceUrl` (pinned to `etag`) onto `url` with `tags`, waited for when Azure runs it asynchronously. */
  private async copyBlob(url: string, sourceUrl: string, etag: string | null, tags: readonly Tag[], blob: string, call: BackendCall): Promise<void> {
    const headers: HeaderMap = { 'content-length': '0', 'x-ms-copy-source': sourceUrl };
    if (etag !== null) headers['x-ms-source-if-match'] = etag;
    if (tags.length > 0) headers['x-ms-tags'] = tagsHeader(tags);
    const copied = await this.send('PUT', url, call, headers);
    await checked(copied);
    let status = copied.headers.get('x-ms-copy-status');
    for (let wait = 100; status === 'pending'; wait = Math.min(wait * 2, 2000)) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      status = (await this.blobHead(blob, call))?.get('x-ms-copy-status') ?? 'failed';
    }
    if (status !== null && status !== 'success') throw new S3Error('InternalError', `The Azure backend's copy ended ${status}`);
  }

  async list(params: ListParams, call?: BackendCall): Promise<ListPage> {
    const prefix = this.backend.backendPrefix;
    const fetchPage = async (marker: string | undefined, limit: number): Promise<BackendListPage> => {
      const query: [string, string][] = [
        ['restype', 'container'],
        ['comp', 'list'],
        ['prefix', prefix + params.prefix],
        // For the S3 ETag a multipart upload kept in its blob's metadata (azure/multipart.ts).
        ['include', 'metadata'],
        ['maxresults', String(Math.max(1, Math.min(limit, MAX_RESULTS)))],
      ];
      if (params.delimiter) query.push(['delimiter', params.delimiter]);
      if (marker) query.push(['marker', marker]);
      const url = `${this.containerUrl()}?${query.map(([n, v]) => `${n}=${encodeKey(v, false)}`).join('&')}`;
      const response = await this.send('GET', url, call);
      if (response.status !== 200) {
        await backendDocument(response.body);
        throw azureError(response.status, response.headers.get('x-ms-error-code') ?? undefined);
      }
      const page = await readBlobListBody(response.body, prefix);
      if (page === undefined) throw new S3Error('BadGateway', 'The Azure backend answered the listing with an unreadable document');
      return page;
    };
    const { items, resume } = await collectPage(fetchPage, startPosition(params), params.maxKeys, MAX_RESULTS);
    return toListPage(params, items, resume);
  }
}

/** An answer to a request the core sent itself, read to its end; an error in S3's terms. */
async function checked(response: BackendResponse): Promise<void> {
  await backendDocument(response.body);
  if (response.status >= 300) throw azureError(response.status, response.headers.get('x-ms-error-code') ?? undefined);
}

/** The Put Blob (and Put Block List) headers of an S3 write's content headers, user metadata and tags. */
function objectHeaders(s3: HeaderMap): HeaderMap {
  const out: HeaderMap = {};
  for (const [s3Name, azureName] of Object.entries(PUT_PROPERTY_HEADERS)) {
    if (s3[s3Name] !== undefined) out[azureName] = s3[s3Name];
  }
  for (const [name, value] of userMetadata(s3)) out[`x-ms-meta-${toAzureMetadataName(name)}`] = value;
  const tags = s3['x-amz-tagging'] === undefined ? [] : parseTaggingHeader(s3['x-amz-tagging']);
  if (tags.length > 0) out['x-ms-tags'] = tagsHeader(tags);
  return out;
}

/** The reserved metadata a multipart upload's blob keeps its S3 ETag in, as the client would see it. */
const HIDDEN_METADATA = `x-amz-meta-${fromAzureMetadataName(S3_ETAG_METADATA.slice('x-ms-meta-'.length))}`;

function copy(from: HeaderMap, to: HeaderMap, names: readonly string[]): void {
  for (const name of names) if (from[name] !== undefined) to[name] = from[name];
}

/**
 * Azure metadata names must be C# identifiers (letters, digits, `_`; not starting with a digit), S3's are
 * often hyphenated. `-` is stored as `_` and a literal `_` as `__`, so names round-trip and metadata set
 * natively in Azure (`my_key`) reads as `my-key`. Names that cannot be expressed, or would read back as
 * another, are a 400.
 */
export function toAzureMetadataName(s3Name: string): string {
  // A `-` before `-` or `_` would be stored as a run of `_` that reads back as another name (`a--b` as
  // `a_b`, `a-_b` as `a_-b`).
  if (!STORABLE_METADATA_NAME.test(s3Name)) {
    throw new S3Error(
      'InvalidArgument',
      `Metadata name "${s3Name}" cannot be stored on an Azure backend: use letters, digits, "-" and "_", starting with a letter, with no "-" before another "-" or "_"`,
    );
  }
  return s3Name.replace(/_/g, '__').replace(/-/g, '_');
}

const STORABLE_METADATA_NAME = /^[a-z](?:[a-z0-9_]|-(?![-_]))*$/i;

export function fromAzureMetadataName(azureName: string): string {
  return azureName.toLowerCase().replace(/__|_/g, (m) => (m === '__' ? '_' : '-'));
}
