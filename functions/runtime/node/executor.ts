import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Gateway } from '../../core/gateway';
import type { RequestRecord } from '../../core/observability/record';
import type { BackendRequest, HeaderMap, ProxyRequest, ProxyResponse, ReadonlyHeaders, ResponseHead } from '../../core/http';
import { runDispatch, type DispatchRuntime, type ExchangeResult } from '../shared/dispatch';
import type { WireResponse } from './http1/response';
import { NodeHeaders } from './headers';
import { whenIdle, type NodeBackend } from './backend';

/**
 * Executes the core's dispatch on a Node runtime. Shared by the native server and the Lambda handler, which
 * differ only in where the client's body comes from and where the response goes (`NodeExchange`).
 */
export interface NodeExchange {
  readonly request: ProxyRequest;
  /** What the request turned out to be, for the access log and metrics. */
  readonly record?: RequestRecord;
  /** Where Forwards go. */
  readonly backend: NodeBackend;
  /** The client's body as a Node stream (opened once). */
  readonly body: () => Readable;
  /**
   * Sends status and headers; returns where the body goes. Called exactly once. The sink handles its own
   * 'error' events: the executor learns of a failure from a 'close' before the sink finished.
   */
  readonly start: (status: number, headers: HeaderMap) => Writable;
  /** Registers what to do when the client goes away before the response finished (abort the backend). */
  readonly whenClientGone: (abort: () => void) => void;
  /** Coalesce a large body's writes per event-loop turn: for a server streaming to many clients at once. */
  readonly coalesceWrites?: boolean;
}

/** What a Node runtime builds at start-up: the gateway, and the backend connections its Forwards go out on. */
export interface NodeGateway {
  readonly gateway: Gateway;
  readonly backend: NodeBackend;
}

/** The most of an unwanted backend body read through to keep its connection. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * Drops a backend body the client will not get. A short one is read to its end, so its connection serves the
 * next request; a longer one (an object read for its headers: a 304, a 412, a part it lacks) is given up with
 * its connection, which costs less than reading it through. A body still flowing when the client's response
 * ends may be aborted then: that error has no reader, and must not end the process.
 */
export function discardBody(body: WireResponse): void {
  body.on('error', () => undefined);
  if (body.whole || Number(body.headers['content-length']) <= DRAIN_LIMIT_BYTES) body.resume();
  else body.destroy();
}

/** The dispatch loop's primitives on Node streams and the HTTP/1.1 backend client. Stateless: one for all. */
class NodeRuntime implements DispatchRuntime<NodeExchange, WireResponse, ExchangeResult> {
  collectBody(exchange: NodeExchange, maxBytes: number): Promise<Uint8Array | 'too-large' | 'stalled'> {
    return collect(exchange.body(), maxBytes, exchange.backend.idleTimeoutMs);
  }

  forward(exchange: NodeExchange, request: BackendRequest): Promise<WireResponse> {
    return exchange.backend.send(request, exchange.body, exchange.whenClientGone);
  }

  backendStatus(backend: WireResponse): number {
    return backend.statusCode ?? 502;
  }

  backendHeaders(backend: WireResponse): ReadonlyHeaders {
    return NodeHeaders.fromIncoming(backend.headers);
  }

  discard(backend: WireResponse): void {
    discardBody(backend);
  }

  async readBackendBody(backend: WireResponse, maxBytes: number): Promise<Uint8Array | undefined> {
    // The backend's socket has its own idle timeout (backend.ts): its body is not watched a second time.
    const document = await collect(backend, maxBytes);
    return document instanceof Uint8Array ? document : undefined;
  }

  respond(exchange: NodeExchange, response: ProxyResponse, bodyAbandoned = false): Promise<ExchangeResult> {
    return writeResponse(exchange, bodyAbandoned ? closing(response) : response);
  }

  stream(exchange: NodeExchange, backend: WireResponse, head: ResponseHead): Promise<ExchangeResult> {
    const sink = exchange.start(head.status, head.headers);
    // A small body is often whole by now (it came with the head): one write, no pipe to set up and tear down.
    if (backend.whole) return end(sink, backend.read() ?? undefined, head.status);
    if (exchange.coalesceWrites && !fitsOneRead(head.headers)) coalesceWrites(backend, sink);
    return stream(backend, sink, head.status);
  }

  failed(result: ExchangeResult, error: unknown): ExchangeResult {
    return { status: result.status, error };
  }
}

const NODE_RUNTIME = new NodeRuntime();

/** Runs the dispatch for one request to its end (shared/dispatch.ts) on Node streams. */
export function execute(gateway: Gateway, exchange: NodeExchange): Promise<ExchangeResult> {
  return runDispatch(gateway, exchange, NODE_RUNTIME);
}

