import { utf8Length } from '../../core/bytes';
import { S3Error } from '../../core/errors';
import type { RequestRecord } from '../../core/observability/record';
import { tracedRequest } from '../../core/observability/trace';
import type { Gateway } from '../../core/gateway';
import {
  isProxyResponse,
  isRewriteBody,
  type BackendRequest,
  type Dispatch,
  type HeaderMap,
  type ProxyRequest,
  type ProxyResponse,
  type ReadonlyHeaders,
  type ResponseHead,
} from '../../core/http';

/** What the loop asks of the core: a dispatch per request, and the S3 error for a failure. */
export type Dispatcher = Pick<Gateway, 'handle' | 'failure'>;

/** How an exchange ended, for the access log: the status sent, and what went wrong if anything did. */
export interface ExchangeResult {
  readonly status: number;
  readonly error?: unknown;
}

/** One client exchange as a runtime holds it: the request, and whatever its primitives need to serve it. */
export interface ClientExchange {
  readonly request: ProxyRequest;
  /** What the request turned out to be, for the access log and the metrics; kept when the adapter logs. */
  readonly record?: RequestRecord;
}

/**
 * What a runtime does for the dispatch loop, each on its own platform. `X` is one client exchange, `B` a
 * backend's answer with its body unread, `R` what running a dispatch yields to the runtime's adapter.
 * Implemented once per runtime (a class or a constant, never an object per request: its methods are then
 * one hidden class for every call).
 */
export interface DispatchRuntime<X extends ClientExchange, B, R> {
  /**
   * Reads the client's whole body, at most `maxBytes` of it: `'too-large'` when it is larger (the body is
   * dropped), `'stalled'` when it stopped arriving for the idle timeout (GATEWAY_IDLE_TIMEOUT_MS; the body is
   * abandoned, never read again).
   */
  collectBody(exchange: X, maxBytes: number): Promise<Uint8Array | 'too-large' | 'stalled'>;
  /** Executes a Forward's request; resolves with the backend's answer once its head has arrived. */
  forward(exchange: X, request: BackendRequest): Promise<B>;
  /** The backend answer's status, for the Forward's `respond`. */
  backendStatus(backend: B): number;
  /** The backend answer's headers, for the Forward's `respond`. */
  backendHeaders(backend: B): ReadonlyHeaders;
  /** Drops the backend's body: the client gets a response the core built instead. */
  discard(backend: B): void;
  /** Reads the backend's body, at most `maxBytes` of it; undefined when it is larger. */
  readBackendBody(backend: B, maxBytes: number): Promise<Uint8Array | undefined>;
  /**
   * Sends a response the core built. `bodyAbandoned`: the client's body stopped arriving and is never read
   * again, so the connection cannot carry another request (the Node server closes it after the answer).
   */
  respond(exchange: X, response: ProxyResponse, bodyAbandoned?: boolean): R | Promise<R>;
  /** Sends `head` to the client, then the backend's body. */
  stream(exchange: X, backend: B, head: ResponseHead): R | Promise<R>;
  /** What sending the S3 error for a failure yielded (`result`), reporting `error` as what went wrong. */
  failed(result: R, error: unknown): R;
}

/**
 * Runs the core's dispatch for one request to its end, the same on every runtime: NeedsBody collects at most
 * `maxBytes` of the client's body and asks again (larger is the core's `tooLarge`, a stalled body its
 * `timedOut`); Response is sent; Forward goes to the backend and its answer is mapped by `respond`: streamed
 * back, replaced by the core's response (a backend error as S3 XML), or read (bounded) and rewritten by the
 * core. Any failure before the client got anything becomes the core's S3 error (`gateway.failure`).
 */
export async function runDispatch<X extends ClientExchange, B, R>(gateway: Dispatcher, exchange: X, runtime: DispatchRuntime<X, B, R>): Promise<R> {
  const record = exchange.record;
  let dispatch: Dispatch = await gateway.handle(exchange.request, record);
  let abandoned = false;
  const respond = (response: ProxyResponse, bodyAbandoned?: boolean): R | Promise<R> => {
    if (record) noteResponse(record, exchange.request.method, response.headers, response.body, response.errorCode);
    return runtime.respond(exchange, response, bodyAbandoned);
  };
  try {
    while (dispatch.kind === 'needs-body') {
      const body = await runtime.collectBody(exchange, dispatch.maxBytes);
      abandoned = body === 'stalled';
      dispatch = body === 'too-large' ? dispatch.tooLarge() : body === 'stalled' ? dispatch.timedOut() : await dispatch.withBody(body);
    }
    if (dispatch.kind === 'response') return await respond(dispatch.response, abandoned);
    const backend = await forward(runtime, exchange, dispatch.request, record);
    const status = runtime.backendStatus(backend);
    if (record) record.backendStatus = status;
    const head = dispatch.respond(status, runtime.backendHeaders(backend));
    if (isProxyResponse(head)) {
      runtime.discard(backend);
      return await respond(head);
    }
    if (isRewriteBody(head)) {
      const document = await runtime.readBackendBody(backend, head.maxBytes);
      return await respond(head.rewrite(document ?? new Uint8Array(0)));
    }
    if (record) noteResponse(record, exchange.request.method, head.headers, null, undefined);
    return await runtime.stream(exchange, backend, head);
  } catch (err) {
    // Nothing has been sent yet: the client gets the S3 error for what went wrong. An upload whose body
    // stopped arriving (RequestTimeout) leaves the rest of it unread, as a stalled NeedsBody does.
    const stalled = abandoned || (err instanceof S3Error && err.code === 'RequestTimeout');
    return runtime.failed(await respond(gateway.failure(err, exchange.request), stalled), err);
  }
}

/**
 * Sends a Forward's request with the trace propagated (added after signing: see core/observability/trace.ts),
 * and records a backend that failed to answer: `timeout` when it did not answer in time, `error` when it
 * could not be reached or broke the connection. A client whose body stalled is the client's failure.
 */
async function forward<X extends ClientExchange, B, R>(runtime: DispatchRuntime<X, B, R>, exchange: X, request: BackendRequest, record: RequestRecord | undefined): Promise<B> {
  if (record === undefined) return runtime.forward(exchange, request);
  try {
    return await runtime.forward(exchange, tracedRequest(request, record.trace));
  } catch (err) {
    const code = err instanceof S3Error ? err.code : undefined;
    if (code !== 'RequestTimeout') record.backendFailure = code === 'GatewayTimeout' ? 'timeout' : 'error';
    throw err;
  }
}

/**
 * The response's head goes out now (time to first byte), with the error code it carries, if any, and the
 * body's length: its Content-Length, else the length of a body the core built (none for a HEAD).
 */
function noteResponse(record: RequestRecord, method: string, headers: HeaderMap, body: ProxyResponse['body'], errorCode: string | undefined): void {
  record.firstByteAt = performance.now();
  record.errorCode = errorCode;
  if (method === 'HEAD') {
    record.bytesOut = 0;
    return;
  }
  const declared = headers['content-length'];
  if (declared !== undefined) record.bytesOut = Number(declared) || 0;
  else if (body instanceof Uint8Array) record.bytesOut = body.byteLength;
  else if (typeof body === 'string') record.bytesOut = utf8Length(body);
  else record.bytesOut = body === null ? 0 : undefined;
}
