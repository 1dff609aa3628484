/**
 * CopyObject (spec rules 4-6). The destination's backend performs the copy, signed with the destination's
 * credentials, from the source rewritten into its backend bucket and key space. On an S3 backend its answer
 * is passed through, an error (also one inside a 200) rewritten into the client's terms; Azure and GCS
 * stores copy with their own calls (`ObjectStore.copyObject`) and the gateway writes S3's answer.
 */
import type { Bucket, S3Backend } from '../config/types';
import { S3Error, invalidRequest, notImplemented } from '../errors';
import type { HeaderMap, ProxyResponse } from '../http';
import { decodePathComponent, encodeKey, validateKey } from '../keys';
import { backendBytes } from '../streams';
import { parseXml, childOf } from '../xml';
import { backendErrorResponse, documentResponse, passThrough, s3StoreOf, utf8 } from './backend-response';
import { COPY_SOURCE, authorize } from '../auth/authorize';
import { backendCall, type BucketContext } from '../context';
import { respond, type Handler } from './operation';
import { REQUESTER_PAYS, type StoreRequest } from '../backends/s3';
import { refuseUnsupportedFeatures } from '../backends/translate';
import { checkMetadataSize, copyHeaders } from './write-headers';

/** A parsed `x-amz-copy-source`. */
export interface CopySource {
  readonly bucket: string;
  readonly key: string;
  /** Present (non-empty) when the copy reads one version. */
  readonly versionId?: string;
}

const invalidSource = (why: string): S3Error => new S3Error('InvalidArgument', `Invalid copy source: ${why}`);

/**
 * Parses `x-amz-copy-source`: `/bucket/key` or `bucket/key`, URL-encoded, optionally `?versionId=…`.
 * The key must be one the gateway accepts (spec key rule).
 *
 * @example parseCopySource('/photos/2024%2Fa%20b.jpg?versionId=3') // { bucket: 'photos', key: '2024/a b.jpg', versionId: '3' }
 */
export function parseCopySource(raw: string): CopySource {
  const q = raw.indexOf('?');
  const path = (q < 0 ? raw : raw.slice(0, q)).replace(/^\//, '');
  let versionId: string | undefined;
  if (q >= 0) {
    for (const part of raw.slice(q + 1).split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const name = eq < 0 ? part : part.slice(0, eq);
      if (name !== 'versionId') throw invalidSource(`unsupported parameter "${name}"`);
      versionId = decode(eq < 0 ? '' : part.slice(eq + 1)) || undefined;
    }
  }
  const slash = path.indexOf('/');
  if (slash <= 0 || slash === path.length - 1) throw invalidSource('expected /bucket/key');
  const bucket = decode(path.slice(0, slash));
  const key = decode(path.slice(slash + 1));
  validateKey(key);
  return versionId === undefined ? { bucket, key } : { bucket, key, versionId };
}

function decode(text: string): string {
  try {
    return decodePathComponent(text);
  } catch {
    throw invalidSource('not valid percent-encoded UTF-8');
  }
}

/** The `x-amz-copy-source` the backend gets: the source's backend bucket and key, encoded with the one key encoder. */
export function backendCopySource(source: CopySource, backend: S3Backend): string {
  const path = `/${encodeKey(backend.bucketName ?? '', false)}/${encodeKey(backend.backendPrefix + source.key)}`;
  return source.versionId === undefined ? path : `${path}?versionId=${encodeKey(source.versionId, false)}`;
}

/**
 * The headers naming a copy's source to the destination's backend: `x-amz-copy-source`, and the source
 * bucket's `request_payer`, since the copy reads it (the destination's own is added when it is signed).
 */
export function copySourceHeaders(source: CopySource, backend: S3Backend): HeaderMap {
  const headers = { 'x-amz-copy-source': backendCopySource(source, backend) };
  return backend.requestPayer === undefined ? headers : { ...headers, ...REQUESTER_PAYS };
}

/**
 * Source and destination must be S3 backends with a bucket name, on one endpoint and region (rule 4): the
 * destination's backend reads the source itself.
 */
export function copyableBackends(source: Bucket, destination: Bucket, operation: string): { source: S3Backend; destination: S3Backend } {
  const src = source.backend;
  const dst = destination.backend;
  if (src.type !== 's3' || dst.type !== 's3') throw notImplemented(`${operation} between non-S3 backends`);
  if (!src.bucketName || !dst.bucketName) throw notImplemented(`${operation} with a backend that has no bucket_name`);
  if (normalizeEndpoint(src.endpoint) !== normalizeEndpoint(dst.endpoint) || src.region !== dst.region) {
    throw notImplemented(`${operation} across backend endpoints or regions`);
  }
  return { source: src, destination: dst };
}

function normalizeEndpoint(endpoint: string): string {
  return endpoint.toLowerCase().replace(/\/+$/, '');
}

/** A copy source, found and authorized. */
export interface AuthorizedSource {
  readonly source: CopySource;
  readonly bucket: Bucket;
}

/**
 * The copy source of a CopyObject or UploadPartCopy, authorized as a read (GetObject, or a versioned read
 * when it names a version); an unknown source bucket is NoSuchBucket.
 */
export function authorizedSource(ctx: BucketContext, copySource: string): AuthorizedSource {
  const source = parseCopySource(copySource);
  const bucket = ctx.config.buckets.get(source.bucket);
  if (!bucket) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: source.bucket });
  authorize(ctx.identity, COPY_SOURCE, { versionId: source.versionId, headers: NO_HEADERS }, bucket, source.key);
  return { source, bucket };
}

