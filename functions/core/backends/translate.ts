import { S3Error, invalidRequest, isS3ErrorCode, notImplemented, s3Message, unsupportedHeader, type S3ErrorCode } from '../errors';
import { isProxyResponse, isRewriteBody, type HeaderMap, type ProxyResponse, type ResponseHead, type ReadonlyHeaders } from '../http';
import { emptyResponse, errorResponse } from '../responses';
import type { BackendCall, DeleteBatch, DeleteEntry, DeleteOutcome, DeleteResultEntry, ObjectRequest, ObjectStore, StoreClient } from './store';

/**
 * Helpers the non-S3 stores share to answer in S3's terms: which response headers S3 clients see, and the
 * S3 error document that replaces a backend's own error body.
 */

/** A backend's HTTP status in S3's terms, when its own error code says nothing more specific. */
export const S3_CODE_BY_STATUS: Readonly<Record<number, S3ErrorCode>> = {
  400: 'InvalidArgument',
  401: 'AccessDenied',
  403: 'AccessDenied',
  404: 'NoSuchKey',
  411: 'MissingContentLength',
  412: 'PreconditionFailed',
  413: 'EntityTooLarge',
  416: 'InvalidRange',
  429: 'SlowDown',
  503: 'SlowDown',
};

/** The S3 code of a backend's error status, for an S3-compatible store that named none S3 knows. */
export function s3CodeForStatus(status: number): S3ErrorCode {
  return S3_CODE_BY_STATUS[status] ?? (status >= 500 ? 'InternalError' : 'InvalidRequest');
}

/** Standard response headers an object read or write passes through unchanged. */
export const OBJECT_RESPONSE_HEADERS = [
  'etag', 'last-modified', 'content-length', 'content-type', 'content-range', 'content-encoding', 'content-language',
  'content-disposition', 'cache-control', 'expires', 'accept-ranges', 'date',
];

/** `x-amz-meta-*` request headers as `[name, value]` pairs, names lower-case without the prefix. */
export function userMetadata(headers: HeaderMap): [string, string][] {
  return Object.entries(headers)
    .filter(([name]) => name.startsWith('x-amz-meta-'))
    .map(([name, value]) => [name.slice('x-amz-meta-'.length), value]);
}

/**
 * The client's response headers: the standard ones, backend metadata (`metaPrefix`) renamed by `metaName`,
 * anything `extra` adds, and the gateway's request id.
 */
export function s3ResponseHeaders(
  headers: ReadonlyHeaders,
  requestId: string,
  metaPrefix: string,
  metaName: (backendName: string) => string,
): HeaderMap {
  const out: HeaderMap = {};
  headers.forEach((value, name) => {
    if (OBJECT_RESPONSE_HEADERS.includes(name)) out[name] = value;
    else if (name.startsWith(metaPrefix)) out[`x-amz-meta-${metaName(name.slice(metaPrefix.length))}`] = value;
  });
  out['x-amz-request-id'] = requestId;
  return out;
}

/** The S3 error document for a forwarded request; the backend's body is discarded. */
export function s3ErrorResponse(err: S3Error, request: ObjectRequest): ProxyResponse {
  return errorResponse(err, request.requestId, request.method, `/${request.key}`);
}

/** S3's DeleteObject answer, whether or not the key existed. */
export function deleted(request: ObjectRequest): ProxyResponse {
  return emptyResponse(204, request.requestId);
}

const TAGGING = 'x-amz-tagging';

export type Respond = (status: number, headers: ReadonlyHeaders) => ResponseHead | ProxyResponse;

/** Object features S3 keeps that Azure and GCS stores do not carry out (by header name prefix). */
const UNSUPPORTED_PREFIXES = [
  'x-amz-server-side-encryption-customer-',
  'x-amz-server-side-encryption-aws-kms-',
  'x-amz-server-side-encryption-context',
  TAGGING,
  'x-amz-object-lock-',
  'x-amz-website-redirect-location',
];

/**
 * What an object request asks that an Azure or GCS store cannot carry out, refused rather than dropped:
 * dropped, a client would believe its object encrypted under its own or a KMS key, tagged, locked against
 * deletion, or redirecting. `x-amz-server-side-encryption: AES256` is taken, as both stores encrypt every
 * object at rest under their own keys. A read with SSE-C keys is S3's 400 for an object not written with
 * one, as none is here. Tags (`x-amz-tagging`, a copy's directive) are taken by a store that `keepsTags`.
 *
 * @throws S3Error NotImplemented naming the header, or InvalidRequest for a read.
 */
