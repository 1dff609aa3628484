/**
 * S3 multipart uploads on Azure block blobs, with no state kept anywhere but Azure's uncommitted blocks and
 * the sealed upload id (operations/upload-id.ts):
 *
 * - A part is one Put Block, its body streamed as the client sends it, under a data block id naming the
 *   upload's nonce, the part number and a random attempt; its MD5 is computed on the way. Since a block id is
 *   fixed before the body streams, the MD5 is then recorded in the id of a second, 1-byte "marker" block of
 *   the same attempt. A part of 0 bytes has its marker only (Azure takes no empty block).
 * - A part copied (UploadPartCopy) is a ranged read of the source blob streamed into the same two blocks:
 *   Azurite has no Put Block From URL, which would spare the gateway the bytes but not give the MD5.
 * - Get Block List (uncommitted) gives every part back: its attempts, their sizes and MD5s.
 * - Complete is one Put Block List of the data blocks the client's ETags name, with the headers the upload
 *   id carries; the object's S3 ETag (`"<md5 of the parts' MD5s>-<n>"`) is kept in a reserved metadata name.
 *
 * Every block id of the gateway has one length (Azure requires it within a blob): 39 bytes, 52 in base64.
 */
import { createDigest, streamDigest } from '../../checksums';
import { S3Error, s3Message } from '../../errors';
import type { BackendResponse, HeaderMap } from '../../http';
import { fromBase64, toBase64, toHex } from '../../bytes';
import { checkWriteIfMatch, unquoted } from '../../preconditions';
import { backendDocument } from '../../streams';
import { buildXml, childOf, listOf, parseXml, textOf } from '../../xml';
import { copySourceRange } from '../../range';
import type { BackendCall, CopyRequest, CopyResult, MultipartStore, MultipartUpload, PartRef, UploadedPart, WriteConditions } from '../store';
import type { CopyBlobs } from './copy';
import { azureError } from './errors';
import { S3_ETAG_METADATA, s3EtagOfAnswer } from './etag';

/** Azure's largest block (versions 2019-12-12 on): a larger part is refused before a byte is sent. */
export const MAX_BLOCK_BYTES = 4000 * 1024 * 1024;
/** S3's smallest part but the last. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;

const NONCE_BYTES = 12;
const ATTEMPT_BYTES = 8;
const MD5_BYTES = 16;
/** kind, nonce, part number (2 bytes), attempt, then 16 bytes: zero in a data block id, the MD5 in a marker's. */
export const BLOCK_ID_BYTES = 1 + NONCE_BYTES + 2 + ATTEMPT_BYTES + MD5_BYTES;
const DATA = 0x44; // 'D'
const MARKER = 0x4d; // 'M'
const EMPTY_MD5 = 'd41d8cd98f00b204e9800998ecf8427e';

/** What a block id of the gateway names. */
export interface BlockName {
  readonly kind: 'data' | 'marker';
  readonly nonce: Uint8Array;
  readonly partNumber: number;
  /** The attempt, in hex. */
  readonly attempt: string;
  /** A marker's record of the part's MD5 (hex); absent in a data block's. */
  readonly md5?: string;
}

/** The base64 block id of a part's data block (`md5` absent) or of its marker. */
export function blockId(nonce: Uint8Array, partNumber: number, attempt: Uint8Array, md5?: Uint8Array): string {
  const id = new Uint8Array(BLOCK_ID_BYTES);
  id[0] = md5 === undefined ? DATA : MARKER;
  id.set(nonce, 1);
  id[1 + NONCE_BYTES] = partNumber >> 8;
  id[2 + NONCE_BYTES] = partNumber & 0xff;
  id.set(attempt, 3 + NONCE_BYTES);
  if (md5 !== undefined) id.set(md5, 3 + NONCE_BYTES + ATTEMPT_BYTES);
  return toBase64(id);
}

/** What a block id names, or undefined when it is not one of the gateway's. */
export function readBlockId(id: string): BlockName | undefined {
  const bytes = fromBase64(id);
  if (bytes === undefined || bytes.length !== BLOCK_ID_BYTES || (bytes[0] !== DATA && bytes[0] !== MARKER)) return undefined;
  const at = 3 + NONCE_BYTES;
  return {
    kind: bytes[0] === DATA ? 'data' : 'marker',
    nonce: bytes.slice(1, 1 + NONCE_BYTES),
    partNumber: (bytes[1 + NONCE_BYTES] << 8) | bytes[2 + NONCE_BYTES],
    attempt: toHex(bytes.subarray(at, at + ATTEMPT_BYTES)),
    md5: bytes[0] === MARKER ? toHex(bytes.subarray(at + ATTEMPT_BYTES)) : undefined,
  };
}

/** A part's finished attempt: its marker, and its data block when it has bytes. */
export interface PartAttempt {
  readonly partNumber: number;
  readonly md5: string;
  readonly size: number;
  /** The data block's id; absent for a part of 0 bytes. */
  readonly dataId?: string;
}

