import type { Dispatch } from '../http';
import { emptyResponse } from '../responses';
import { withUploadBody } from '../payload/upload';
import { s3StoreOf } from './backend-response';
import { backendCall, type BucketContext } from '../context';
import { respond, type Handler } from './operation';
import { uploadPartHeaders } from './write-headers';

/**
 * UploadPart: a Forward like PutObject, so a part streams (never buffered whole on a streaming runtime),
 * decoded and verified on the way when it is aws-chunked or carries a hash or checksum. On a store the gateway
 * carries uploads out on itself (`multipart`: Azure), the store is handed the same stream and answers the
 * part's ETag.
 */
export const uploadPart: Handler<'UploadPart'> = async (op, ctx, services) => {
  const multipart = ctx.store.multipart;
  if (multipart === undefined) return upload(ctx, op.key, op.uploadId, op.partNumber);
  const started = await services.uploadIds.open(ctx.bucket.name, op.key, op.uploadId);
  return withUploadBody(ctx, async (body) => {
    const length = Number(body.headers['content-length']);
    const stream = body.body === 'client' ? ctx.request.body() : body.body;
    const etag = await multipart.uploadPart(started, op.partNumber, stream, length, backendCall(ctx));
    return respond(emptyResponse(200, ctx.requestId, { etag }));
  });
};

function upload(ctx: BucketContext, key: string, uploadId: string, partNumber: number): Promise<Dispatch> {
  const store = s3StoreOf(ctx, 'UploadPart');
  return withUploadBody(ctx, (upload) =>
    store.forwardObject({
      method: 'PUT',
      key,
      query: { partNumber: String(partNumber), uploadId },
      headers: Object.assign(uploadPartHeaders(ctx.request.headers), upload.headers),
      body: upload.body,
      payloadHash: upload.payloadHash,
      requestId: ctx.requestId,
      resource: ctx.request.rawPath,
    }),
  );
}