/** The copy's own headers ask nothing of its source. */
const NO_HEADERS = new Headers();

/**
 * CopyObject: the destination is authorized as a write by its row, the source here as a read (`authorizedSource`).
 * Anonymous callers never copy.
 */
export const copyObject: Handler<'CopyObject'> = async (op, ctx) => {
  const { source, bucket } = authorizedSource(ctx, op.copySource);
  if (ctx.bucket.backend.type !== 's3') return respond(await storeCopy(ctx, op.key, source, bucket));
  const backends = copyableBackends(bucket, ctx.bucket, 'CopyObject');
  const headers = Object.assign(copyHeaders(ctx.request.headers), copySourceHeaders(source, backends.source));
  checkMetadataSize(headers);
  return respond(await sendCopy(ctx, { method: 'PUT', key: op.key, headers }, 'CopyObject'));
};

/**
 * A copy an Azure or GCS store performs, from a source in the same account and store, answered with S3's
 * CopyObjectResult. What S3 checks before it copies is checked here: the metadata and tagging directives,
 * a copy onto itself that changes nothing (InvalidRequest), the metadata's size; object lock, SSE-C, KMS
 * and, on a store that keeps none, tags are refused as on a PutObject to these stores
 * (backends/translate.ts), and a copy of one version is 501, as they keep none.
 */
async function storeCopy(ctx: BucketContext, key: string, source: CopySource, bucket: Bucket): Promise<ProxyResponse> {
  if (ctx.store.copyObject === undefined) throw notImplemented(`CopyObject on a bucket with backend_type "${ctx.bucket.backend.type}"`);
  const headers = copyHeaders(ctx.request.headers);
  refuseStoreCopy(source, headers);
  checkMetadataSize(headers);
  const directive = headers['x-amz-metadata-directive'] ?? 'COPY';
  if (directive !== 'COPY' && directive !== 'REPLACE') throw new S3Error('InvalidArgument', 'Unknown metadata directive.', { ArgumentName: 'x-amz-metadata-directive', ArgumentValue: directive });
  const tagging = headers['x-amz-tagging-directive'] ?? 'COPY';
  if (tagging !== 'COPY' && tagging !== 'REPLACE') throw new S3Error('InvalidArgument', 'Unknown tagging directive.', { ArgumentName: 'x-amz-tagging-directive', ArgumentValue: tagging });
  if (bucket.name === ctx.bucket.name && source.key === key && directive === 'COPY') {
    throw invalidRequest(
      "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
    );
  }
  // COPY is the default: on a store without tags, copying the tags the source cannot have asks for nothing.
  if (tagging === 'COPY') delete headers['x-amz-tagging-directive'];
  refuseUnsupportedFeatures({ method: 'PUT', headers }, ctx.store.tags !== undefined);
  const copied = await ctx.store.copyObject({ source: { backend: bucket.backend, key: source.key }, key, headers, requestId: ctx.requestId }, backendCall(ctx));
  return documentResponse('CopyObjectResult', { LastModified: copied.lastModified, ETag: copied.etag }, ctx.requestId);
}

/**
 * What an Azure or GCS store's copy (CopyObject, UploadPartCopy) cannot take: a copy of one version (501, as
 * they keep none) and a source encrypted with the client's key (400 InvalidRequest, as no object here is).
 */
export function refuseStoreCopy(source: CopySource, headers: HeaderMap): void {
  if (source.versionId !== undefined) throw notImplemented('Copies of one version on this backend');
  if (Object.keys(headers).some((name) => name.startsWith('x-amz-copy-source-server-side-encryption-customer-'))) {
    throw invalidRequest('The encryption parameters are not applicable to this object.');
  }
}

/**
 * Sends a copy (CopyObject, UploadPartCopy) the destination's backend performs, and answers with its result
 * document as it is, or with its error in the client's terms: S3 may report an error inside a 200, which
 * names the backend bucket and source like any other.
 */
export async function sendCopy(ctx: BucketContext, request: StoreRequest, operation: string): Promise<ProxyResponse> {
  const store = s3StoreOf(ctx, operation);
  const response = await store.send(request, backendCall(ctx));
  const body = await backendBytes(response.body);
  if (response.status !== 200 || childOf(parseXml(utf8(body)), 'Error') !== undefined) return backendErrorResponse(ctx, response, body);
  return passThrough(response, body, ctx.requestId);
}
