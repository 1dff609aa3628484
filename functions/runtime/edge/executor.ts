import type { Gateway } from '../../core/gateway';
import type { BackendRequest, HeaderMap, ProxyRequest, ProxyResponse, ReadonlyHeaders, ResponseHead } from '../../core/http';
import type { RequestRecord } from '../../core/observability/record';
import { collectBody, DEFAULT_IDLE_TIMEOUT_MS, readBounded } from '../../core/streams';
import { runDispatch, type DispatchRuntime, type ExchangeResult } from '../shared/dispatch';
import type { ZoneCompression } from '../shared/settings';
import { sendFetch, type Fetch } from './fetch';
import { forCloudflare } from './no-transform';

/**
 * Executes the core's dispatch on the edge, with the Node executor's semantics on fetch: NeedsBody collects at
 * most `maxBytes` of the client's body; Forward goes to the backend with the platform's `fetch`, the request
 * body streaming up and the backend's body streaming back.
 */
export interface EdgeExchange {
  /** What the Worker returns. Its body may still be streaming. */
  readonly response: Response;
  /** Settles when the body has been delivered, or has failed (for the access log; never rejects). */
  readonly settled: Promise<ExchangeResult>;
  /** The client's body stopped arriving and was abandoned: nothing more is read from it. */
  readonly bodyAbandoned?: boolean;
}

/** One request on the edge, as the dispatch loop's primitives need it (a class: one hidden class for all). */
class EdgeCall {
  constructor(
    readonly request: ProxyRequest,
    readonly clientBody: () => ReadableStream<Uint8Array> | null,
    readonly fetcher: Fetch | undefined,
    readonly idleMs: number,
    readonly record: RequestRecord | undefined,
    readonly zone: ZoneCompression,
  ) {}
}

/** The dispatch loop's primitives on web streams and `fetch`. Stateless: one for all. */
class EdgeRuntime implements DispatchRuntime<EdgeCall, Response, EdgeExchange> {
  collectBody(call: EdgeCall, maxBytes: number): Promise<Uint8Array | 'too-large' | 'stalled'> {
    return collectBody(call.request.body(), maxBytes, call.idleMs);
  }

  forward(call: EdgeCall, request: BackendRequest): Promise<Response> {
    return sendFetch(request, call.clientBody, call.request.signal, call.fetcher);
  }

  backendStatus(backend: Response): number {
    return backend.status;
  }

  backendHeaders(backend: Response): ReadonlyHeaders {
    return backend.headers;
  }

  discard(backend: Response): void {
    void backend.body?.cancel().catch(() => undefined);
  }

  readBackendBody(backend: Response, maxBytes: number): Promise<Uint8Array | undefined> {
    return readBounded(backend.body, maxBytes);
  }

  respond(call: EdgeCall, response: ProxyResponse, bodyAbandoned = false): EdgeExchange {
    const exchange = complete(call, response);
    return bodyAbandoned ? { response: exchange.response, settled: exchange.settled, bodyAbandoned } : exchange;
  }

  stream(call: EdgeCall, backend: Response, head: ResponseHead): EdgeExchange {
    return stream(call, backend.body, head.status, head.headers);
  }

  failed(exchange: EdgeExchange, error: unknown): EdgeExchange {
    return { response: exchange.response, settled: exchange.settled.then((result) => ({ status: result.status, error })), bodyAbandoned: exchange.bodyAbandoned };
  }
}

const EDGE_RUNTIME = new EdgeRuntime();

/**
 * @param clientBody The client's body as the platform holds it (null when there is none), streamed to the
 *   backend natively when a Forward asks for `'client'`, so a declared length travels with it.
 * @param idleMs How long a body NeedsBody collects may stop arriving before it is abandoned and answered
 *   with the dispatch's `timedOut` (GATEWAY_IDLE_TIMEOUT_MS, as on the Node runtimes).
 * @param zone The zone's compression on the worker's route (EDGE_ZONE_COMPRESSION): which answers are marked
 *   `no-transform` (runtime/edge/no-transform.ts).
 */
export function execute(
  gateway: Gateway,
  request: ProxyRequest,
  clientBody: () => ReadableStream<Uint8Array> | null,
  fetcher?: Fetch,
  idleMs: number = DEFAULT_IDLE_TIMEOUT_MS,
  record?: RequestRecord,
  zone: ZoneCompression = 'default',
): Promise<EdgeExchange> {
  return runDispatch(gateway, new EdgeCall(request, clientBody, fetcher, idleMs, record, zone), EDGE_RUNTIME);
}

type EdgeResponseInit = ResponseInit & {
  /** Workers: `manual` sends the body as it is, never compressing it again. */
  readonly encodeBody?: 'manual' | 'automatic';
};

/** Statuses that carry no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** Whether an answer to `method` with `status` carries a body. */
function hasBody(method: string, status: number): boolean {
  return method !== 'HEAD' && !NULL_BODY_STATUSES.has(status);
}

function toResponse(call: EdgeCall, status: number, headers: HeaderMap, body: ConstructorParameters<typeof Response>[0]): Response {
  const withBody = hasBody(call.request.method, status);
  const init: EdgeResponseInit = { status, headers: forCloudflare(headers, status, withBody, call.zone), encodeBody: 'manual' };
  return new Response(withBody ? body : null, init);
}

function complete(call: EdgeCall, response: ProxyResponse): EdgeExchange {
  const { body } = response;
  if (body instanceof ReadableStream) return stream(call, body, response.status, response.headers);
  return { response: toResponse(call, response.status, response.headers, body), settled: Promise.resolve({ status: response.status }) };
}

/**
 * Workers' byte pipes, pumped natively with backpressure instead of passing every chunk through JavaScript:
 * FixedLengthStream when the length is known (the response then carries Content-Length, which a pipe of
 * unknown length would turn into chunked encoding), IdentityTransformStream otherwise. The standard
 * TransformStream elsewhere.
 */
type PipeConstructor<A extends unknown[]> = new (...args: A) => TransformStream<Uint8Array, Uint8Array>;
const platform = globalThis as typeof globalThis & {
  IdentityTransformStream?: PipeConstructor<[]>;
  FixedLengthStream?: PipeConstructor<[length: number]>;
};

function pipeFor(headers: HeaderMap): TransformStream<Uint8Array, Uint8Array> {
  const declared = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-length')?.[1];
  if (declared !== undefined && /^\d+$/.test(declared) && platform.FixedLengthStream) return new platform.FixedLengthStream(Number(declared));
  return platform.IdentityTransformStream ? new platform.IdentityTransformStream() : new TransformStream<Uint8Array, Uint8Array>();
}

/**
 * Streams `body` to the client through a pipe whose end is observed, so the access log knows whether the
 * body was delivered. A client that goes away cancels the pipe, which cancels the backend's body.
 */
function stream(call: EdgeCall, body: ReadableStream<Uint8Array> | null, status: number, headers: HeaderMap): EdgeExchange {
  if (body === null || !hasBody(call.request.method, status)) {
    void body?.cancel().catch(() => undefined);
    return { response: toResponse(call, status, headers, null), settled: Promise.resolve({ status }) };
  }
  const pipe = pipeFor(headers);
  const settled = body.pipeTo(pipe.writable).then(
    (): ExchangeResult => ({ status }),
    // The status line is gone: a truncated body is the only way left to signal the failure.
    (error: unknown): ExchangeResult => ({ status, error: error ?? new Error('The response stream was cancelled') }),
  );
  return { response: toResponse(call, status, headers, pipe.readable), settled };
}

