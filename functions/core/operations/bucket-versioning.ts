/**
 * GetBucketVersioning: whether a bucket keeps versions, as `aws s3api get-bucket-versioning` asks before a
 * client works with them (ListObjectVersions, `?versionId=`).
 */
import { S3Store } from '../backends/s3';
import { backendCall } from '../context';
import { childOf, textOf } from '../xml';
import { documentResponse, readDocument } from './backend-response';
import { respond, type Handler } from './operation';

/**
 * An S3 bucket answers with its backend bucket's `Status` and `MfaDelete`, and nothing else of the
 * backend's configuration. Azure and GCS buckets serve no versions through the gateway (version reads are
 * 501 there), so theirs is the answer of a bucket that never had versioning: an empty configuration.
 * Authorized as HeadBucket is (`list_bucket` somewhere in the bucket), but never anonymously.
 */
export const getBucketVersioning: Handler<'GetBucketVersioning'> = async (_op, ctx) => {
  if (!(ctx.store instanceof S3Store)) return respond(documentResponse('VersioningConfiguration', {}, ctx.requestId));
  const response = await ctx.store.send({ method: 'GET', query: { versioning: '' }, headers: {} }, backendCall(ctx));
  const read = await readDocument(response, 'VersioningConfiguration', ctx);
  if (read.response) return respond(read.response);
  const shown = { Status: textOf(childOf(read.document, 'Status')), MfaDelete: textOf(childOf(read.document, 'MfaDelete')) };
  return respond(documentResponse('VersioningConfiguration', shown, ctx.requestId));
};
