import type { Forward } from '../http';
import { s3StoreOf } from './backend-response';
import type { BucketContext } from '../context';

/** AbortMultipartUpload: a Forward; the backend's 204 (or its error, in the client's terms) passes through. */
export function abortMultipartUpload(ctx: BucketContext, key: string, uploadId: string): Promise<Forward> {
  return s3StoreOf(ctx, 'AbortMultipartUpload').forwardObject({ method: 'DELETE', key, query: { uploadId }, headers: {}, requestId: ctx.requestId, resource: ctx.request.rawPath });
}
