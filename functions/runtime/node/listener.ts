import http from 'node:http';
import type { Duplex } from 'node:stream';
import { Readable } from 'node:stream';
import { REQUEST_TIMEOUT_MESSAGE, S3Error } from '../../core/errors';
import { asciiHeaders } from '../../core/header-encoding';
import type { HeaderMap, ProxyRequest, ReadonlyHeaders } from '../../core/http';
import { traceContext } from '../../core/observability/trace';
import type { PlatformHeaders } from '../../core/sigv4/platform-headers';
import { errorResponse, newRequestId } from '../../core/responses';
import { accessLogLine } from '../shared/access-log';
import { NO_LOGGED_METRICS, closeRecord, openRecord, type LoggedMetrics } from '../shared/observe';
import type { DrainState } from './drain';
import { execute, type NodeGateway } from './executor';
import { NodeHeaders } from './headers';
import { connectionHeader } from './keep-alive';
import { batchedStdout } from './stdout';

export interface ServerOptions {
  /** How much of a body each client connection holds before it pushes back; unset, Node's 16 KiB. */
  readonly bufferBytes?: number;
  readonly log?: (line: string) => void;
  /**
   * Where each request's metrics go: the Prometheus registry when METRICS_PORT is set, EMF fields in the
   * access-log line on a Lambda Web Function; none by default.
   */
  readonly metrics?: LoggedMetrics;
  /** Once `draining`, responses say `Connection: close` and keep-alive connections end with their response. */
  readonly drain?: DrainState;
  /** What a platform in front of the server changes in requests (a Lambda Web Function); absent: nothing. */
  readonly platformHeaders?: PlatformHeaders;
}

const NEVER_DRAINING: DrainState = { draining: false };

/**
 * The native server adapter: IncomingMessage in, the core's dispatch executed, one JSON access-log line out.
 */
export function createServer(
  { gateway, backend }: NodeGateway,
  { bufferBytes, log = batchedStdout(), drain = NEVER_DRAINING, metrics = NO_LOGGED_METRICS, platformHeaders }: ServerOptions = {},
): http.Server {
  const server = http.createServer({ highWaterMark: bufferBytes }, (req, res) => {
    // The client is gone when the response closes unfinished. Listeners on the response, and an
    // AbortController only if the core asks for a signal: one per request is measurable on a small GET.
    const whenClientGone = (abort: () => void): void => {
      res.once('close', () => {
        if (!res.writableFinished) abort();
      });
    };
    const request = toProxyRequest(req, whenClientGone, platformHeaders);
    const record = openRecord(request, metrics);
    execute(gateway, {
      request,
      record,
      backend,
      whenClientGone,
      coalesceWrites: true,
      body: () => req,
      start: (status, headers) => {
        writeHead(res, status, headers, connectionHeader(req, res, drain.draining));
        return res;
      },
    })
      .then((result) => {
        const sample = closeRecord(request, result, record, metrics);
        log(accessLogLine(request, result, record, undefined, metrics.logFields && ((entry) => metrics.logFields?.(entry, sample))));
        // A response begun before the drain promised keep-alive: its connection ends now that it is complete,
        // unless a pipelined request is still being answered on it (closeIdleConnections skips those).
        if (drain.draining) server.closeIdleConnections();
      })
      .catch(() => {
        closeRecord(request, { status: res.statusCode }, record, metrics);
        res.destroy();
      });
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerUnreadable(err, socket, log));
  return server;
}

/**
 * A request node:http cannot read (a malformed request line or header, a head over its size limit or one
 * that never ends, a broken chunked body) never reaches the core. Node would answer a bare 400, 431 or 408
 * that SDKs report as an unknown error; this answers S3's XML error, 400 as S3 uses, logs it, and closes the
 * connection as Node does. Nothing is written once an answer on the connection has begun (a pipelined
 * request's garbage, a body broken mid-stream after its answer started): that answer must stay intact.
 */
export function answerUnreadable(err: NodeJS.ErrnoException, socket: Duplex, log: (line: string) => void): void {
  // Node's own test before its default answer (lib/_http_server.js, socketOnError): the response in flight.
  const inFlight = (socket as Duplex & { readonly _httpMessage?: { readonly headersSent: boolean } })._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && inFlight?.headersSent !== true) {
    const requestId = newRequestId();
    const error = unreadableError(err.code);
    const { status, headers, body } = errorResponse(error, requestId, 'GET', undefined);
    const xml = Buffer.from(String(body));
    const head = { ...headers, 'content-length': String(xml.length), date: new Date().toUTCString(), connection: 'close' };
    let text = `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\n`;
    for (const [name, value] of Object.entries(head)) text += `${name}: ${value}\r\n`;
    socket.write(Buffer.concat([Buffer.from(`${text}\r\n`, 'latin1'), xml]));
    // A new trace, as for any request without a valid traceparent: every access-log line has one.
    const { traceId, spanId } = traceContext(NO_HEADERS);
    const reason = `${err.code ?? 'Error'}: ${err.message}`;
    log(JSON.stringify({ time: new Date().toISOString(), requestId, status, traceId, spanId, errorCode: error.code, error: reason }));
  }
  socket.destroy(err);
}

