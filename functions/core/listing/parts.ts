import type { ProxyResponse } from '../http';
import { clientAddress } from '../path-mapping';
import { documentHeaders, documentResponse, readDocument, s3StoreOf, toXmlNode } from '../operations/backend-response';
import { backendCall, type BucketContext } from '../context';
import { GATEWAY_OWNER } from './objects';
import { respond, type Handler } from '../operations/operation';

/** Query parameters ListParts passes on. */
const LIST_PARTS_QUERY = ['max-parts', 'part-number-marker'];

/** ListParts: the backend's ListPartsResult with the bucket and key as the client addressed them, owned by the gateway. */
export const listParts: Handler<'ListParts'> = async (op, ctx) => {
  return respond(await list(ctx, op.key, op.uploadId));
};

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
