import { ownsBucket } from '../auth/authorize';
import type { Identity } from '../auth/identity';
import type { Bucket } from '../config/types';
import { S3Error, accessDenied } from '../errors';
import type { ProxyResponse } from '../http';
import { authorizeBucket, respond, type Handler } from './operation';
import { emptyResponse, s3Xml } from '../responses';

/** Bucket-level operations that need no backend call: ListBuckets, CreateBucket, HeadBucket, GetBucketLocation. */

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

/**
 * CreateBucket: virtual buckets are configured, never created, so this is always a refusal and nothing
 * reaches a backend. On a name that is a virtual bucket (with path mapping, a client-level bucket, standing
 * for its mapped buckets) a caller with any scope on one of them gets S3's answer to the owner of an
 * existing bucket, 409 BucketAlreadyOwnedByYou, which rclone and other tools that create before they write
 * take as success; others get 403. Any other name is 403 AccessDenied, as on S3 when creating buckets is not
 * allowed.
 *
 * @param buckets The virtual buckets `name` stands for (none when it names no bucket).
 */
export function createBucketRefusal(identity: Identity, name: string, buckets: readonly Bucket[]): S3Error {
  if (!buckets.some((bucket) => ownsBucket(identity, bucket))) return accessDenied();
  return new S3Error('BucketAlreadyOwnedByYou', 'Your previous request to create the named bucket succeeded and you already own it.', { BucketName: name });
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
