/**
 * UploadPartCopy: a part of a multipart upload copied from an existing object (or a byte range of it, with
 * `x-amz-copy-source-range`). Authorized like CopyObject: the part as `upload_part` on the destination key,
 * the source as a read (`get_object`, or `get_object_version` for a version); the same endpoint-and-region
 * rule, the source path-mapped the same way. The backend's CopyPartResult passes through; its errors (also
 * one inside a 200) are rewritten into the client's terms.
 */
import { authorizedSource, copySourceHeaders, copyableBackends, sendCopy } from './copy-object';
import { respond, type Handler } from './operation';
import { uploadPartCopyHeaders } from './write-headers';

export const uploadPartCopy: Handler<'UploadPartCopy'> = async (op, ctx) => {
  const { source, bucket } = authorizedSource(ctx, op.copySource);
  const backends = copyableBackends(bucket, ctx.bucket, 'UploadPartCopy');
  const headers = Object.assign(uploadPartCopyHeaders(ctx.request.headers), copySourceHeaders(source, backends.source));
  const query = { partNumber: String(op.partNumber), uploadId: op.uploadId };
  return respond(await sendCopy(ctx, { method: 'PUT', key: op.key, query, headers }, 'UploadPartCopy'));
};
