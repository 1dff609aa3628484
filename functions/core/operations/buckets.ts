import type { ProxyResponse } from '../http';
import { authorizeBucket, respond, type Handler } from './operation';
import { emptyResponse, s3Xml } from '../responses';

/** Bucket-level reads that need no backend call: ListBuckets, HeadBucket, GetBucketLocation. */

/**
 * ListBuckets lists every virtual bucket (the spec's rule), owned by the gateway and dated by its start. In a
 * path-mapped deployment the names are the buckets clients address: the distinct first path segments.
 */
export function listBuckets(names: readonly string[], requestId: string, createdAt: string): ProxyResponse {
  const buckets = [...names].sort().map((name) => ({ Name: name, CreationDate: createdAt }));
  return s3Xml(
    'ListAllMyBucketsResult',
    { Owner: { ID: 'gateway', DisplayName: 'gateway' }, Buckets: { Bucket: buckets } },
    requestId,
  );
}

/** HeadBucket and GetBucketLocation, authorized as listing somewhere in the bucket. */
export const bucketRead: Handler<'HeadBucket' | 'GetBucketLocation'> = async (op, ctx) => {
  authorizeBucket(ctx, op);
  return respond(op.name === 'HeadBucket' ? headBucket(ctx.requestId) : bucketLocation(ctx.requestId));
};

export function headBucket(requestId: string): ProxyResponse {
  return emptyResponse(200, requestId, { 'x-amz-bucket-region': 'us-east-1' });
}

/** Virtual buckets live in the gateway's own region; clients use it only to sign further requests. */
export function bucketLocation(requestId: string): ProxyResponse {
  return s3Xml('LocationConstraint', {}, requestId);
}
