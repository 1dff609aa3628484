import type { ProxyResponse } from '../http';
import { clientAddress } from '../path-mapping';
import { childOf, textOf } from '../xml';
import { documentHeaders, documentResponse, readDocument, s3StoreOf } from './backend-response';
import { backendCall, type BucketContext } from '../context';
import { respond, type Handler } from './operation';
import { checkMetadataSize, createMultipartHeaders } from './write-headers';

/**
 * CreateMultipartUpload: the object's headers are signed on the backend request, and the backend's
 * InitiateMultipartUploadResult is answered with the bucket and key as the client addressed them. Errors are
 * rewritten.
 */
export const createMultipartUpload: Handler<'CreateMultipartUpload'> = async (op, ctx) => {
  return respond(await create(ctx, op.key));
};

async function create(ctx: BucketContext, key: string): Promise<ProxyResponse> {
  const store = s3StoreOf(ctx, 'CreateMultipartUpload');
  const headers = createMultipartHeaders(ctx.request.headers);
  checkMetadataSize(headers);
  const response = await store.send({ method: 'POST', key, query: { uploads: '' }, headers }, backendCall(ctx));
  const read = await readDocument(response, 'InitiateMultipartUploadResult', ctx);
  if (read.response) return read.response;
  const uploadId = textOf(childOf(read.document, 'UploadId')) ?? '';
  const address = clientAddress(ctx.config.pathMapping, ctx.bucket.name);
  return documentResponse(
    'InitiateMultipartUploadResult',
    { Bucket: address.bucket, Key: address.keyPrefix + key, UploadId: uploadId },
    ctx.requestId,
    documentHeaders(response),
  );
}