const NO_HEADERS = NodeHeaders.fromRaw([]);

function unreadableError(code: string | undefined): S3Error {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new S3Error('RequestHeaderSectionTooLarge', 'Your request header section exceeds the maximum allowed size.', { MaxSizeAllowed: String(http.maxHeaderSize) });
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new S3Error('RequestTimeout', REQUEST_TIMEOUT_MESSAGE);
  return new S3Error('BadRequest', 'An error occurred when parsing the HTTP request.');
}

/**
 * Sends status and headers, passing every value on as the bytes it holds (a backend's header as the backend
 * sent it, raw UTF-8 included). Two guards keep that from becoming a 500:
 * - Node re-encodes a Content-Disposition value it meets after a Content-Length as a latin1 Buffer, then
 *   validates that Buffer's UTF-8 reading and refuses any non-ASCII byte (nodejs/node#46528, reported as
 *   #50213 and #58240); meeting the Content-Length last leaves the value as it is.
 * - A value Node refuses all the same (characters beyond U+00FF, which only text the core built can hold)
 *   is sent as plain ASCII instead (core/header-encoding.ts).
 */
export function writeHead(res: http.ServerResponse, status: number, headers: HeaderMap, connection?: string): void {
  const ordered = headers['content-disposition'] !== undefined && headers['content-length'] !== undefined ? lengthLast(headers) : headers;
  // A `Connection` the answer carries (`close` after a stalled body) stands.
  const head = connection === undefined || ordered.connection !== undefined ? ordered : Object.assign({}, ordered, { connection });
  try {
    res.writeHead(status, head);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_INVALID_CHAR') throw err;
    res.writeHead(status, asciiHeaders(head));
  }
}

function lengthLast(headers: HeaderMap): HeaderMap {
  const { 'content-length': length, ...rest } = headers;
  rest['content-length'] = length;
  return rest;
}

export function toProxyRequest(req: http.IncomingMessage, whenClientGone: (abort: () => void) => void, platformHeaders?: PlatformHeaders): ProxyRequest {
  return new NodeRequest(req, whenClientGone, platformHeaders);
}

/**
 * A class, not an object literal: a literal's getter is a fresh closure per request, which gives every
 * request its own hidden class and leaves each property read in the core megamorphic (measured: ~10 µs of
 * a small GET's CPU).
 */
class NodeRequest implements ProxyRequest {
  readonly requestId = newRequestId();
  readonly method: string;
  readonly rawPath: string;
  readonly rawQuery: string;
  readonly headers: ReadonlyHeaders;
  private controller?: AbortController;

  constructor(
    private readonly req: http.IncomingMessage,
    private readonly whenClientGone: (abort: () => void) => void,
    readonly platformHeaders: PlatformHeaders | undefined,
  ) {
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    this.method = (req.method ?? 'GET').toUpperCase();
    this.rawPath = q < 0 ? target : target.slice(0, q);
    this.rawQuery = q < 0 ? '' : target.slice(q + 1);
    this.headers = NodeHeaders.fromRaw(req.rawHeaders);
  }

  body(): ReadableStream<Uint8Array> {
    return Readable.toWeb(this.req) as unknown as ReadableStream<Uint8Array>;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const created = new AbortController();
      this.whenClientGone(() => created.abort());
      this.controller = created;
    }
    return this.controller.signal;
  }
}

export type { HeaderMap };
