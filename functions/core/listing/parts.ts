import type { ProxyResponse } from '../http';
import { clientAddress } from '../path-mapping';
import { documentHeaders, documentResponse, readDocument, s3StoreOf, toXmlNode } from '../operations/backend-response';
import { backendCall, type BucketContext } from '../context';
import { GATEWAY_OWNER } from './objects';
import { respond, type Handler, type S3Services } from '../operations/operation';
import type { MultipartStore } from '../backends/store';
import { S3Error } from '../errors';
import { maxEntries } from './params';

/** Query parameters ListParts passes on. */
const LIST_PARTS_QUERY = ['max-parts', 'part-number-marker'];

/** ListParts: the backend's ListPartsResult with the bucket and key as the client addressed them, owned by the gateway. */
export const listParts: Handler<'ListParts'> = async (op, ctx, services) => {
  const multipart = ctx.store.multipart;
  return respond(await (multipart === undefined ? list(ctx, op.key, op.uploadId) : listOnStore(ctx, multipart, services, op.key, op.uploadId)));
};

/**
 * ListParts of an upload the gateway carries out itself (`multipart`: Azure): the parts as the store has them,
 * each as last uploaded, paged here. The store keeps no upload or part dates, so `LastModified` is absent.
 */
async function listOnStore(ctx: BucketContext, store: MultipartStore, services: S3Services, key: string, uploadId: string): Promise<ProxyResponse> {
  const max = maxEntries(ctx.query, 'max-parts');
  const rawMarker = ctx.query.get('part-number-marker') || '0';
  if (!/^\d{1,5}$/.test(rawMarker)) throw new S3Error('InvalidArgument', 'Provided part-number-marker not an integer or within integer range');
  const marker = Number(rawMarker);
  const upload = await services.uploadIds.open(ctx.bucket.name, key, uploadId);
  const after = (await store.listParts(upload, backendCall(ctx))).filter((p) => p.partNumber > marker);
  const shown = after.slice(0, max);
  const truncated = after.length > shown.length;
  const address = clientAddress(ctx.config.pathMapping, ctx.bucket.name);
  return documentResponse(
    'ListPartsResult',
    {
      Bucket: address.bucket,
      Key: address.keyPrefix + key,
      UploadId: uploadId,
      Initiator: GATEWAY_OWNER,
      Owner: GATEWAY_OWNER,
      StorageClass: 'STANDARD',
      PartNumberMarker: marker,
      NextPartNumberMarker: shown.length > 0 ? shown[shown.length - 1].partNumber : undefined,
      MaxParts: max,
      IsTruncated: truncated,
      Part: shown.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag, Size: p.size })),
    },
    ctx.requestId,
  );
}

async function list(ctx: BucketContext, key: string, uploadId: string): Promise<ProxyResponse> {
  const store = s3StoreOf(ctx, 'ListParts');
  const query: Record<string, string> = { uploadId };
  for (const name of LIST_PARTS_QUERY) {
    const value = ctx.query.get(name);
    if (value !== undefined && value !== '') query[name] = value;
  }
  const response = await store.send({ method: 'GET', key, query, headers: {} }, backendCall(ctx));
  const read = await readDocument(response, 'ListPartsResult', ctx);
  if (read.response) return read.response;
  const address = clientAddress(ctx.config.pathMapping, ctx.bucket.name);
  const names = { Bucket: address.bucket, Key: address.keyPrefix + key, Initiator: GATEWAY_OWNER, Owner: GATEWAY_OWNER };
  return documentResponse('ListPartsResult', Object.assign(toXmlNode(read.document), names), ctx.requestId, documentHeaders(response));
}