/**
 * The finished attempts of the upload with `nonce` among a blob's uncommitted blocks (`[id, size]` in the
 * order Get Block List gives them, the order they were put), by part number, latest last. An attempt whose
 * marker is missing did not finish (its body failed); one whose data block is missing lost it.
 */
export function partAttempts(blocks: readonly (readonly [string, number])[], nonce: Uint8Array): Map<number, PartAttempt[]> {
  const data = new Map<string, readonly [string, number]>();
  const markers: BlockName[] = [];
  const ours = toHex(nonce);
  for (const [id, size] of blocks) {
    const name = readBlockId(id);
    if (name === undefined || toHex(name.nonce) !== ours) continue;
    if (name.kind === 'data') data.set(`${name.partNumber}/${name.attempt}`, [id, size]);
    else markers.push(name);
  }
  const parts = new Map<number, PartAttempt[]>();
  for (const marker of markers) {
    const md5 = marker.md5 as string;
    const block = data.get(`${marker.partNumber}/${marker.attempt}`);
    if (block === undefined && md5 !== EMPTY_MD5) continue;
    const attempt: PartAttempt = { partNumber: marker.partNumber, md5, size: block?.[1] ?? 0, dataId: block?.[0] };
    parts.set(marker.partNumber, [...(parts.get(marker.partNumber) ?? []), attempt]);
  }
  return parts;
}

/**
 * The blocks CompleteMultipartUpload commits for `parts` (the client's list, ascending), and the object's
 * S3 ETag. Each part's ETag must be the MD5 a finished attempt of that part recorded (the latest such
 * attempt is taken), and every part but the last must have 5 MiB; a missing part is reported before a small one.
 *
 * @throws S3Error InvalidPart, EntityTooSmall, as S3 answers them.
 */
