/**
 * GetObjectTagging, PutObjectTagging and DeleteObjectTagging (`?tagging` on a key, of one version with
 * `versionId`): Forwards to an S3 backend, authorized as `get_object_tagging`, `put_object_tagging` and
 * `delete_object_tagging` (with `get_object_version` too when a version is named). The Tagging document
 * names no bucket, so the backend's answer passes through; its errors are rewritten like any forwarded
 * error. Azure and GCS buckets answer 501 NotImplemented after authorization.
 */
import type { Dispatch } from '../http';
import { withUploadBody } from '../payload/upload';
import { s3StoreOf } from './backend-response';
import type { Handler } from './operation';
import { taggingHeaders } from './write-headers';

const METHODS = { GetObjectTagging: 'GET', PutObjectTagging: 'PUT', DeleteObjectTagging: 'DELETE' } as const;

export const objectTagging: Handler<'GetObjectTagging' | 'PutObjectTagging' | 'DeleteObjectTagging'> = (op, ctx): Promise<Dispatch> => {
  const store = s3StoreOf(ctx, op.name);
  const query: Record<string, string> = op.versionId === undefined ? { tagging: '' } : { tagging: '', versionId: op.versionId };
  const request = { method: METHODS[op.name], key: op.key, query, requestId: ctx.requestId, resource: ctx.request.rawPath };
  if (op.name !== 'PutObjectTagging') return store.forwardObject({ ...request, headers: {} });
  // The tag set streams like any upload body: checked on the way when the client declared a hash or checksum.
  return withUploadBody(ctx, (upload) =>
    store.forwardObject({
      ...request,
      headers: Object.assign(taggingHeaders(ctx.request.headers), upload.headers),
      body: upload.body,
      payloadHash: upload.payloadHash,
    }),
  );
};
