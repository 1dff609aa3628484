import type { S3Backend } from '../config/types';
import { backendDocument } from '../streams';
import { S3Error, S3_ERROR_STATUS, type S3ErrorCode } from '../errors';
import type { BackendResponse, Forward, HeaderMap } from '../http';
import { encodeKey } from '../keys';
import { EMPTY_SHA256, UNSIGNED_PAYLOAD, signRequest } from '../sigv4';
import { sha256Hex } from '../bytes';
import { childOf, listOf, parseXml, textOf, type ParsedXml } from '../xml';
import {
  passThroughHeaders,
  type ListEntry,
  type ListPage,
  type ListParams,
  type ObjectRequest,
  type ObjectStore,
  type StoreDeps,
} from './store';


/** An S3-compatible backend (AWS S3, Ceph RGW, MinIO, s3rver…), addressed path-style. */
export class S3Store implements ObjectStore {
  /** The endpoint and encoded backend bucket: every URL starts with it. */
  private readonly base: string;

  constructor(
    private readonly backend: S3Backend,
    private readonly deps: StoreDeps,
  ) {
    this.base = backend.bucketName ? `${backend.endpoint}/${encodeKey(backend.bucketName, false)}` : backend.endpoint;
  }

  /** Absolute backend URL of `key` (mapped under `backend_prefix`), or of the bucket when `key` is undefined. */
  url(key?: string, query?: Readonly<Record<string, string>>): string {
    const path = key === undefined ? '/' : '/' + encodeKey(this.backend.backendPrefix + key);
    return this.base + path + queryString(query);
  }

  async forwardObject(request: ObjectRequest): Promise<Forward> {
    const url = this.url(request.key, request.query);
    const headers = await this.sign(request.method, url, request.headers, request.payloadHash ?? UNSIGNED_PAYLOAD);
    return {
      kind: 'forward',
      request: { method: request.method, url, headers, body: request.body ?? null },
      respond: (status, responseHeaders) => ({ status, headers: passThroughHeaders(responseHeaders, request.requestId) }),
    };
  }

  /** Where this store writes: copy compares endpoints and regions, and addresses sources by backend bucket and key. */
  get target(): S3Backend {
    return this.backend;
  }

  /** The backend key of a virtual key (under `backend_prefix`). */
  backendKey(key: string): string {
    return this.backend.backendPrefix + key;
  }

  /** The virtual key of a backend key, or undefined when it lies outside `backend_prefix`. */
  virtualKey(backendKey: string): string | undefined {
    const prefix = this.backend.backendPrefix;
    return backendKey.startsWith(prefix) ? backendKey.slice(prefix.length) : undefined;
  }

  /**
   * Signs and sends a request whose answer the core reads itself (copy, multipart control, batch delete).
   * A body is small and in hand: it is signed with its SHA-256 and sent with its length.
   */
  async send(request: StoreRequest, signal?: AbortSignal): Promise<BackendResponse> {
    const url = this.url(request.key, request.query);
    const headers: HeaderMap = Object.assign({}, request.headers);
    let payloadHash = EMPTY_SHA256;
    if (request.body !== undefined) {
      headers['content-length'] = String(request.body.length);
      payloadHash = await sha256Hex(request.body);
    }
    const signed = await this.sign(request.method, url, headers, payloadHash);
    return this.deps.client({ method: request.method, url, headers: signed, body: request.body ?? null }, signal);
  }

  async list(params: ListParams, signal?: AbortSignal): Promise<ListPage> {
    const prefix = this.backend.backendPrefix;
    const query: Record<string, string> = { 'encoding-type': 'url', 'max-keys': String(params.maxKeys), prefix: prefix + params.prefix };
    if (params.delimiter) query.delimiter = params.delimiter;
    if (params.version === 2) {
      query['list-type'] = '2';
      if (params.continuationToken) query['continuation-token'] = params.continuationToken;
      if (params.startAfter) query['start-after'] = prefix + params.startAfter;
      if (params.fetchOwner) query['fetch-owner'] = 'true';
    } else if (params.marker) {
      query.marker = prefix + params.marker;
    }
    const url = this.url(undefined, query);
    const headers = await this.sign('GET', url, {}, EMPTY_SHA256);
    const response = await this.deps.client({ method: 'GET', url, headers }, signal);
    const text = await backendDocument(response.body);
    if (response.status !== 200) throw backendError(response.status, text);
    const doc = childOf(parseXml(text), 'ListBucketResult');
    if (doc === undefined) throw new S3Error('BadGateway', 'The backend answered the listing with an unreadable document');
    return readListing(doc, prefix);
  }

