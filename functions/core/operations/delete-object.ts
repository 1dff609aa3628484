import type { Forward } from '../http';
import type { BucketContext } from '../context';

/** DeleteObject: S3 answers 204 whether or not the key existed; a `versionId` is ignored (spec). */
export function deleteObject(ctx: BucketContext, key: string): Promise<Forward> {
  return ctx.store.forwardObject({ method: 'DELETE', key, headers: {}, requestId: ctx.requestId, resource: ctx.request.rawPath });
}
