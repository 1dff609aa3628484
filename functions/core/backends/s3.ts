import type { S3Backend } from '../config/types';
import { backendBytes, backendDocument } from '../streams';
import { S3Error, isS3ErrorCode, s3Message } from '../errors';
import type { BackendResponse, Forward, HeaderMap, ProxyResponse, ReadonlyHeaders } from '../http';
import { encodeKey } from '../keys';
import { parseRange, unsatisfiedRange } from '../range';
import { sha256Hex } from '../bytes';
import { base64Digest } from '../checksums';
import { S3_XMLNS, withErrorCode, xmlResponse } from '../responses';
import { EMPTY_SHA256, UNSIGNED_PAYLOAD, signRequest } from '../sigv4';
import { buildXml, childOf, listOf, parseXml, textOf, type ParsedXml, type XmlNode } from '../xml';
import { relativeKey } from '../listing/paging';
import { readS3ListingBody } from '../listing/s3-page';
import {
  documentHeaders,
  passThroughHeaders,
  type BackendCall,
  type DeleteBatch,
  type DeleteOutcome,
  type DeleteResultEntry,
  type ListPage,
  type ListParams,
  type ObjectRequest,
  type ObjectStore,
  type StoreDeps,
} from './store';
import { s3CodeForStatus, s3ErrorResponse } from './translate';


/** An S3-compatible backend (AWS S3, Ceph RGW, MinIO, s3rver…), addressed path-style. */
export class S3Store implements ObjectStore {
  /** S3's API checks Content-MD5 (BadDigest, nothing committed): the gateway need not hash it again. */
  readonly checksContentMd5 = true;
  readonly keepsParts = true;
  /** The endpoint and encoded backend bucket: every URL starts with it. */
  private readonly base: string;
  /** Names the client must never see: the backend bucket, the endpoint's host and `backend_prefix`. */
  private readonly backendNames: readonly string[];

