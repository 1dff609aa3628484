/**
 * UploadPartCopy: a part of a multipart upload copied from an existing object (or a byte range of it, with
 * `x-amz-copy-source-range`). Authorized like CopyObject: the part as `upload_part` on the destination key,
 * the source as a read (`get_object`, or `get_object_version` for a version); the same endpoint-and-region
 * rule, the source path-mapped the same way. The backend's CopyPartResult passes through; its errors (also
 * one inside a 200) are rewritten into the client's terms. A store the gateway carries uploads out on
 * (`multipart`: Azure) copies the part itself, and the gateway writes S3's CopyPartResult.
 */
import { backendCall } from '../context';
import { refuseUnsupportedFeatures } from '../backends/translate';
import { documentResponse } from './backend-response';
import { authorizedSource, copySourceHeaders, copyableBackends, refuseStoreCopy, sendCopy } from './copy-object';
import { respond, type Handler } from './operation';
import { uploadPartCopyHeaders } from './write-headers';

export const uploadPartCopy: Handler<'UploadPartCopy'> = async (op, ctx, services) => {
  const { source, bucket } = authorizedSource(ctx, op.copySource);
  const multipart = ctx.store.multipart;
  if (multipart !== undefined) {
    const headers = uploadPartCopyHeaders(ctx.request.headers);
    refuseStoreCopy(source, headers);
    refuseUnsupportedFeatures({ method: 'PUT', headers });
    const upload = await services.uploadIds.open(ctx.bucket.name, op.key, op.uploadId);
    const request = { source: { backend: bucket.backend, key: source.key }, key: op.key, headers, requestId: ctx.requestId };
    const copied = await multipart.copyPart(upload, op.partNumber, request, backendCall(ctx));
    return respond(documentResponse('CopyPartResult', { ETag: copied.etag, LastModified: copied.lastModified }, ctx.requestId));
  }
  const backends = copyableBackends(bucket, ctx.bucket, 'UploadPartCopy');
  const headers = Object.assign(uploadPartCopyHeaders(ctx.request.headers), copySourceHeaders(source, backends.source));
  const query = { partNumber: String(op.partNumber), uploadId: op.uploadId };
  return respond(await sendCopy(ctx, { method: 'PUT', key: op.key, query, headers }, 'UploadPartCopy'));
};
