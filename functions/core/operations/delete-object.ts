import type { Forward } from '../http';
import { authorizeKey, type Handler } from './operation';

/** DeleteObject: S3 answers 204 whether or not the key existed; a `versionId` is ignored (spec). */
export const deleteObject: Handler<'DeleteObject'> = (op, ctx): Promise<Forward> => {
  authorizeKey(ctx, op, op.key);
  return ctx.store.forwardObject({ method: 'DELETE', key: op.key, headers: {}, requestId: ctx.requestId, resource: ctx.request.rawPath });
};