  constructor(
    private readonly backend: S3Backend,
    private readonly deps: StoreDeps,
  ) {
    this.base = backend.bucketName ? `${backend.endpoint}/${encodeKey(backend.bucketName, false)}` : backend.endpoint;
    const prefix = backend.backendPrefix;
    this.backendNames = [backend.bucketName ?? '', prefix, prefix.replace(/\/+$/, ''), backend.endpoint.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '')].filter(
      (name) => name.length >= 2,
    );
  }

  /** Absolute backend URL of `key` (mapped under `backend_prefix`), or of the bucket when `key` is undefined. */
  url(key?: string, query?: Readonly<Record<string, string>>): string {
    const path = key === undefined ? '/' : '/' + encodeKey(this.backend.backendPrefix + key);
    return this.base + path + queryString(query);
  }

  async forwardObject(request: ObjectRequest): Promise<Forward> {
    const url = this.url(request.key, request.query);
    const headers = await this.sign(request.method, url, request.headers, request.payloadHash ?? UNSIGNED_PAYLOAD);
    const range = request.method === 'GET' || request.method === 'HEAD' ? parseRange(request.headers.range) : undefined;
    return {
      kind: 'forward',
      request: { method: request.method, url, headers, body: request.body ?? null },
      respond: (status, responseHeaders) => {
        // A range that selects no byte is 416 as S3 answers it (RGW answers `bytes=-0` with the whole object).
        const unsatisfied = unsatisfiedRange(range, status, responseHeaders);
        if (unsatisfied !== undefined) return s3ErrorResponse(unsatisfied, request);
        // An error or redirect document names the backend bucket (and a key under `backend_prefix`):
        // rewritten. HEAD has none.
        if (status >= 300 && status !== 304 && request.method !== 'HEAD') {
          const resource = request.resource ?? `/${request.key}`;
          return { maxBytes: MAX_ERROR_BYTES, rewrite: (body) => this.errorResponse(status, responseHeaders, body, request.requestId, resource) };
        }
        return { status, headers: passThroughHeaders(responseHeaders, request.requestId) };
      },
    };
  }

  /**
   * The backend's S3 error document in the client's terms: its status and code; its message and details
   * only where they name neither the backend bucket, its endpoint nor `backend_prefix`; `Key` in the virtual
   * key space; the client's `resource` and the gateway's request id. No `BucketName` or `HostId`.
   */
  errorResponse(status: number, headers: ReadonlyHeaders, body: Uint8Array, requestId: string, resource: string): ProxyResponse {
    const error = childOf(parseXml(new TextDecoder().decode(body)), 'Error');
    const code = this.clean(textOf(childOf(error, 'Code')) ?? '') || s3CodeForStatus(status);
    const node: Record<string, string | undefined> = { Code: code, Message: this.message(code, textOf(childOf(error, 'Message'))) };
    for (const name of ERROR_DETAILS) {
      const value = textOf(childOf(error, name));
      if (value !== undefined) node[name] = this.clean(value);
    }
    const key = textOf(childOf(error, 'Key'));
    if (key !== undefined) node.Key = this.virtualKey(key);
    Object.assign(node, { Resource: resource, RequestId: requestId });
    const out = passThroughHeaders(headers, requestId);
    // A redirect's Location is the backend's own address.
    for (const name of ['content-length', 'content-type', 'location']) delete out[name];
    return withErrorCode(xmlResponse(status, buildXml('Error', node as XmlNode), requestId, out), code);
  }

  /**
   * The backend's message for an error `code` as the client may read it: S3's own words when it sent none
   * (Ceph RGW's NoSuchKey has an empty one), a neutral one when it names the backend.
   */
  message(code: string, given: string | undefined): string {
    if (given === undefined || given === '') return s3Message(code) ?? `The backend answered ${code}`;
    return this.clean(given) ?? `The backend answered ${code}`;
  }

  /** `text` when it names nothing of the backend's (bucket, endpoint, `backend_prefix`, an ARN), else undefined. */
  clean(text: string): string | undefined {
    return this.backendNames.some((name) => text.includes(name)) || /\barn:/i.test(text) ? undefined : text;
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
    return relativeKey(backendKey, this.backend.backendPrefix);
  }

  /**
   * Signs and sends a request whose answer the core reads itself (copy, multipart control, batch delete).
   * A body is small and in hand: it is signed with its SHA-256 and sent with its length.
   */
  async send(request: StoreRequest, call?: BackendCall): Promise<BackendResponse> {
    const url = this.url(request.key, request.query);
    const headers: HeaderMap = Object.assign({}, request.headers);
    let payloadHash = EMPTY_SHA256;
    if (request.body !== undefined) {
      headers['content-length'] = String(request.body.length);
      payloadHash = await sha256Hex(request.body);
    }
    const signed = await this.sign(request.method, url, headers, payloadHash);
    return this.deps.client({ method: request.method, url, headers: signed, body: request.body ?? null }, call);
  }

  /**
   * DeleteObjects as one batch request: the entries re-serialized under `backend_prefix`, with a Content-MD5
   * (and the client's checksum algorithm, if it used one) computed for that new body, and the backend's
   * DeleteResult mapped back into the virtual key space. Its error, also one inside a 200, is rewritten.
   */
  async deleteObjects(batch: DeleteBatch, call?: BackendCall): Promise<DeleteOutcome | ProxyResponse> {
    const objects = batch.entries.map((entry) => ({ Key: this.backendKey(entry.key), VersionId: entry.versionId, ETag: entry.etag }));
    const body = new TextEncoder().encode(buildXml('Delete', { Quiet: batch.quiet ? 'true' : undefined, Object: objects }, S3_XMLNS));
    const headers: HeaderMap = { ...batch.headers, 'content-type': 'application/xml', 'content-md5': base64Digest('md5', body) };
    for (const algorithm of batch.checksums) headers[`x-amz-checksum-${algorithm}`] = base64Digest(algorithm, body);
    const response = await this.send({ method: 'POST', query: { delete: '' }, headers, body }, call);
    const answer = await backendBytes(response.body);
    const doc = parseXml(new TextDecoder().decode(answer));
    const result = response.status === 200 ? childOf(doc, 'DeleteResult') : undefined;
    if (result === undefined) {
      if (response.status !== 200 || childOf(doc, 'Error') !== undefined) return this.errorResponse(response.status, response.headers, answer, batch.requestId, batch.resource);
      // s3rver answers unknown sub-resources with a listing: never a misleading success.
      throw new S3Error('BadGateway', 'The backend did not answer with DeleteResult');
    }
    const mapped = (name: 'Deleted' | 'Error'): DeleteResultEntry[] =>
      listOf(result, name).flatMap((entry) => {
        const fields = textFields(entry);
        const key = this.virtualKey(fields.Key ?? '');
        // A per-key error message that names the backend bucket or prefix is not the client's to read.
        if (fields.Message !== undefined) fields.Message = this.message(fields.Code ?? 'an error', fields.Message);
        return key === undefined ? [] : [Object.assign(fields, { Key: key })];
      });
    return { deleted: mapped('Deleted'), errors: mapped('Error'), headers: documentHeaders(response) };
  }

  /**
   * A listing page. Positions are keys (V2 `start-after`, V1 `marker`), which S3 resumes from as cheaply as
   * from its own token, so no backend token is asked for or handed out; owners are never asked for.
   */
  async list(params: ListParams, call?: BackendCall): Promise<ListPage> {
    const prefix = this.backend.backendPrefix;
    const query: Record<string, string> = { 'encoding-type': 'url', 'max-keys': String(params.maxKeys), prefix: prefix + params.prefix };
    if (params.delimiter) query.delimiter = params.delimiter;
    if (params.version === 2) {
      query['list-type'] = '2';
      if (params.startAfter) query['start-after'] = prefix + params.startAfter;
    } else if (params.marker) {
      query.marker = prefix + params.marker;
    }
    const url = this.url(undefined, query);
    const headers = await this.sign('GET', url, {}, EMPTY_SHA256);
    const response = await this.deps.client({ method: 'GET', url, headers }, call);
    if (response.status !== 200) {
      const err = backendError(response.status, await backendDocument(response.body));
      throw this.clean(err.message) === undefined ? new S3Error(err.code, `The backend answered ${err.code}`) : err;
    }
    const page = await readS3ListingBody(response.body, prefix);
    if (page === undefined) throw new S3Error('BadGateway', 'The backend answered the listing with an unreadable document');
    return page;
  }

  /**
   * Signed headers for a backend request, or the headers untouched for an anonymous backend. Every backend
   * request of an S3 bucket passes here, Forwards and the core's own alike, so this is where a requester-pays
   * bucket's requests get `x-amz-request-payer`, signed with the rest.
   */
  async sign(method: string, url: string, headers: HeaderMap, payloadHash: string): Promise<HeaderMap> {
    const sent = this.backend.requestPayer === undefined ? headers : { ...headers, ...REQUESTER_PAYS };
    const credentials = await this.deps.credentials();
    if (credentials === undefined) return sent;
    return signRequest({
      method,
      url,
      headers: sent,
      payloadHash,
      credentials,
      region: this.backend.region,
      service: 's3',
      now: this.deps.now(),
    });
  }
}

