/**
 * GetObjectTagging, PutObjectTagging and DeleteObjectTagging (`?tagging` on a key, of one version with
 * `versionId`), authorized as `get_object_tagging`, `put_object_tagging` and `delete_object_tagging` (with
 * `get_object_version` too when a version is named). On an S3 backend they are forwarded: the Tagging
 * document names no bucket, so the backend's answer passes through; its errors are rewritten like any
 * forwarded error. A store that keeps tags itself (`ObjectStore.tags`: Azure) gets the tag set, read from
 * the client's document and checked against S3's limits here (tags.ts); it keeps no versions, so a version's
 * tags are 501 there. Other stores answer 501 after authorization.
 */
import { notImplemented, requestTimeout, type S3Error } from '../errors';
import type { Dispatch } from '../http';
import { checkDeclaredLength, verifiedBody, withUploadBody } from '../payload/upload';
import { emptyResponse, errorResponse } from '../responses';
import { parseTaggingDocument, tagSetNode } from '../tags';
import type { TagStore } from '../backends/store';
import { backendCall, type BucketContext } from '../context';
import { documentResponse, s3StoreOf } from './backend-response';
import { respond, type Handler, type OperationOf } from './operation';
import { malformedXml } from './request-document';
import { taggingHeaders } from './write-headers';

type TaggingOperation = OperationOf<'GetObjectTagging' | 'PutObjectTagging' | 'DeleteObjectTagging'>;

const METHODS = { GetObjectTagging: 'GET', PutObjectTagging: 'PUT', DeleteObjectTagging: 'DELETE' } as const;
/** Bound on a collected Tagging document: 10 tags of the longest keys and values take under 16 KiB. */
const MAX_TAGGING_BODY_BYTES = 64 * 1024;

export const objectTagging: Handler<'GetObjectTagging' | 'PutObjectTagging' | 'DeleteObjectTagging'> = async (op, ctx): Promise<Dispatch> => {
  if (ctx.store.tags !== undefined) return storeTagging(op, ctx, ctx.store.tags);
  const store = s3StoreOf(ctx, op.name);
  const query: Record<string, string> = op.versionId === undefined ? { tagging: '' } : { tagging: '', versionId: op.versionId };
  const request = { method: METHODS[op.name], key: op.key, query, requestId: ctx.requestId, resource: ctx.request.rawPath };
  if (op.name !== 'PutObjectTagging') return store.forwardObject({ ...request, headers: {} });
  // The tag set streams like any upload body: checked on the way when the client declared a hash or checksum.
  return withUploadBody(ctx, (upload) =>
    store.forwardObject({
      ...request,
      headers: Object.assign(taggingHeaders(ctx.request.headers), upload.headers),
      body: upload.body,
      payloadHash: upload.payloadHash,
    }),
  );
};

/** The tags of a store that keeps them itself, answered as S3 answers: the Tagging document, 200 and 204. */
async function storeTagging(op: TaggingOperation, ctx: BucketContext, tags: TagStore): Promise<Dispatch> {
  if (op.versionId !== undefined) throw notImplemented(`${op.name} of one version on a bucket with backend_type "${ctx.bucket.backend.type}"`);
  const call = backendCall(ctx);
  if (op.name === 'GetObjectTagging') return respond(documentResponse('Tagging', tagSetNode(await tags.get(op.key, call)), ctx.requestId));
  if (op.name === 'DeleteObjectTagging') {
    await tags.put(op.key, [], call);
    return respond(emptyResponse(204, ctx.requestId));
  }
  const declared = ctx.request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared)) checkDeclaredLength(ctx, Number(declared));
  const answer = (err: S3Error): Dispatch => ({
    kind: 'response',
    response: errorResponse(err, ctx.requestId, ctx.request.method, ctx.request.rawPath),
  });
  return {
    kind: 'needs-body',
    maxBytes: MAX_TAGGING_BODY_BYTES,
    tooLarge: () => answer(malformedXml()),
    timedOut: () => answer(requestTimeout()),
    withBody: async (bytes) => {
      await tags.put(op.key, parseTaggingDocument(await verifiedBody(ctx, bytes)), call);
      return respond(emptyResponse(200, ctx.requestId));
    },
  };
}
