import { S3Error } from '../core/errors';
import type { BackendClient, BackendRequest } from '../core/http';

/**
 * Backend requests on the edge go through the platform's `fetch`, with three settings that make it behave
 * like the Node runtimes' node:http client: bodies are never decoded (`encodeResponseBody: 'manual'`, so a
 * `Content-Encoding: gzip` object passes through byte for byte), redirects are answers rather than
 * followed, and a request body streams (`duplex: 'half'`).
 */
export type EdgeRequestInit = RequestInit & {
  /** Streams the request body instead of buffering it (standard; required by Node's fetch for streams). */
  readonly duplex?: 'half';
  /** Workers: `manual` leaves a compressed backend body compressed, as node:http does. */
  readonly encodeResponseBody?: 'manual' | 'automatic';
};

/** `fetch` as the adapter calls it; injected so tests and other platforms can supply their own. */
export type Fetch = (url: string, init: EdgeRequestInit) => Promise<Response>;

/**
 * Workers' `FixedLengthStream`: a byte stream whose length is declared up front, so `fetch` sends
 * `Content-Length` instead of chunked encoding (S3 refuses a chunked PUT with 411). Absent elsewhere.
 */
type FixedLengthStreamConstructor = new (length: number) => TransformStream<Uint8Array, Uint8Array>;

const platform = globalThis as typeof globalThis & { FixedLengthStream?: FixedLengthStreamConstructor };

/** Hop-by-hop and computed headers: `fetch` sets these itself (and refuses some of them). */
const FETCH_MANAGED = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'expect', 'upgrade']);

/**
 * Sends one backend request and resolves with the response once its head arrives, the body unread.
 * `clientBody` is the client's request body, used when the request says `'client'`. A body stream that
 * errors (a failed chunk signature, a checksum mismatch) aborts the request so the backend commits nothing,
 * and its error is the rejection; other transport failures reject with 503 ServiceUnavailable.
 */
export async function sendFetch(
  request: BackendRequest,
  clientBody: () => ReadableStream<Uint8Array> | null,
  signal: AbortSignal | undefined,
  fetcher: Fetch = (url, init) => fetch(url, init),
): Promise<Response> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (!FETCH_MANAGED.has(name.toLowerCase())) headers.set(name, value);
  }
  let bodyError: unknown;
  // A failed body aborts the request outright: the backend must see a broken upload, never a short one.
  const abort = new AbortController();
  const onClientGone = (): void => abort.abort(signal?.reason);
  signal?.addEventListener('abort', onClientGone, { once: true });
  const onBodyError = (err: unknown): void => {
    bodyError ??= err;
    abort.abort(err);
  };
  let body: ReadableStream<Uint8Array> | Uint8Array | null;
  try {
    body = await requestBody(request, clientBody, onBodyError);
  } catch (err) {
    signal?.removeEventListener('abort', onClientGone);
    throw bodyError ?? err;
  }
  const init: EdgeRequestInit = {
    method: request.method,
    headers,
    body,
    signal: abort.signal,
    redirect: 'manual',
    encodeResponseBody: 'manual',
    ...(body instanceof ReadableStream ? { duplex: 'half' as const } : {}),
  };
  try {
    return await fetcher(request.url, init);
  } catch (err) {
    if (bodyError !== undefined) throw bodyError;
    if (err instanceof S3Error || signal?.aborted) throw err;
    throw new S3Error('ServiceUnavailable', 'The backend is unreachable');
  } finally {
    signal?.removeEventListener('abort', onClientGone);
  }
}

async function requestBody(
  request: BackendRequest,
  clientBody: () => ReadableStream<Uint8Array> | null,
  onError: (err: unknown) => void,
): Promise<ReadableStream<Uint8Array> | Uint8Array | null> {
  const body = request.body;
  if (body === undefined || body === null) return null;
  if (body instanceof Uint8Array) return body;
  // The client's own body keeps the length the platform knows for it: passed as is, it streams natively.
  if (body === 'client') return clientBody();
  const tracked = await primed(body, onError);
  if (tracked instanceof Uint8Array) return tracked;
  const length = contentLength(request.headers);
  if (length === undefined || platform.FixedLengthStream === undefined) return tracked;
  const fixed = new platform.FixedLengthStream(length);
  // A failure reaches the readable side through the aborted writable; the rejection itself is recorded above.
  tracked.pipeTo(fixed.writable).catch(() => undefined);
  return fixed.readable;
}

/**
 * The core's stream, with its first error recorded before it reaches `fetch` (which would hide it). The
 * first piece is read before the backend is contacted: `fetch` sends the request head at once, and a body
 * the core refuses before passing on a single byte (a small one held back for its checksum) must never
 * reach the backend at all, since some stores keep an empty object from a request cut after its head.
 * An empty body comes back as empty bytes.
 */
async function primed(source: ReadableStream<Uint8Array>, onError: (err: unknown) => void): Promise<ReadableStream<Uint8Array> | Uint8Array> {
  const reader = source.getReader();
  let first: Awaited<ReturnType<typeof reader.read>>;
  try {
    first = await reader.read();
  } catch (err) {
    onError(err);
    throw err;
  }
  if (first.done) return new Uint8Array(0);
  let pending: Uint8Array | undefined = first.value;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (pending !== undefined) {
          controller.enqueue(pending);
          pending = undefined;
          return;
        }
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (err) {
          onError(err);
          controller.error(err);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

function contentLength(headers: Readonly<Record<string, string>>): number | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'content-length' && /^\d+$/.test(value)) return Number(value);
  }
  return undefined;
}

/** A BackendClient for the core on `fetch`: the core never streams the client's body through it. */
export function fetchBackendClient(fetcher?: Fetch): BackendClient {
  return async (request, signal) => {
    const res = await sendFetch(request, () => null, signal, fetcher);
    return { status: res.status, headers: res.headers, body: res.body };
  };
}