/**
 * What every backend request of a bucket with `request_payer = "requester"` carries: the gateway's backend
 * account accepts the requester's charges. Who pays is the operator's choice: a client's header is never
 * passed on.
 */
export const REQUESTER_PAYS: Readonly<HeaderMap> = { 'x-amz-request-payer': 'requester' };

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

/** Backend error documents are small; a longer body is not one worth reading. */
const MAX_ERROR_BYTES = 64 * 1024;

/** Error details that describe the request, kept when they name nothing of the backend's. */
const ERROR_DETAILS = [
  'Condition', 'RangeRequested', 'ActualObjectSize', 'ArgumentName', 'ArgumentValue', 'MaxSizeAllowed', 'MinSizeAllowed',
  'ProposedSize', 'PartNumber', 'UploadId', 'VersionId', 'ETag', 'Method', 'ResourceType',
];

/** The backend's S3 error, re-raised with its code when it is one S3 clients know. */
export function backendError(status: number, body: string): S3Error {
  const error = childOf(parseXml(body), 'Error');
  const code = textOf(childOf(error, 'Code'));
  const message = textOf(childOf(error, 'Message')) || `The backend answered ${status}`;
  if (code && isS3ErrorCode(code)) return new S3Error(code, message);
  if (status === 503) return new S3Error('ServiceUnavailable', message);
  return new S3Error('BadGateway', `The backend answered ${status}${code ? ` ${code}` : ''}`);
}

/** The text children of a parsed `<Deleted>` or `<Error>` entry (an empty `<DeleteResult/>` parses as text). */
function textFields(entry: ParsedXml): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof entry === 'string') return out;
  for (const [name, value] of Object.entries(entry)) {
    if (name !== '#text' && typeof value === 'string') out[name] = value;
  }
  return out;
}

function queryString(query: Readonly<Record<string, string>> | undefined): string {
  if (!query) return '';
  const parts = Object.entries(query).map(([k, v]) => `${encodeKey(k, false)}=${encodeKey(v, false)}`);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}
