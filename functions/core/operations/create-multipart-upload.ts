import type { ProxyResponse } from '../http';
import { childOf, textOf } from '../xml';
import { documentHeaders, documentResponse, readDocument, s3StoreOf } from './backend-response';
import type { BucketContext } from '../context';
import { authorizeKey, respond, type Handler } from './operation';
import { createMultipartHeaders } from './write-headers';

/**
 * CreateMultipartUpload: the object's headers are signed on the backend request, and the backend's
 * InitiateMultipartUploadResult is answered with the virtual bucket and key. Errors pass through.
 */
export const createMultipartUpload: Handler<'CreateMultipartUpload'> = async (op, ctx) => {
  authorizeKey(ctx, op, op.key);
  return respond(await create(ctx, op.key));
};

async function create(ctx: BucketContext, key: string): Promise<ProxyResponse> {
  const store = s3StoreOf(ctx, 'CreateMultipartUpload');
  const response = await store.send({ method: 'POST', key, query: { uploads: '' }, headers: createMultipartHeaders(ctx.request.headers) }, ctx.request.signal);
  const read = await readDocument(response, 'InitiateMultipartUploadResult', ctx);
  if (read.response) return read.response;
  const uploadId = textOf(childOf(read.document, 'UploadId')) ?? '';
  return documentResponse('InitiateMultipartUploadResult', { Bucket: ctx.bucket.name, Key: key, UploadId: uploadId }, ctx.requestId, documentHeaders(response));
}
