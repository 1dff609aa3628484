import { ownsBucket } from '../auth/authorize';
import type { Identity } from '../auth/identity';
import type { Bucket } from '../config/types';
import { S3Error, accessDenied } from '../errors';
import type { ProxyResponse } from '../http';
import { fromBase64Url, fromUtf8, toBase64Url, utf8 } from '../bytes/encoding';
import type { Query } from '../query';
import { emptyResponse, s3Xml } from '../responses';
import { respond, type Handler } from './operation';

/** Bucket-level operations that need no backend call: ListBuckets, CreateBucket, HeadBucket, GetBucketLocation. */

/**
 * ListBuckets lists every virtual bucket (the spec's rule), owned by the gateway, dated by its start, in the
 * gateway's region. In a path-mapped deployment the names are the buckets clients address: the distinct first
 * path segments. The query narrows and pages the list as S3 has since 2024 (`aws s3 ls
 * --bucket-name-prefix`, boto3's ListBuckets paginator): `prefix`, `bucket-region`, `max-buckets` (1-10000;
 * without it, pages of 10,000 once any of the others is given, else the whole list) and
 * `continuation-token`, the last name shown, base64url-encoded.
 */
export function listBuckets(names: readonly string[], query: Query, requestId: string, createdAt: string): ProxyResponse {
  const { prefix, region, maxBuckets, after } = listBucketsParams(query);
  // Every virtual bucket is in the gateway's region: another region holds none of them.
  const inRegion = region === undefined || region === GATEWAY_REGION ? [...names] : [];
  const listed = inRegion.sort().filter((name) => name.startsWith(prefix ?? '') && (after === undefined || name > after));
  const shown = maxBuckets === undefined ? listed : listed.slice(0, maxBuckets);
  const next = shown.length < listed.length ? toBase64Url(utf8(shown[shown.length - 1])) : undefined;
  return s3Xml(
    'ListAllMyBucketsResult',
    {
      Owner: { ID: 'gateway', DisplayName: 'gateway' },
      Buckets: { Bucket: shown.map((name) => ({ Name: name, CreationDate: createdAt, BucketRegion: GATEWAY_REGION })) },
      ContinuationToken: next,
      Prefix: prefix,
    },
    requestId,
  );
}

/** The region every virtual bucket reports (HeadBucket, GetBucketLocation, ListBuckets). */
const GATEWAY_REGION = 'us-east-1';
const MAX_BUCKETS = 10_000;

function listBucketsParams(query: Query): { prefix?: string; region?: string; maxBuckets?: number; after?: string } {
  const prefix = query.get('prefix') || undefined;
  const region = query.get('bucket-region') || undefined;
  const token = query.get('continuation-token') || undefined;
  const rawMax = query.get('max-buckets');
  if (rawMax !== undefined && !(/^\d{1,5}$/.test(rawMax) && Number(rawMax) >= 1 && Number(rawMax) <= MAX_BUCKETS)) {
    throw new S3Error('InvalidArgument', `max-buckets must be an integer from 1 to ${MAX_BUCKETS}`, { ArgumentName: 'max-buckets', ArgumentValue: rawMax });
  }
  const paged = rawMax !== undefined || prefix !== undefined || region !== undefined || token !== undefined;
  return { prefix, region, maxBuckets: rawMax !== undefined ? Number(rawMax) : paged ? MAX_BUCKETS : undefined, after: token === undefined ? undefined : tokenName(token) };
}

/** The bucket name a continuation token carries; InvalidArgument for one the gateway did not write. */
function tokenName(token: string): string {
  const bytes = fromBase64Url(token);
  try {
    if (bytes !== undefined && bytes.length > 0) return fromUtf8(bytes);
  } catch {
    // not UTF-8: refused below
  }
  throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect', { ArgumentName: 'continuation-token' });
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
  return respond(op.name === 'HeadBucket' ? headBucket(ctx.requestId) : bucketLocation(ctx.requestId));
};

export function headBucket(requestId: string): ProxyResponse {
  return emptyResponse(200, requestId, { 'x-amz-bucket-region': GATEWAY_REGION });
}

/** Virtual buckets live in the gateway's own region; clients use it only to sign further requests. */
export function bucketLocation(requestId: string): ProxyResponse {
  return s3Xml('LocationConstraint', {}, requestId);
}