export function refuseUnsupportedFeatures(request: Pick<ObjectRequest, 'method' | 'headers'>, keepsTags = false): void {
  for (const name of Object.keys(request.headers)) {
    if (!UNSUPPORTED_PREFIXES.some((prefix) => name.startsWith(prefix)) || (keepsTags && name.startsWith(TAGGING))) continue;
    if (request.method === 'PUT') throw unsupportedHeader(name);
    if (name.startsWith('x-amz-server-side-encryption-customer-')) throw invalidRequest('The encryption parameters are not applicable to this object.');
  }
  const sse = request.headers['x-amz-server-side-encryption'];
  if (request.method === 'PUT' && sse !== undefined && sse !== 'AES256') throw unsupportedHeader('x-amz-server-side-encryption');
}

/** How many keys of a DeleteObjects request a store without batch deletes deletes at once. */
export const DELETE_CONCURRENCY = 8;

/**
 * DeleteObjects key by key, DELETE_CONCURRENCY at once, each exactly as the store's DeleteObject: its
 * Forward (an `<ETag>` as If-Match, which the store pins) sent with the store's own client, and its answer
 * read as a client would get it. An entry naming a version is NotImplemented: these stores keep none.
 */
export async function deleteEach(store: ObjectStore, client: StoreClient, batch: DeleteBatch, call?: BackendCall): Promise<DeleteOutcome> {
  const failures: (S3Error | undefined)[] = new Array(batch.entries.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < batch.entries.length) {
      const at = next++;
      failures[at] = await deleteOne(store, client, batch.entries[at], batch.requestId, call);
    }
  };
  await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, batch.entries.length) }, worker));
  const deleted: DeleteResultEntry[] = [];
  const errors: DeleteResultEntry[] = [];
  batch.entries.forEach((entry, at) => {
    const failure = failures[at];
    const named: DeleteResultEntry = entry.versionId === undefined ? { Key: entry.key } : { Key: entry.key, VersionId: entry.versionId };
    if (failure === undefined) deleted.push(named);
    else errors.push(Object.assign(named, { Code: failure.code, Message: failure.message }));
  });
  return { deleted, errors };
}

/** One entry's DeleteObject; its error, if it failed. A client gone away fails the whole request. */
async function deleteOne(store: ObjectStore, client: StoreClient, entry: DeleteEntry, requestId: string, call?: BackendCall): Promise<S3Error | undefined> {
  if (entry.versionId !== undefined) return notImplemented('Version-scoped deletes on this backend');
  try {
    const headers: HeaderMap = entry.etag === undefined ? {} : { 'if-match': entry.etag };
    const forward = await store.forwardObject({ method: 'DELETE', key: entry.key, headers, requestId, trace: call?.trace });
    const response = await client(forward.request, call);
    await response.body?.cancel();
    const answer = forward.respond(response.status, response.headers);
    // Only S3 stores rewrite a body, and they delete in one batch.
    if (isRewriteBody(answer)) return new S3Error('BadGateway', `The backend answered ${response.status}`);
    if (answer.status < 300) return undefined;
    const named = isProxyResponse(answer) ? answer.errorCode : undefined;
    const code = named !== undefined && isS3ErrorCode(named) ? named : s3CodeForStatus(answer.status);
    return new S3Error(code, s3Message(code) ?? `The backend answered ${answer.status}`);
  } catch (err) {
    if (err instanceof S3Error) return err;
    throw err;
  }
}

/** CopyObject's `x-amz-copy-source-if-*` as the read preconditions they are of the source (`if-*`). */
export function copySourceConditions(headers: HeaderMap): HeaderMap {
  const out: HeaderMap = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(COPY_SOURCE_IF)) out[`if-${name.slice(COPY_SOURCE_IF.length)}`] = value;
  }
  return out;
}

const COPY_SOURCE_IF = 'x-amz-copy-source-if-';

/** Whether a copy's `x-amz-metadata-directive` is REPLACE (checked by the handler: COPY or REPLACE). */
export function replacesMetadata(headers: HeaderMap): boolean {
  return headers['x-amz-metadata-directive'] === 'REPLACE';
}
