import type { Dispatch } from '../http';
import { withUploadBody } from '../payload/upload';
import type { BucketContext } from '../context';
import { authorizeKey, type Handler } from './operation';
import { putHeaders } from './write-headers';

/**
 * PutObject: a Forward whose body streams to the backend, checked or decoded on the way when the client
 * declared a hash, a checksum or aws-chunked framing (see payload/upload.ts). The backend's status,
 * including a 412 for a failed `If-Match`/`If-None-Match`, passes through unchanged.
 */
export const putObject: Handler<'PutObject'> = (op, ctx) => {
  authorizeKey(ctx, op, op.key);
  return upload(ctx, op.key);
};

function upload(ctx: BucketContext, key: string): Promise<Dispatch> {
  return withUploadBody(ctx, (upload) =>
    ctx.store.forwardObject({
      method: 'PUT',
      key,
      headers: Object.assign(putHeaders(ctx.request.headers), upload.headers),
      body: upload.body,
      payloadHash: upload.payloadHash,
      requestId: ctx.requestId,
      resource: ctx.request.rawPath,
      trace: ctx.record?.trace,
    }),
  );
}
