import { notImplemented, unsupportedHeader } from '../errors';
import type { Forward } from '../http';
import type { Handler } from './operation';
import { deleteHeaders } from './write-headers';

/**
 * DeleteObject: S3 answers 204 whether or not the key existed. A `versionId` deletes exactly that version,
 * authorized as `delete_object_version`; the spec ignores it, which on a versioned bucket would hide the
 * current object behind a delete marker instead (docs/adr/0012-versioned-deletes.md). Only S3 backends keep
 * versions. The backend's `x-amz-version-id` and `x-amz-delete-marker` pass through.
 *
 * `If-Match` makes it conditional, as on S3 since 2025: 404 NoSuchKey when the key holds no object, 412 when
 * its ETag is another; with a `versionId`, 501 as on S3. S3-compatible stores enforce it themselves (where
 * they know it); Azure and GCS stores check it and pin the delete to the object they read.
 */
export const deleteObject: Handler<'DeleteObject'> = (op, ctx): Promise<Forward> => {
  if (op.versionId !== undefined && ctx.bucket.backend.type !== 's3') throw notImplemented('Version-scoped deletes on this backend');
  const ifMatch = ctx.request.headers.get('if-match');
  if (ifMatch !== null && op.versionId !== undefined) throw unsupportedHeader('If-Match');
  return ctx.store.forwardObject({
    method: 'DELETE',
    key: op.key,
    query: op.versionId === undefined ? undefined : { versionId: op.versionId },
    headers: deleteHeaders(ctx.request.headers),
    requestId: ctx.requestId,
    resource: ctx.request.rawPath,
  });
};
