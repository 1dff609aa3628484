/**
 * The ETag an Azure blob shows S3 clients, in every answer that carries one (PutObject, HEAD, GET, listings,
 * the validators of a 304) and for every precondition compared with it.
 *
 * Azure's own ETag (`"0x8DC…"`) is opaque. S3 clients check an upload by its ETag: s3cmd compares it with the
 * file's MD5 and retries a mismatch until it gives up, rclone finds no MD5 to check. So a blob Azure keeps an
 * MD5 for answers its hex MD5, as S3 answers an object uploaded whole: Put Blob (every gateway PutObject)
 * computes and keeps `Content-MD5` (base64) for the bytes it stores. A blob without one (committed with Put
 * Block List by another writer, which clears it) keeps Azure's own ETag, stable until the blob changes; the
 * gateway compares preconditions with whichever one the blob shows.
 *
 * Where a multipart upload's ETag (`"<md5 of part md5s>-<n>"`) kept with the blob is read, it comes first:
 * this is the one place to add it.
 */
import { fromBase64, toHex } from '../../bytes';
import type { ReadonlyHeaders } from '../../http';
import { quoteEtag } from '../../listing/paging';

/**
 * The S3 ETag of a blob: its quoted hex MD5 when `contentMd5` (base64, as Azure keeps it) is one, else
 * Azure's own `azureEtag`, quoted (listings write it bare).
 *
 * @example s3Etag('0x8DC1', '1B2M2Y8AsgTpgAmY7PhCfg==') // '"d41d8cd98f00b204e9800998ecf8427e"'
 */
export function s3Etag(azureEtag: string, contentMd5: string | null | undefined): string {
  const md5 = contentMd5 ? fromBase64(contentMd5) : undefined;
  return md5?.length === 16 ? `"${toHex(md5)}"` : quoteEtag(azureEtag);
}

/**
 * The S3 ETag of the blob an Azure answer is about (Put Blob, Get Blob Properties, Get Blob). A ranged
 * read's `Content-MD5` would be the range's (only if asked for): the whole blob's is then
 * `x-ms-blob-content-md5`, which Azure sends with every ranged read of a blob that has one.
 */
export function s3EtagOfAnswer(status: number, headers: ReadonlyHeaders): string {
  const md5 = headers.get('x-ms-blob-content-md5') ?? (status === 206 ? null : headers.get('content-md5'));
  return s3Etag(headers.get('etag') ?? '', md5);
}
