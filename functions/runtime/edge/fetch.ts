import { S3Error, invalidBackendResponse } from '../../core/errors';
import type { BackendClient, BackendRequest } from '../../core/http';
import { fetchHeaderValue } from './headers';

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
    if (!FETCH_MANAGED.has(name.toLowerCase())) headers.set(name, fetchHeaderValue(value));
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
  let upload: Upload | undefined;
  try {
    body = await requestBody(request, clientBody, onBodyError, (started) => (upload = started));
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
    const response = await fetcher(request.url, init);
    // A backend that answered before taking the whole body (a refusal) gets no more of it; stopping the
    // core's stream lets it drain the client's body, so the client still reads the answer.
    upload?.stop();
    if (hasControlCharacters(response.headers)) {
      void response.body?.cancel().catch(() => undefined);
      throw invalidBackendResponse();
    }
    return response;
  } catch (err) {
    if (bodyError !== undefined) throw bodyError;
    if (err instanceof S3Error || signal?.aborted) throw err;
    throw new S3Error('ServiceUnavailable', 'The backend is unreachable');
  } finally {
    signal?.removeEventListener('abort', onClientGone);
  }
}

const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/**
 * Whether a backend header value holds control characters. The Workers runtime passes them on to the client
 * (an invalid response, which node:http-based clients refuse); the Node runtimes' client refuses the backend's
 * answer instead, and so does this one. (It unfolds obs-fold and splits a bare LF into lines before the
 * worker sees the headers.)
 */
function hasControlCharacters(headers: Headers): boolean {
  let found = false;
  headers.forEach((value) => {
    if (!found && CONTROL.test(value)) found = true;
  });
  return found;
}

/** An upload of the core's stream in progress; `stop` ends it where it is (a no-op once it is complete). */
interface Upload {
  stop(): void;
}

async function requestBody(
  request: BackendRequest,
  clientBody: () => ReadableStream<Uint8Array> | null,
  onError: (err: unknown) => void,
  onUpload: (upload: Upload) => void,
): Promise<ReadableStream<Uint8Array> | Uint8Array | null> {
  const body = request.body;
  if (body === undefined || body === null) return null;
  if (body instanceof Uint8Array) return body;
  // The client's own body keeps the length the platform knows for it: passed as is, it streams natively.
  if (body === 'client') return clientBody();
  const started = await primed(body, onError);
  if (started instanceof Uint8Array) return started;
  const length = contentLength(request.headers);
  if (length === undefined || platform.FixedLengthStream === undefined) return asStream(started, onError);
  const fixed = new platform.FixedLengthStream(length);
  onUpload(pump(started, fixed.writable, onError));
  return fixed.readable;
}

/** A core stream whose first piece has been read. */
interface Started {
  readonly first: Uint8Array;
  readonly reader: ReadableStreamDefaultReader<Uint8Array>;
}

/**
 * Reads the first piece of the core's stream before the backend is contacted: `fetch` sends the request
 * head at once, and a body the core refuses before passing on a single byte (a small one held back for its
 * checksum) must never reach the backend at all, since some stores keep an empty object from a request cut
 * after its head. An empty body comes back as empty bytes; an error is recorded (`fetch` would hide it).
 */
async function primed(source: ReadableStream<Uint8Array>, onError: (err: unknown) => void): Promise<Started | Uint8Array> {
  const reader = source.getReader();
  try {
    const first = await reader.read();
    return first.done ? new Uint8Array(0) : { first: first.value, reader };
  } catch (err) {
    onError(err);
    throw err;
  }
}

/**
 * Copies the core's stream into the platform's pipe one piece at a time, each write awaited: the pipe's
 * writable side accepts writes faster than the backend drains them, so without this the core could run
 * ahead of the upload and the isolate would hold the difference. A failure is recorded and aborts the
 * pipe, which fails the request.
 */
function pump(started: Started, sink: WritableStream<Uint8Array>, onError: (err: unknown) => void): Upload {
  const writer = sink.getWriter();
  let finished = false;
  const stop = (reason?: unknown): void => {
    if (finished) return;
    finished = true;
    void writer.abort(reason).catch(() => undefined);
    void started.reader.cancel(reason).catch(() => undefined);
  };
  void (async () => {
    try {
      await writer.write(started.first);
      for (;;) {
        let piece: Awaited<ReturnType<typeof started.reader.read>>;
        try {
          piece = await started.reader.read();
        } catch (err) {
          onError(err);
          throw err;
        }
        if (piece.done || finished) break;
        await writer.write(piece.value);
      }
      if (!finished) {
        finished = true;
        await writer.close();
      }
    } catch (err) {
      stop(err);
    }
  })();
  return { stop: () => stop(new Error('The backend answered before the whole body was sent')) };
}

/** The started stream as a stream again, errors recorded (where the platform has no FixedLengthStream). */
function asStream(started: Started, onError: (err: unknown) => void): ReadableStream<Uint8Array> {
  let pending: Uint8Array | undefined = started.first;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (pending !== undefined) {
          controller.enqueue(pending);
          pending = undefined;
          return;
        }
        try {
          const { done, value } = await started.reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (err) {
          onError(err);
          controller.error(err);
        }
      },
      cancel: (reason) => started.reader.cancel(reason),
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