/**
 * The answer to a request whose body stopped arriving, with `Connection: close`: the rest of the body is never
 * read, so the connection cannot carry another request and is closed once the answer is out rather than held
 * until the server's request timeout. (Only the Node server meets a stalled body: a Lambda event holds it whole.)
 */
function closing(response: ProxyResponse): ProxyResponse {
  return { status: response.status, headers: Object.assign({}, response.headers, { connection: 'close' }), body: response.body };
}

/**
 * Pipes the backend's body to the client with backpressure. A plain `pipe`, one listener on each side:
 * measured here, `stream.pipeline` and every further listener (an 'error' listener on the response alone)
 * cost a noticeable share of a small request's CPU. The sink closes once finished or broken; a backend
 * failure breaks it, since with the status line gone a truncated body is the only way left to signal it.
 */
function stream(backend: WireResponse, sink: Writable, status: number): Promise<ExchangeResult> {
  return new Promise((resolve) => {
    let failure: unknown;
    backend.once('error', (err) => {
      failure = err;
      sink.destroy();
    });
    sink.once('close', () => {
      if (failure === undefined && sink.writableFinished) return resolve({ status });
      backend.destroy();
      resolve({ status, error: failure ?? new Error('The client went away') });
    });
    backend.pipe(sink);
  });
}

/** Node reads a socket 64 KiB at a time: a body of at most that arrives in one read, one write. */
const READ_SIZE = 64 * 1024;

function fitsOneRead(headers: HeaderMap): boolean {
  const length = headers['content-length'];
  return length !== undefined && Number(length) <= READ_SIZE;
}

/**
 * Holds the sink's writes until the end of the event loop's turn, then sends them together. Measured, 1 MiB
 * GETs at concurrency 8, six A/B runs in both orders: 16-41% more throughput in five, 6% less in one, about
 * a fifth less CPU per GET. The write syscalls per GET stay the same (/proc/<pid>/io), so the gain is in when
 * the writes happen, after the turn's reads, which was not pinned down further. A single 256 MiB stream and
 * small GETs: no change. The Node server's 1 MiB connection buffers (GATEWAY_STREAM_BUFFER_BYTES) build on it. Registered
 * before the pipe's own 'data' listener, so a turn's first chunk is already held; `end()` sends whatever is
 * held.
 */
export function coalesceWrites(backend: Readable, sink: Writable): void {
  let held = false;
  const release = (): void => {
    held = false;
    sink.uncork();
  };
  backend.on('data', () => {
    if (held) return;
    held = true;
    sink.cork();
    setImmediate(release);
  });
}

async function writeResponse(exchange: NodeExchange, response: ProxyResponse): Promise<ExchangeResult> {
  const { body } = response;
  if (body instanceof ReadableStream) {
    const sink = exchange.start(response.status, response.headers);
    await pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>), sink);
    return { status: response.status };
  }
  const bytes = body === null ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
  const headers = bytes === undefined ? response.headers : Object.assign({}, response.headers, { 'content-length': String(bytes.length) });
  return end(exchange.start(response.status, headers), bytes, response.status);
}

/** Ends the sink with `bytes`; settles once it closes, finished or not (the client may go away first). */
function end(sink: Writable, bytes: Uint8Array | undefined, status: number): Promise<ExchangeResult> {
  return new Promise((resolve) => {
    sink.once('close', () => resolve(sink.writableFinished ? { status } : { status, error: new Error('The client went away') }));
    sink.end(bytes);
  });
}

/**
 * Reads the whole body, at most `maxBytes` of it (more: `'too-large'`, and the body is dropped). A client's
 * body (`idleTimeoutMs` given) is read as long as it keeps arriving: one idle for the idle timeout
 * (GATEWAY_IDLE_TIMEOUT_MS, the rule streamed uploads follow) is abandoned as `'stalled'` and left paused.
 */
function collect(body: Readable, maxBytes: number, idleTimeoutMs?: number): Promise<Uint8Array | 'too-large' | 'stalled'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (): void => {
      stopWatching();
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      settle();
      body.destroy();
      resolve('too-large');
    };
    const onEnd = (): void => {
      settle();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      settle();
      reject(err);
    };
    const stalled = (): void => {
      settle();
      body.pause();
      // The client may still go away later; nobody reads the body any more, so that is no one's error.
      body.on('error', () => undefined);
      resolve('stalled');
    };
    const stopWatching = idleTimeoutMs === undefined ? (): void => undefined : whenIdle(body, idleTimeoutMs, stalled);
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onError);
  });
}
