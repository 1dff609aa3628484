import type { Forward } from '../http';
import { s3StoreOf } from './backend-response';
import type { Handler } from './operation';

/** AbortMultipartUpload: a Forward; the backend's 204 (or its error, in the client's terms) passes through. */
export const abortMultipartUpload: Handler<'AbortMultipartUpload'> = (op, ctx): Promise<Forward> => {
  return s3StoreOf(ctx, 'AbortMultipartUpload').forwardObject({ method: 'DELETE', key: op.key, query: { uploadId: op.uploadId }, headers: {}, requestId: ctx.requestId, resource: ctx.request.rawPath });
};
