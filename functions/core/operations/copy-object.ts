/**
 * CopyObject (spec rules 4-6). The destination's backend performs the copy, signed with the destination's
 * credentials, from the source rewritten into its backend bucket and key space. The backend's answer is
 * passed through; an error (also one inside a 200) is rewritten into the client's terms.
 */
import type { Bucket, S3Backend } from '../config/types';
import { S3Error, notImplemented } from '../errors';
import type { ProxyResponse } from '../http';
import { decodePathComponent, encodeKey, validateKey } from '../keys';
import { backendBytes } from '../streams';
import { parseXml, childOf } from '../xml';
import { backendErrorResponse, passThrough, s3StoreOf, utf8 } from './backend-response';
import { authorize } from '../auth/authorize';
import type { BucketContext } from '../context';
import { authorizeKey, respond, type Handler } from './operation';
import { copyHeaders } from './write-headers';

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

/** Source and destination must be S3 backends with a bucket name, on one endpoint and region (rule 4). */
function copyableBackends(source: Bucket, destination: Bucket): { source: S3Backend; destination: S3Backend } {
  const src = source.backend;
  const dst = destination.backend;
  if (src.type !== 's3' || dst.type !== 's3') throw notImplemented('CopyObject between non-S3 backends');
  if (!src.bucketName || !dst.bucketName) throw notImplemented('CopyObject with a backend that has no bucket_name');
  if (normalizeEndpoint(src.endpoint) !== normalizeEndpoint(dst.endpoint) || src.region !== dst.region) {
    throw notImplemented('CopyObject across backend endpoints or regions');
  }
  return { source: src, destination: dst };
}

function normalizeEndpoint(endpoint: string): string {
  return endpoint.toLowerCase().replace(/\/+$/, '');
}

/**
 * CopyObject: the source is authorized as a read (GetObject, or a versioned read when it names a version),
 * the destination as a write; an unknown source bucket is NoSuchBucket. Anonymous callers never copy.
 */
export const copyObject: Handler<'CopyObject'> = async (op, ctx) => {
  authorizeKey(ctx, op, op.key);
  const source = parseCopySource(op.copySource);
  const sourceBucket = ctx.config.buckets.get(source.bucket);
  if (!sourceBucket) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: source.bucket });
  authorize(ctx.identity, { name: 'GetObject', versionId: source.versionId }, { bucket: sourceBucket, key: source.key });
  return respond(await copy(ctx, op.key, source, sourceBucket));
};

/** Performs the copy, authorized: the destination's backend copies from the source's backend key. */
async function copy(ctx: BucketContext, key: string, source: CopySource, sourceBucket: Bucket): Promise<ProxyResponse> {
  const backends = copyableBackends(sourceBucket, ctx.bucket);
  const store = s3StoreOf(ctx, 'CopyObject');
  const headers = Object.assign(copyHeaders(ctx.request.headers), { 'x-amz-copy-source': backendCopySource(source, backends.source) });
  const response = await store.send({ method: 'PUT', key, headers }, ctx.request.signal);
  const body = await backendBytes(response.body);
  // An error (S3 may report one inside a 200) names the backend bucket and source: rewritten.
  if (response.status !== 200 || childOf(parseXml(utf8(body)), 'Error') !== undefined) return backendErrorResponse(ctx, response, body);
  return passThrough(response, body, ctx.requestId);
}
