import type { Dispatch } from '../http';
import { withUploadBody } from '../payload/upload';
import type { BucketContext } from '../context';
import { checkWritePreconditions } from '../preconditions';
import type { Handler } from './operation';
import { checkMetadataSize, putHeaders } from './write-headers';

/**
 * PutObject: a Forward whose body streams to the backend, checked or decoded on the way when the client
 * declared a hash, a checksum or aws-chunked framing (see payload/upload.ts). Preconditions in a form S3
 * does not take are refused here; the store enforces the rest, and its 412 passes through.
 */
export const putObject: Handler<'PutObject'> = (op, ctx) => {
  checkWritePreconditions(ctx.request.headers);
  return upload(ctx, op.key);
};

function upload(ctx: BucketContext, key: string): Promise<Dispatch> {
  const headers = putHeaders(ctx.request.headers);
  checkMetadataSize(headers);
  return withUploadBody(ctx, (upload) =>
    ctx.store.forwardObject({
      method: 'PUT',
      key,
      headers: Object.assign(headers, upload.headers),
      body: upload.body,
      payloadHash: upload.payloadHash,
      requestId: ctx.requestId,
      resource: ctx.request.rawPath,
      trace: ctx.record?.trace,
    }),
  );
}
