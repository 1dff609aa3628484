import type { AzureBackend } from '../config/types';
import { backendDocument } from '../streams';
import { S3Error } from '../errors';
import type { BackendResponse, Forward, HeaderMap, ProxyResponse, ResponseHead, ReadonlyHeaders } from '../http';
import { encodeKey } from '../keys';
import { checkWriteIfMatch, evaluatePreconditions, preconditionResponse } from '../preconditions';
import { invalidRange, parseRange, resolveRange, unsatisfiedRange, type ByteRange } from '../range';
import { fromBase64 } from '../bytes';
import { storageClassOf } from './azure/access-tier';
import { HIDDEN_METADATA, fromAzureMetadataName, objectHeaders } from './azure/blob-headers';
import { copyObject, partSource, type CopyBlobs } from './azure/copy';
import { azureError } from './azure/errors';
import { s3EtagOfAnswer } from './azure/etag';
import { readBlobListBody } from './azure/listing';
import { AzureMultipart } from './azure/multipart';
import { SAS_RESPONSE_OVERRIDES, blobSasQuery, type BlobSas } from './azure/sas';
import { sharedKeyAuthorization } from './azure/shared-key';
import { blobTags } from './azure/tags';
import { collectPage, startPosition, toListPage, type BackendListPage } from '../listing/paging';
import type { BackendCall, CopyRequest, CopyResult, DeleteBatch, DeleteOutcome, ListPage, ListParams, MultipartStore, ObjectRequest, ObjectStore, StoreDeps, TagStore } from './store';
import { deleteEach, deleted, refuseUnsupportedFeatures, s3ErrorResponse, s3ResponseHeaders } from './translate';

/** The Blob service version the gateway speaks (header `x-ms-version` and SAS `sv`). */
export const AZURE_API_VERSION = '2021-12-02';
/** Lifetime of the SAS a Forward carries: it is checked when the request starts, not when it ends. */
const SAS_LIFETIME_MS = 15 * 60_000;
/** List Blobs' largest `maxresults`. */
const MAX_RESULTS = 5000;

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
  /** S3 object tags as blob index tags (azure/tags.ts), through Get and Set Blob Tags. */
  readonly tags: TagStore = blobTags({
    blobUrl: (key) => this.blobUrl(this.blobName(key)),
    send: (method, url, call, headers, body) => this.send(method, url, call, headers, body),
  });
  /** This container's blobs, as copies and multipart uploads reach them (azure/copy.ts, azure/multipart.ts). */
  private readonly blobs: CopyBlobs = {
    blobUrl: (key) => this.blobUrl(this.blobName(key)),
    send: (method, url, call, headers, body) => this.send(method, url, call, headers, body),
    head: (key, call) => this.blobHead(this.blobName(key), call),
    tags: this.tags,
    now: () => this.deps.now(),
    sameAccount: (source) => {
      if (source.type !== 'azure' || source.endpoint !== this.backend.endpoint || source.accountName !== this.backend.accountName) return undefined;
      return source === this.backend ? this.blobs : new AzureStore(source, this.deps).blobs;
    },
  };
  readonly multipart: MultipartStore = new AzureMultipart({
    ...this.blobs,
    objectHeaders,
    copySource: (request, operation, call) => partSource(this.blobs, request, operation, call),
  });

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

  /** CopyObject onto Copy Blob, within one account (azure/copy.ts). */
  copyObject(request: CopyRequest, call: BackendCall = {}): Promise<CopyResult> {
    return copyObject(this.blobs, request, call);
  }

  private blobUrl(blob: string): string {
    return `${this.containerUrl()}/${encodeKey(blob)}`;
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

function copy(from: HeaderMap, to: HeaderMap, names: readonly string[]): void {
  for (const name of names) if (from[name] !== undefined) to[name] = from[name];
}
