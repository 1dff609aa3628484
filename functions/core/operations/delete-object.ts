import { notImplemented } from '../errors';
import type { Forward } from '../http';
import { authorizeKey, type Handler } from './operation';

/**
 * DeleteObject: S3 answers 204 whether or not the key existed. A `versionId` deletes exactly that version,
 * authorized as `delete_object_version`; the spec ignores it, which on a versioned bucket would hide the
 * current object behind a delete marker instead (docs/adr/0012-versioned-deletes.md). Only S3 backends keep
 * versions. The backend's `x-amz-version-id` and `x-amz-delete-marker` pass through.
 */
export const deleteObject: Handler<'DeleteObject'> = (op, ctx): Promise<Forward> => {
  authorizeKey(ctx, op, op.key);
  if (op.versionId !== undefined && ctx.bucket.backend.type !== 's3') throw notImplemented('Version-scoped deletes on this backend');
  return ctx.store.forwardObject({
    method: 'DELETE',
    key: op.key,
    query: op.versionId === undefined ? undefined : { versionId: op.versionId },
    headers: {},
    requestId: ctx.requestId,
    resource: ctx.request.rawPath,
  });
};
