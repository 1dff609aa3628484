import { emptyResponse } from '../responses';
import { s3StoreOf } from './backend-response';
import { respond, type Handler } from './operation';

/**
 * AbortMultipartUpload: a Forward; the backend's 204 (or its error, in the client's terms) passes through. On a
 * store the gateway carries uploads out on itself (`multipart`: Azure) nothing of an upload is visible to a
 * reader, and its parts go with the store's own rules (Azure: at the key's next write, or after a week): the
 * id is checked and the answer is S3's 204.
 */
export const abortMultipartUpload: Handler<'AbortMultipartUpload'> = async (op, ctx, services) => {
  if (ctx.store.multipart !== undefined) {
    await services.uploadIds.open(ctx.bucket.name, op.key, op.uploadId);
    return respond(emptyResponse(204, ctx.requestId));
  }
  return s3StoreOf(ctx, 'AbortMultipartUpload').forwardObject({ method: 'DELETE', key: op.key, query: { uploadId: op.uploadId }, headers: {}, requestId: ctx.requestId, resource: ctx.request.rawPath });
};
