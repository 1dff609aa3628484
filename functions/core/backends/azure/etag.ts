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
 * A multipart upload's ETag (`"<md5 of part md5s>-<n>"`, azure/multipart.ts), kept with the blob in reserved
 * metadata, comes first.
 */
import type { ReadonlyHeaders } from '../../http';
import { quoteEtag } from '../../listing/paging';

/**
 * The reserved metadata name of a completed multipart upload's S3 ETag. It starts with `_`, which no S3 name
 * the gateway stores can (azure/blob-headers.ts `toAzureMetadataName`), so it is never a client's and is hidden from reads.
 */
export const S3_ETAG_METADATA = 'x-ms-meta-_s3etag';

/**
 * The S3 ETag of a blob: the one a multipart upload kept with it (`stored`), else its quoted hex MD5 when
 * `contentMd5` (base64, as Azure keeps it) is one, else Azure's own `azureEtag`, quoted (listings write it bare).
 *
 * @example s3Etag('0x8DC1', '1B2M2Y8AsgTpgAmY7PhCfg==') // '"d41d8cd98f00b204e9800998ecf8427e"'
 */
export function s3Etag(azureEtag: string, contentMd5: string | null | undefined, stored?: string | null): string {
  return stored || (contentMd5 && quotedMd5Hex(contentMd5)) || quoteEtag(azureEtag);
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const SEXTET = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) SEXTET[BASE64.charCodeAt(i)] = i;
/** Character codes of `0`-`9`, `a`-`f`. */
const HEX = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const QUOTE = 34;

/**
 * The quoted hex of a 16-byte digest in padded base64 (22 characters and `==`), or undefined for anything
 * else. Every entry of a listing page has one, so it is decoded straight into one flat string: through
 * fromBase64 and toHex, then quoted, a 1,000-blob page took ~0.7 ms more CPU (bench/experiments/listing-cpu.ts
 * azure: ~3.9 ms against ~3.2 ms, ~2.9 ms before the pages' MD5s were read at all).
 */
function quotedMd5Hex(base64: string): string | undefined {
  if (base64.length !== 24 || base64.charCodeAt(22) !== 61 || base64.charCodeAt(23) !== 61) return undefined;
  const codes = new Array<number>(34);
  codes[0] = codes[33] = QUOTE;
  let at = 1;
  let bits = 0;
  let held = 0;
  for (let i = 0; i < 22; i++) {
    const code = base64.charCodeAt(i);
    const sextet = code < 128 ? SEXTET[code] : -1;
    if (sextet < 0) return undefined;
    bits = ((bits << 6) | sextet) & 0xfff;
    held += 6;
    if (held >= 8) {
      held -= 8;
      const byte = (bits >> held) & 0xff;
      codes[at++] = HEX[byte >> 4];
      codes[at++] = HEX[byte & 15];
    }
  }
  return String.fromCharCode(...codes);
}

/**
 * The S3 ETag of the blob an Azure answer is about (Put Blob, Get Blob Properties, Get Blob). A ranged
 * read's `Content-MD5` would be the range's (only if asked for): the whole blob's is then
 * `x-ms-blob-content-md5`, which Azure sends with every ranged read of a blob that has one. (Azurite also
 * computes a `Content-MD5` for a whole read of a blob up to 4 MiB that keeps none: docs/backends.md.)
 */
export function s3EtagOfAnswer(status: number, headers: ReadonlyHeaders): string {
  const md5 = headers.get('x-ms-blob-content-md5') ?? (status === 206 ? null : headers.get('content-md5'));
  return s3Etag(headers.get('etag') ?? '', md5, headers.get(S3_ETAG_METADATA));
}
