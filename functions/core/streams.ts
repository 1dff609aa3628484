/** Web-stream and byte helpers shared by the core and the runtimes. */
import { decodeUtf8, Utf8ChunkDecoder } from './bytes';
import { S3Error } from './errors';

/**
 * Reads a body whole, but at most `maxBytes`: undefined (and the stream cancelled) when it is larger.
 * Used only where a body must be bounded and collected (NeedsBody, discovery documents and key sets).
 */
export async function readBounded(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array | undefined> {
  if (body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  return (await eachChunkWithin(body, maxBytes, (chunk) => chunks.push(chunk))) ? concat(chunks) : undefined;
}

/** Hands each chunk of `body` to `each` while the total stays within `maxBytes`: false (the rest cancelled) once it would not. */
async function eachChunkWithin(body: ReadableStream<Uint8Array>, maxBytes: number, each: (chunk: Uint8Array) => void): Promise<boolean> {
  const reader = body.getReader();
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return true;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return false;
    }
    each(value);
  }
}

/** GATEWAY_IDLE_TIMEOUT_MS unset: how long a request body may stop arriving (or a backend socket stay silent). */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/**
 * A NeedsBody's body, read whole as long as it keeps arriving: at most `maxBytes` (more: `'too-large'`, the
 * rest cancelled), and a body from which nothing arrives for `idleMs` is abandoned as `'stalled'`.
 */
export async function collectBody(body: ReadableStream<Uint8Array>, maxBytes: number, idleMs: number): Promise<Uint8Array | 'too-large' | 'stalled'> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const piece = await withinIdle(reader.read(), idleMs);
    if (piece === 'stalled' || size + (piece.value?.byteLength ?? 0) > maxBytes) {
      void reader.cancel().catch(() => undefined);
      return piece === 'stalled' ? 'stalled' : 'too-large';
    }
    if (piece.done) return concat(chunks);
    size += piece.value.byteLength;
    chunks.push(piece.value);
  }
}

function withinIdle<T>(read: Promise<T>, idleMs: number): Promise<T | 'stalled'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<'stalled'>((resolve) => {
    timer = setTimeout(() => resolve('stalled'), idleMs);
  });
  return Promise.race([read, idle]).finally(() => clearTimeout(timer));
}

/** The pieces as one array (the piece itself when there is one). */
export function concat(pieces: readonly Uint8Array[]): Uint8Array {
  if (pieces.length === 1) return pieces[0];
  let size = 0;
  for (const p of pieces) size += p.length;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const p of pieces) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Far above any listing page or error document a store sends (1,000 keys of 1 KiB each is ~1.5 MB). */
const MAX_BACKEND_DOCUMENT_BYTES = 32 * 1024 * 1024;

/** A backend's small response document (listing, error, control answer); a larger one is a 502, never buffered. */
export async function backendBytes(body: ReadableStream<Uint8Array> | null): Promise<Uint8Array> {
  const bytes = await readBounded(body, MAX_BACKEND_DOCUMENT_BYTES);
  if (bytes === undefined) throw documentTooLarge();
  return bytes;
}

function documentTooLarge(): S3Error {
  return new S3Error('BadGateway', 'The backend answered with a document larger than 32 MiB');
}

/**
 * A backend's document as text, handed to `take` piece by piece as it arrives, bounded as backendBytes is:
 * the listing readers scan it this way and never make one string of a whole page.
 */
export async function backendTextPieces(body: ReadableStream<Uint8Array> | null, take: (text: string) => void): Promise<void> {
  const decoder = new Utf8ChunkDecoder();
  const give = (text: string): void => {
    if (text !== '') take(text);
  };
  if (body !== null && !(await eachChunkWithin(body, MAX_BACKEND_DOCUMENT_BYTES, (chunk) => give(decoder.decode(chunk))))) throw documentTooLarge();
  give(decoder.end());
}

/** `backendBytes` as text. */
export async function backendDocument(body: ReadableStream<Uint8Array> | null): Promise<string> {
  return decodeUtf8(await backendBytes(body));
}
