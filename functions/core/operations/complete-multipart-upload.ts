/**
 * CompleteMultipartUpload: the part list is collected (bounded), verified, parsed with the hardened parser
 * and re-serialized for the backend; `If-Match`/`If-None-Match` are signed on the backend request, whose 412
 * passes through unchanged, as does an error the backend reports inside a 200.
 */
import { requestTimeout } from '../errors';
import type { Dispatch, ProxyResponse } from '../http';
import { encodeKey } from '../keys';
import { clientAddress } from '../path-mapping';
import { verifiedBody } from '../payload/upload';
import { checkWritePreconditions } from '../preconditions';
import { S3_XMLNS, errorResponse } from '../responses';
import { buildXml, childOf, listOf, textOf } from '../xml';
import { documentHeaders, documentResponse, readDocument, s3StoreOf } from './backend-response';
import { backendCall, type BucketContext } from '../context';
import { malformedXml, requestDocument } from './request-document';
import type { Handler, S3Services } from './operation';
import type { MultipartStore } from '../backends/store';
import { S3Error, s3Message } from '../errors';
import { completeHeaders } from './write-headers';

/** S3's part limit (spec Limits). */
export const MAX_PARTS = 10000;
/** 10,000 parts with ETags and checksums stay under 4 MiB. */
export const MAX_COMPLETE_BODY_BYTES = 4 * 1024 * 1024;

export interface CompletedPart {
  readonly partNumber: number;
  readonly etag: string;
}


/**
 * Parses `<CompleteMultipartUpload><Part><PartNumber/><ETag/>…</Part>…`. Part checksums are dropped: the
 * gateway verified each part's checksum itself and does not ask the backend to keep them (see
 * write-headers.ts `createMultipartHeaders`).
 */
export function parseCompleteRequest(body: Uint8Array): CompletedPart[] {
  const root = requestDocument(body, 'CompleteMultipartUpload');
  const parts = listOf(root, 'Part');
  if (parts.length === 0 || parts.length > MAX_PARTS) throw malformedXml();
  return parts.map((part) => {
    const number = textOf(childOf(part, 'PartNumber'))?.trim() ?? '';
    const etag = textOf(childOf(part, 'ETag'));
    if (!/^\d{1,5}$/.test(number) || Number(number) < 1 || Number(number) > MAX_PARTS || etag === undefined) throw malformedXml();
    return { partNumber: Number(number), etag };
  });
}

export const completeMultipartUpload: Handler<'CompleteMultipartUpload'> = async (op, ctx, services) => {
  checkWritePreconditions(ctx.request.headers);
  const multipart = ctx.store.multipart;
  if (multipart === undefined) {
    const store = s3StoreOf(ctx, 'CompleteMultipartUpload');
    return collect(ctx, (parts) => complete(ctx, store, op.key, op.uploadId, parts));
  }
  return collect(ctx, (parts) => completeOnStore(ctx, multipart, services, op.key, op.uploadId, parts));
};

function collect(ctx: BucketContext, complete: (parts: CompletedPart[]) => Promise<ProxyResponse>): Dispatch {
  return {
    kind: 'needs-body',
    maxBytes: MAX_COMPLETE_BODY_BYTES,
    tooLarge: () => ({ kind: 'response', response: errorResponse(malformedXml(), ctx.requestId, ctx.request.method, ctx.request.rawPath) }),
    timedOut: () => ({ kind: 'response', response: errorResponse(requestTimeout(), ctx.requestId, ctx.request.method, ctx.request.rawPath) }),
    withBody: async (bytes) => {
      // An x-amz-checksum-* header here is the whole object's checksum, which the backend will not have.
      const parts = parseCompleteRequest(await verifiedBody(ctx, bytes, false));
      return { kind: 'response', response: await complete(parts) };
    },
  };
}

async function complete(
  ctx: BucketContext,
  store: ReturnType<typeof s3StoreOf>,
  key: string,
  uploadId: string,
  parts: readonly CompletedPart[],
): Promise<ProxyResponse> {
  const body = new TextEncoder().encode(
    buildXml('CompleteMultipartUpload', { Part: parts.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) }, S3_XMLNS),
  );
  const headers = Object.assign(completeHeaders(ctx.request.headers), { 'content-type': 'application/xml' });
  const response = await store.send({ method: 'POST', key, query: { uploadId }, headers, body }, backendCall(ctx));
  const read = await readDocument(response, 'CompleteMultipartUploadResult', ctx);
  if (read.response) return read.response;
  let etag = textOf(childOf(read.document, 'ETag')) ?? '';
  if (etag === '') etag = await currentETag(ctx, store, key);
  return completed(ctx, key, etag, documentHeaders(response));
}

/** CompleteMultipartUploadResult, with the bucket and key as the client addressed them (with path mapping, never the internal name). */
function completed(ctx: BucketContext, key: string, etag: string, headers?: Record<string, string>): ProxyResponse {
  const address = clientAddress(ctx.config.pathMapping, ctx.bucket.name);
  const clientKey = address.keyPrefix + key;
  return documentResponse(
    'CompleteMultipartUploadResult',
    { Location: `/${encodeKey(address.bucket, false)}/${encodeKey(clientKey)}`, Bucket: address.bucket, Key: clientKey, ETag: etag },
    ctx.requestId,
    headers,
  );
}

/**
 * Completion on a store the gateway carries uploads out on itself: S3's rules on the part list (ascending
 * part numbers) are checked here, the parts' own (ETags, sizes) by the store, which commits them.
 */
async function completeOnStore(ctx: BucketContext, store: MultipartStore, services: S3Services, key: string, uploadId: string, parts: readonly CompletedPart[]): Promise<ProxyResponse> {
  const upload = await services.uploadIds.open(ctx.bucket.name, key, uploadId);
  checkPartOrder(parts);
  const headers = ctx.request.headers;
  const conditions = { ifMatch: headers.get('if-match') ?? undefined, ifNoneMatch: headers.get('if-none-match') ?? undefined };
  return completed(ctx, key, await store.complete(upload, parts, conditions, backendCall(ctx)));
}

/** @throws S3Error InvalidPartOrder unless part numbers ascend, as S3 answers it. */
export function checkPartOrder(parts: readonly CompletedPart[]): void {
  for (let i = 1; i < parts.length; i++) {
    if (parts[i].partNumber <= parts[i - 1].partNumber) {
      throw new S3Error('InvalidPartOrder', s3Message('InvalidPartOrder') ?? '');
    }
  }
}

/** Ceph RGW (Pacific) answers Complete with an empty ETag; its HEAD has the right one (backends.md). */
async function currentETag(ctx: BucketContext, store: ReturnType<typeof s3StoreOf>, key: string): Promise<string> {
  const head = await store.send({ method: 'HEAD', key, headers: {} }, backendCall(ctx));
  await head.body?.cancel();
  return head.status === 200 ? (head.headers.get('etag') ?? '') : '';
}
