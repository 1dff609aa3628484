import type { ProxyResponse } from '../http';
import { documentHeaders, documentResponse, readDocument, s3StoreOf, toXmlNode } from './backend-response';
import type { BucketContext } from '../context';
import { GATEWAY_OWNER } from './list-objects';
import { authorizeKey, respond, type Handler } from './operation';

/** Query parameters ListParts passes on. */
const LIST_PARTS_QUERY = ['max-parts', 'part-number-marker'];

/** ListParts: the backend's ListPartsResult with the virtual bucket and key, owned by the gateway. */
export const listParts: Handler<'ListParts'> = async (op, ctx) => {
  authorizeKey(ctx, op, op.key);
  return respond(await list(ctx, op.key, op.uploadId));
};

async function list(ctx: BucketContext, key: string, uploadId: string): Promise<ProxyResponse> {
  const store = s3StoreOf(ctx, 'ListParts');
  const query: Record<string, string> = { uploadId };
  for (const name of LIST_PARTS_QUERY) {
    const value = ctx.query.get(name);
    if (value !== undefined && value !== '') query[name] = value;
  }
  const response = await store.send({ method: 'GET', key, query, headers: {} }, ctx.request.signal);
  const read = await readDocument(response, 'ListPartsResult', ctx);
  if (read.response) return read.response;
  return documentResponse('ListPartsResult', Object.assign(toXmlNode(read.document), { Bucket: ctx.bucket.name, Key: key, Initiator: GATEWAY_OWNER, Owner: GATEWAY_OWNER }), ctx.requestId, documentHeaders(response));
}
