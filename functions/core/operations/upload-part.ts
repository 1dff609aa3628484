import type { Dispatch } from '../http';
import { withUploadBody } from '../payload/upload';
import { s3StoreOf } from './backend-response';
import type { BucketContext } from '../context';
import type { Handler } from './operation';
import { uploadPartHeaders } from './write-headers';

/**
 * UploadPart: a Forward like PutObject, so a part streams (never buffered whole on a streaming runtime),
 * decoded and verified on the way when it is aws-chunked or carries a hash or checksum.
 */
export const uploadPart: Handler<'UploadPart'> = (op, ctx) => {
  return upload(ctx, op.key, op.uploadId, op.partNumber);
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