export function completion(parts: readonly PartRef[], attempts: ReadonlyMap<number, readonly PartAttempt[]>): { blocks: string[]; etag: string } {
  const found = parts.map((part) => {
    const etag = unquoted(part.etag.trim()).toLowerCase();
    const attempt = [...(attempts.get(part.partNumber) ?? [])].reverse().find((a) => a.md5 === etag);
    if (attempt === undefined) {
      throw new S3Error('InvalidPart', s3Message('InvalidPart') ?? '', { PartNumber: String(part.partNumber), ETag: part.etag });
    }
    return attempt;
  });
  const blocks: string[] = [];
  const md5s = createDigest('md5');
  parts.forEach((part, i) => {
    const attempt = found[i];
    if (i < parts.length - 1 && attempt.size < MIN_PART_BYTES) {
      throw new S3Error('EntityTooSmall', s3Message('EntityTooSmall') ?? '', {
        ProposedSize: String(attempt.size),
        MinSizeAllowed: String(MIN_PART_BYTES),
        PartNumber: String(part.partNumber),
        ETag: part.etag,
      });
    }
    if (attempt.dataId !== undefined) blocks.push(attempt.dataId);
    md5s.update(hexBytes(attempt.md5));
  });
  return { blocks, etag: `"${toHex(md5s.digest())}-${parts.length}"` };
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** What the multipart calls need of their AzureStore. */
export interface AzureBlobs extends Pick<CopyBlobs, 'blobUrl' | 'send' | 'head' | 'now'> {
  /** The `x-ms-*` headers a Put Blob of the object headers sets. */
  objectHeaders(headers: HeaderMap): HeaderMap;
  /** A copy's source blob in the same account, once its copy-source conditions hold (azure/copy.ts `partSource`). */
  copySource(request: CopyRequest, operation: string, call: BackendCall): Promise<CopySourceBlob>;
}

/** A copy's source blob, as one HEAD found it. */
export interface CopySourceBlob {
  readonly size: number;
  /** Bytes `first` to `last` of the blob, pinned to the version the HEAD read (412 if it changed since). */
  read(first: number, last: number): Promise<ReadableStream<Uint8Array>>;
}

export class AzureMultipart implements MultipartStore {
  constructor(private readonly blobs: AzureBlobs) {}

  objectHeaders(key: string, headers: HeaderMap): HeaderMap {
    this.blobs.blobUrl(key);
    return this.blobs.objectHeaders(headers);
  }

  async uploadPart(upload: MultipartUpload, partNumber: number, body: ReadableStream<Uint8Array> | Uint8Array, length: number, call: BackendCall): Promise<string> {
    checkPartSize(length);
    const url = this.blobs.blobUrl(upload.key);
    const attempt = crypto.getRandomValues(new Uint8Array(ATTEMPT_BYTES));
    const digest = streamDigest('md5');
    if (length > 0) {
      let hashed: ReadableStream<Uint8Array> | Uint8Array;
      if (body instanceof Uint8Array) {
        digest.update(body);
        hashed = body;
      } else {
        hashed = body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform: (chunk, out) => { digest.update(chunk); out.enqueue(chunk); } }));
      }
      await this.putBlock(url, blockId(upload.nonce, partNumber, attempt), hashed, length, call);
    } else if (!(body instanceof Uint8Array)) {
      await body.cancel();
    }
    const md5 = await digest.digest();
    await this.putBlock(url, blockId(upload.nonce, partNumber, attempt, md5), new Uint8Array(1), 1, call);
    return `"${toHex(md5)}"`;
  }

  /** The source's range read (after its conditions and the range's checks) and written as UploadPart writes a part. */
  async copyPart(upload: MultipartUpload, partNumber: number, request: CopyRequest, call: BackendCall): Promise<CopyResult> {
    const source = await this.blobs.copySource(request, 'UploadPartCopy', call);
    const { first, last } = copySourceRange(request.headers['x-amz-copy-source-range'], source.size);
    const length = last - first + 1;
    checkPartSize(length);
    const body = length > 0 ? await source.read(first, last) : new Uint8Array(0);
    const etag = await this.uploadPart(upload, partNumber, body, length, call);
    return { etag, lastModified: new Date(this.blobs.now()).toISOString() };
  }

  async listParts(upload: MultipartUpload, call: BackendCall): Promise<UploadedPart[]> {
    const attempts = partAttempts(await this.uncommittedBlocks(upload.key, call), upload.nonce);
    return [...attempts.values()]
      .map((list) => list[list.length - 1])
      .sort((a, b) => a.partNumber - b.partNumber)
      .map((a) => ({ partNumber: a.partNumber, etag: `"${a.md5}"`, size: a.size }));
  }

  async complete(upload: MultipartUpload, parts: readonly PartRef[], conditions: WriteConditions, call: BackendCall): Promise<string> {
    const url = this.blobs.blobUrl(upload.key);
    const { blocks, etag } = completion(parts, partAttempts(await this.uncommittedBlocks(upload.key, call), upload.nonce));
    const headers: HeaderMap = { ...upload.headers, [S3_ETAG_METADATA]: etag, 'content-type': 'application/xml' };
    if (conditions.ifMatch !== undefined) {
      // As PutObject's (azure.ts pinIfMatch): read as S3 reads it, pinned to the blob's own ETag.
      const current = await this.blobs.head(upload.key, call);
      checkWriteIfMatch(conditions.ifMatch, current === undefined ? undefined : s3EtagOfAnswer(200, current), upload.key);
      headers['if-match'] = current?.get('etag') ?? '';
    }
    if (conditions.ifNoneMatch !== undefined) headers['if-none-match'] = '*';
    const body = new TextEncoder().encode(buildXml('BlockList', { Uncommitted: blocks }));
    headers['content-length'] = String(body.length);
    const response = await this.blobs.send('PUT', `${url}?comp=blocklist`, call, headers, body);
    await failUnless(response, 201, (code) =>
      // The blocks went between the listing and the commit: another completion or PUT of the key took them.
      code === 'InvalidBlockList' ? new S3Error('InvalidPart', s3Message('InvalidPart') ?? '') : undefined,
    );
    await response.body?.cancel();
    return etag;
  }

  private async putBlock(url: string, id: string, body: ReadableStream<Uint8Array> | Uint8Array, length: number, call: BackendCall): Promise<void> {
    const response = await this.blobs.send('PUT', `${url}?comp=block&blockid=${encodeURIComponent(id)}`, call, { 'content-length': String(length) }, body);
    await failUnless(response, 201);
    await response.body?.cancel();
  }

  /** The blob's uncommitted blocks as `[id, size]`, in Azure's order; none when there is no blob. */
  private async uncommittedBlocks(key: string, call: BackendCall): Promise<[string, number][]> {
    const response = await this.blobs.send('GET', `${this.blobs.blobUrl(key)}?comp=blocklist&blocklisttype=uncommitted`, call);
    if (response.status === 404 && response.headers.get('x-ms-error-code') === 'BlobNotFound') {
      await response.body?.cancel();
      return [];
    }
    await failUnless(response, 200);
    const document = parseXml(await backendDocument(response.body));
    if (document === undefined) throw new S3Error('BadGateway', 'The Azure backend answered Get Block List with an unreadable document');
    const blocks = listOf(childOf(document.BlockList, 'UncommittedBlocks'), 'Block');
    return blocks.map((block) => [textOf(childOf(block, 'Name')) ?? '', Number(textOf(childOf(block, 'Size')) ?? 0)]);
  }
}

/** A part is one block: a larger one is refused before a byte is sent. */
function checkPartSize(length: number): void {
  if (length <= MAX_BLOCK_BYTES) return;
  throw new S3Error('EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size: an Azure backend takes parts of up to 4000 MiB', {
    ProposedSize: String(length),
    MaxSizeAllowed: String(MAX_BLOCK_BYTES),
  });
}

/** Throws the S3 error for an Azure answer other than `status` (`special` first); a good answer's body is left unread. */
async function failUnless(response: BackendResponse, status: number, special?: (code: string | undefined) => S3Error | undefined): Promise<void> {
  if (response.status === status) return;
  await response.body?.cancel();
  const code = response.headers.get('x-ms-error-code') ?? undefined;
  throw special?.(code) ?? azureError(response.status, code);
}
