import type { ProxyResponse } from '../http';
import { refuseUnsupportedFeatures } from '../backends/translate';
import { clientAddress } from '../path-mapping';
import { childOf, textOf } from '../xml';
import { documentHeaders, documentResponse, readDocument, s3StoreOf } from './backend-response';
import { backendCall, type BucketContext } from '../context';
import { respond, type Handler, type S3Services } from './operation';
import { checkMetadataSize, createMultipartHeaders } from './write-headers';

/**
 * CreateMultipartUpload: the object's headers are signed on the backend request, and the backend's
 * InitiateMultipartUploadResult is answered with the bucket and key as the client addressed them. Errors are
 * rewritten. On a store the gateway carries uploads out on itself (`multipart`: Azure), nothing is sent: the
 * upload id seals what the object will carry (operations/upload-id.ts).
 */
export const createMultipartUpload: Handler<'CreateMultipartUpload'> = async (op, ctx, services) => {
  return respond(await create(ctx, op.key, services));
};

async function create(ctx: BucketContext, key: string, services: S3Services): Promise<ProxyResponse> {
  const headers = createMultipartHeaders(ctx.request.headers);
  checkMetadataSize(headers);
  const address = clientAddress(ctx.config.pathMapping, ctx.bucket.name);
  const multipart = ctx.store.multipart;
  if (multipart !== undefined) {
    refuseUnsupportedFeatures({ method: 'PUT', headers }, ctx.store.tags !== undefined);
    const uploadId = await services.uploadIds.seal(ctx.bucket.name, key, multipart.objectHeaders(key, headers));
    return documentResponse('InitiateMultipartUploadResult', { Bucket: address.bucket, Key: address.keyPrefix + key, UploadId: uploadId }, ctx.requestId);
  }
  const store = s3StoreOf(ctx, 'CreateMultipartUpload');
  const response = await store.send({ method: 'POST', key, query: { uploads: '' }, headers }, backendCall(ctx));
  const read = await readDocument(response, 'InitiateMultipartUploadResult', ctx);
  if (read.response) return read.response;
  const uploadId = textOf(childOf(read.document, 'UploadId')) ?? '';
  return documentResponse(
    'InitiateMultipartUploadResult',
    { Bucket: address.bucket, Key: address.keyPrefix + key, UploadId: uploadId },
    ctx.requestId,
    documentHeaders(response),
  );
}