  /** Signed headers for a backend request, or the headers untouched for an anonymous backend. */
  async sign(method: string, url: string, headers: HeaderMap, payloadHash: string): Promise<HeaderMap> {
    const credentials = await this.deps.credentials();
    if (credentials === undefined) return headers;
    return signRequest({
      method,
      url,
      headers,
      payloadHash,
      credentials,
      region: this.backend.region,
      service: 's3',
      now: this.deps.now(),
    });
  }
}

/** A request the core sends to an S3 backend and reads the answer of. */
export interface StoreRequest {
  readonly method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE';
  /** Virtual key (mapped under `backend_prefix`); the bucket itself when undefined. */
  readonly key?: string;
  readonly query?: Readonly<Record<string, string>>;
  /** Headers to sign and send; names lower-case. */
  readonly headers: HeaderMap;
  readonly body?: Uint8Array;
}

/** A backend listing with keys URL-decoded and the backend prefix stripped. */
function readListing(doc: ParsedXml, backendPrefix: string): ListPage {
  const strip = (value: string | undefined): string | undefined => {
    if (value === undefined) return undefined;
    const decoded = decodeURIComponent(value);
    return decoded.startsWith(backendPrefix) ? decoded.slice(backendPrefix.length) : undefined;
  };
  const contents: ListEntry[] = [];
  for (const item of listOf(doc, 'Contents')) {
    const key = strip(textOf(childOf(item, 'Key')));
    if (key === undefined) continue;
    const owner = childOf(item, 'Owner');
    contents.push({
      key,
      lastModified: textOf(childOf(item, 'LastModified')) ?? '',
      etag: textOf(childOf(item, 'ETag')) ?? '',
      size: Number(textOf(childOf(item, 'Size')) ?? 0),
      storageClass: textOf(childOf(item, 'StorageClass')) ?? 'STANDARD',
      owner: owner === undefined ? undefined : { id: textOf(childOf(owner, 'ID')) ?? '', displayName: textOf(childOf(owner, 'DisplayName')) ?? '' },
    });
  }
  const commonPrefixes = listOf(doc, 'CommonPrefixes')
    .map((cp) => strip(textOf(childOf(cp, 'Prefix'))))
    .filter((p): p is string => p !== undefined);
  return {
    contents,
    commonPrefixes,
    isTruncated: textOf(childOf(doc, 'IsTruncated')) === 'true',
    nextMarker: strip(textOf(childOf(doc, 'NextMarker')) || undefined),
    nextContinuationToken: textOf(childOf(doc, 'NextContinuationToken')) || undefined,
  };
}

/** The backend's S3 error, re-raised with its code when it is one S3 clients know. */
export function backendError(status: number, body: string): S3Error {
  const error = childOf(parseXml(body), 'Error');
  const code = textOf(childOf(error, 'Code'));
  const message = textOf(childOf(error, 'Message')) || `The backend answered ${status}`;
  if (code && code in S3_ERROR_STATUS) return new S3Error(code as S3ErrorCode, message);
  if (status === 503) return new S3Error('ServiceUnavailable', message);
  return new S3Error('BadGateway', `The backend answered ${status}${code ? ` ${code}` : ''}`);
}

function queryString(query: Readonly<Record<string, string>> | undefined): string {
  if (!query) return '';
  const parts = Object.entries(query).map(([k, v]) => `${encodeKey(k, false)}=${encodeKey(v, false)}`);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}
