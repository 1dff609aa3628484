import { notImplemented } from '../errors';
import type { Forward, HeaderMap } from '../http';
import type { BucketContext } from './context';

/** Content and precondition headers a PUT carries to the backend (the spec's list). */
const PUT_HEADERS = [
  'content-length', 'content-type', 'content-disposition', 'content-encoding', 'content-language', 'cache-control',
  'expires', 'content-md5', 'if-match', 'if-none-match',
];

/**
 * `x-amz-*` headers S3 stores with the object. The spec's presigned PUT could not carry them; the gateway
 * signs them on a header-signed backend request instead, so `aws s3 cp --metadata` round-trips.
 */
const OBJECT_HEADER_PREFIXES = ['x-amz-meta-', 'x-amz-server-side-encryption', 'x-amz-checksum-'];
const OBJECT_HEADERS = ['x-amz-tagging', 'x-amz-storage-class', 'x-amz-website-redirect-location', 'x-amz-acl'];

/** PutObject: the client's body streams to the backend untouched. */
export function putObject(ctx: BucketContext, key: string): Promise<Forward> {
  const sha = ctx.request.headers.get('x-amz-content-sha256') ?? '';
  if (sha.startsWith('STREAMING-')) throw notImplemented('aws-chunked uploads');
  return ctx.store.forwardObject({ method: 'PUT', key, headers: writeHeaders(ctx.request.headers), body: 'client', requestId: ctx.requestId });
}

/** The request headers a write passes on, names lower-case. */
export function writeHeaders(headers: Headers): HeaderMap {
  const out: HeaderMap = {};
  headers.forEach((value, name) => {
    if (PUT_HEADERS.includes(name) || OBJECT_HEADERS.includes(name) || OBJECT_HEADER_PREFIXES.some((p) => name.startsWith(p))) {
      out[name] = value;
    }
  });
  return out;
}

/** DeleteObject: S3 answers 204 whether or not the key existed; a `versionId` is ignored (spec). */
export function deleteObject(ctx: BucketContext, key: string): Promise<Forward> {
  return ctx.store.forwardObject({ method: 'DELETE', key, headers: {}, requestId: ctx.requestId });
}
