/**
 * Copies within one Azure account: CopyObject onto Copy Blob, and the source of UploadPartCopy (a ranged
 * Get Blob the multipart module writes into a block). The destination's Shared Key authorizes the read of a
 * same-account source, so the source URL carries no SAS.
 */
import type { BackendConfig } from '../../config/types';
import { S3Error, notImplemented } from '../../errors';
import type { BackendResponse, HeaderMap, ReadonlyHeaders } from '../../http';
import { evaluatePreconditions, preconditionFailed } from '../../preconditions';
import { parseTaggingHeader, type Tag } from '../../tags';
import type { BackendCall, CopyRequest, CopyResult, TagStore } from '../store';
import { copySourceConditions, replacesMetadata } from '../translate';
import { metadataHeaders, propertyHeaders } from './blob-headers';
import { azureError, checked } from './errors';
import { s3EtagOfAnswer } from './etag';
import type { CopySourceBlob } from './multipart';
import { azureTags, tagsHeader } from './tags';

/** What a copy needs of the blobs of one container. */
export interface CopyBlobs {
  /** The blob's URL (no query) for a key, refusing keys Azure cannot hold. */
  blobUrl(key: string): string;
  /** A signed request the core sends itself. */
  send(method: string, url: string, call: BackendCall, headers?: HeaderMap, body?: ReadableStream<Uint8Array> | Uint8Array): Promise<BackendResponse>;
  /** The blob's properties, or undefined when there is none. */
  head(key: string, call: BackendCall): Promise<ReadonlyHeaders | undefined>;
  readonly tags: TagStore;
  now(): number;
  /** The blobs of a source's container in the same account and endpoint; undefined for any other. */
  sameAccount(source: BackendConfig): CopyBlobs | undefined;
}

/**
 * A copy's source (CopyObject, UploadPartCopy), found by one HEAD: in the same account and endpoint only,
 * else 501 naming the reason; missing, NoSuchKey; its copy-source conditions evaluated as a read's on the
 * ETag the gateway shows (a failed one is 412, as S3 answers).
 */
async function copySource(dest: CopyBlobs, request: CopyRequest, operation: string, call: BackendCall): Promise<{ blobs: CopyBlobs; head: ReadonlyHeaders }> {
  const blobs = dest.sameAccount(request.source.backend);
  if (blobs === undefined) throw notImplemented(`${operation} from another store or Azure account`);
  const head = await blobs.head(request.source.key, call);
  if (head === undefined) throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: request.source.key });
  const failed = evaluatePreconditions(copySourceConditions(request.headers), s3EtagOfAnswer(200, head), head.get('last-modified') ?? undefined);
  if (failed !== undefined) throw preconditionFailed();
  return { blobs, head };
}

/** A part copy's source: its size, and ranged reads of it (Get Blob) pinned to the ETag its HEAD read. */
export async function partSource(dest: CopyBlobs, request: CopyRequest, operation: string, call: BackendCall): Promise<CopySourceBlob> {
  const { blobs, head } = await copySource(dest, request, operation, call);
  const etag = head.get('etag');
  return {
    size: Number(head.get('content-length') ?? 0),
    read: async (first, last) => {
      const headers: HeaderMap = { range: `bytes=${first}-${last}` };
      if (etag !== null) headers['if-match'] = etag;
      const response = await blobs.send('GET', blobs.blobUrl(request.source.key), call, headers);
      if (response.status !== 206 || response.body === null) {
        await response.body?.cancel();
        throw azureError(response.status, response.headers.get('x-ms-error-code') ?? undefined);
      }
      return response.body;
    },
  };
}

/**
 * CopyObject onto Copy Blob, pinned to the ETag the source's HEAD read. Copy Blob keeps the source's
 * properties and metadata; with REPLACE, Set Blob Metadata and Set Blob Properties then write the request's
 * (its Content-MD5 kept). Copy Blob takes no tags from its source (on Azure as on Azurite): the tagging
 * directive COPY reads the source's and gives them to Copy Blob, REPLACE gives the request's. A copy Azure
 * runs asynchronously is waited for. The answer's ETag and time are what a HEAD of the new blob gives.
 */
export async function copyObject(dest: CopyBlobs, request: CopyRequest, call: BackendCall): Promise<CopyResult> {
  // The request's tags are checked before anything is sent.
  const replacedTags = request.headers['x-amz-tagging-directive'] === 'REPLACE' ? azureTags(parseTaggingHeader(request.headers['x-amz-tagging'] ?? '')) : undefined;
  const { blobs: source, head } = await copySource(dest, request, 'CopyObject', call);
  const url = dest.blobUrl(request.key);
  const sourceUrl = source.blobUrl(request.source.key);
  // A copy onto itself (REPLACE: the handler refused it otherwise) only sets what it replaces.
  if (sourceUrl !== url) {
    const tags = replacedTags ?? (await source.tags.get(request.source.key, call));
    await copyBlob(dest, request.key, sourceUrl, head.get('etag'), tags, call);
  } else if (replacedTags !== undefined) {
    await dest.tags.put(request.key, replacedTags, call);
  }

  if (replacesMetadata(request.headers)) {
    await checked(await dest.send('PUT', `${url}?comp=metadata`, call, { 'content-length': '0', ...metadataHeaders(request.headers) }));
    // Set Blob Properties clears each property it is not given: the blob's MD5 is given again.
    const properties: HeaderMap = { 'content-length': '0', ...propertyHeaders(request.headers) };
    const md5 = head.get('content-md5');
    if (md5 !== null) properties['x-ms-blob-content-md5'] = md5;
    await checked(await dest.send('PUT', `${url}?comp=properties`, call, properties));
  }
  const written = await dest.head(request.key, call);
  if (written === undefined) throw azureError(404, 'BlobNotFound');
  const lastModified = written.get('last-modified');
  return { etag: s3EtagOfAnswer(200, written), lastModified: new Date(lastModified ?? dest.now()).toISOString() };
}

/** Copy Blob of `sourceUrl` (pinned to `etag`) onto `key` with `tags`, waited for when Azure runs it asynchronously. */
async function copyBlob(dest: CopyBlobs, key: string, sourceUrl: string, etag: string | null, tags: readonly Tag[], call: BackendCall): Promise<void> {
  const headers: HeaderMap = { 'content-length': '0', 'x-ms-copy-source': sourceUrl };
  if (etag !== null) headers['x-ms-source-if-match'] = etag;
  if (tags.length > 0) headers['x-ms-tags'] = tagsHeader(tags);
  const copied = await dest.send('PUT', dest.blobUrl(key), call, headers);
  await checked(copied);
  let status = copied.headers.get('x-ms-copy-status');
  for (let wait = 100; status === 'pending'; wait = Math.min(wait * 2, 2000)) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    status = (await dest.head(key, call))?.get('x-ms-copy-status') ?? 'failed';
  }
  if (status !== null && status !== 'success') throw new S3Error('InternalError', `The Azure backend's copy ended ${status}`);
}
