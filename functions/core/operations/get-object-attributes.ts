/**
 * GetObjectAttributes (`GET /{bucket}/{key}?attributes`): an object's ETag, size, storage class and part
 * count without its body, as `aws s3api get-object-attributes` and the SDKs ask. It is answered from the
 * store's HEAD of the object, so every backend serves it, and it tells only what a HEAD tells: no checksums
 * (PutObject does not carry them to the store) and no list of parts, only how many there are.
 */
import type { ObjectRequest } from '../backends/store';
import { s3CodeForStatus } from '../backends/translate';
import { S3Error, isS3ErrorCode, s3Message, type S3ErrorCode } from '../errors';
import { isProxyResponse, isRewriteBody, type Forward, type HeaderMap, type ProxyResponse, type ResponseHead } from '../http';
import { unquoted } from '../preconditions';
import { errorResponse } from '../responses';
import type { XmlNode } from '../xml';
import { documentResponse } from './backend-response';
import { partsCount, refuseVersionOffS3 } from './get-object';
import type { Handler } from './operation';
import { sseCustomerHeaders } from './write-headers';

/** The attributes S3 knows, in the order its answer lists them. */
const ATTRIBUTES = ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'] as const;
export type Attribute = (typeof ATTRIBUTES)[number];
const KNOWN: ReadonlySet<string> = new Set(ATTRIBUTES);

/** Response headers of the HEAD that S3's answer carries as well; an error carries only the version's. */
const ANSWER_HEADERS = ['last-modified', 'x-amz-version-id', 'x-amz-delete-marker'];
const ERROR_HEADERS = ['x-amz-version-id', 'x-amz-delete-marker'];

/** Authorized as HeadObject is (`head_object`; `get_object_version` for a version): it tells what a HEAD does. */
export const getObjectAttributes: Handler<'GetObjectAttributes'> = async (op, ctx): Promise<Forward> => {
  const wanted = requestedAttributes(ctx.request.headers.get('x-amz-object-attributes'));
  refuseVersionOffS3(ctx, op.versionId);
  const request: ObjectRequest = {
    method: 'HEAD',
    key: op.key,
    query: op.versionId === undefined ? undefined : { versionId: op.versionId },
    headers: sseCustomerHeaders(ctx.request.headers),
    requestId: ctx.requestId,
    resource: ctx.request.rawPath,
    trace: ctx.record?.trace,
  };
  const forward = await ctx.store.forwardObject(request);
  const read: AttributesRead = { wanted, versionId: op.versionId, requestId: ctx.requestId, resource: ctx.request.rawPath };
  return {
    ...forward,
    respond: (status, headers) => {
      const answer = forward.respond(status, headers);
      return isRewriteBody(answer) ? answer : attributesAnswer(answer, read);
    },
  };
};

/** What the client asked: the attributes, the version, and what its answer names. */
export interface AttributesRead {
  readonly wanted: ReadonlySet<Attribute>;
  readonly versionId?: string;
  readonly requestId: string;
  readonly resource: string;
}

/**
 * The client's answer to the store's answer to the HEAD: the document from a 200; from an error, which a
 * HEAD has without a body (or built already without one), S3's XML error for a GET, with the delete
 * marker's headers when S3 sends them.
 */
export function attributesAnswer(answer: ResponseHead | ProxyResponse, read: AttributesRead): ProxyResponse {
  if (answer.status !== 200) {
    const named = isProxyResponse(answer) ? answer.errorCode : undefined;
    const error = errorResponse(headError(answer.status, named, read.versionId), read.requestId, 'GET', read.resource);
    return { ...error, headers: { ...error.headers, ...pick(answer.headers, ERROR_HEADERS) } };
  }
  if (isProxyResponse(answer)) return answer;
  return documentResponse('GetObjectAttributesResponse', attributes(answer.headers, read.wanted), read.requestId, pick(answer.headers, ANSWER_HEADERS));
}

/**
 * The attributes named in `x-amz-object-attributes` (comma-separated), refused as S3 refuses them: the
 * header missing or empty, or a name it does not know.
 */
export function requestedAttributes(header: string | null): ReadonlySet<Attribute> {
  const names = (header ?? '').split(',').map((name) => name.trim());
  if (names.every((name) => name === '')) {
    throw new S3Error('InvalidArgument', 'x-amz-object-attributes header specifying the attributes to be retrieved is either missing or empty');
  }
  if (names.some((name) => !KNOWN.has(name))) throw new S3Error('InvalidArgument', 'Invalid attribute name specified.');
  return new Set(names as Attribute[]);
}

/**
 * The answer's elements from the HEAD's headers, in S3's order: the ETag without its quotes (as S3 writes
 * it here), the storage class even when STANDARD (which HEAD leaves out), and for an object uploaded in
 * parts their count. Checksum has nothing to show.
 */
export function attributes(headers: HeaderMap, wanted: ReadonlySet<Attribute>): XmlNode {
  const etag = headers.etag ?? '';
  const parts = partsCount(etag);
  return {
    ETag: wanted.has('ETag') ? unquoted(etag) : undefined,
    ObjectParts: wanted.has('ObjectParts') && parts !== undefined ? { PartsCount: parts } : undefined,
    StorageClass: wanted.has('StorageClass') ? (headers['x-amz-storage-class'] ?? 'STANDARD') : undefined,
    ObjectSize: wanted.has('ObjectSize') ? Number(headers['content-length'] ?? 0) : undefined,
  };
}

/**
 * The error S3 answers a GET with, for a HEAD's error: the code the store's answer already names (a
 * missing bucket is NoSuchBucket), else one read from its status alone.
 */
function headError(status: number, named: string | undefined, versionId: string | undefined): S3Error {
  const code: S3ErrorCode =
    named !== undefined && isS3ErrorCode(named) ? named
    : status === 404 ? (versionId === undefined ? 'NoSuchKey' : 'NoSuchVersion')
    : status === 405 ? 'MethodNotAllowed'
    : s3CodeForStatus(status);
  return new S3Error(code, s3Message(code) ?? `The backend answered ${code}`);
}

function pick(headers: HeaderMap, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
