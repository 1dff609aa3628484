import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { omitKeepAliveHeaders } from '../../functions/runtime/node/keep-alive';

/**
 * A local Lambda Web Function endpoint (auth ApplicationManaged): what the platform documents doing between
 * an HTTP client and the function's own HTTP server (DG web-functions-http), so real S3 clients can be
 * pointed at the server as it runs on Lambda.
 * - HTTP/1.1 only: HTTP/1.0 is 505. Methods other than GET, HEAD, POST, PUT, PATCH, OPTIONS and DELETE are
 *   400 before reaching the function.
 * - `Host` must be the endpoint's domain (here the address clients use, `127.0.0.1:PORT`, unless `domain`
 *   says otherwise), lowercase: another is 404, none is 400. The function receives it unchanged.
 * - Removed from requests: the hop-by-hop headers, every header named in `Connection`, `Expect`,
 *   `X-Real-IP`, the method-override headers and any `lambda-web-*` a client sent. Added:
 *   `lambda-web-request-id`, `lambda-web-endpoint-name`; the client's address is appended to
 *   `X-Forwarded-For`.
 * - Half-duplex: the whole request body is forwarded before the answer is read, so an early answer reaches
 *   the client only after its body went through (what the function no longer reads is dropped). An early
 *   answer with `Connection: close` (the function reads no more) goes out at once (an assumption: what
 *   the platform does then is not documented; waiting could only end in its timeout).
 * - The answer streams back with backpressure, without its connection-scoped headers, plus
 *   `lambda-web-request-id`. No cap on either body (none is documented); the request timeout bounds the whole
 *   exchange, stream included: 504 `Runtime.RequestTimeout` before the first byte, a cut stream after.
 *
 * `Expect: 100-continue`: the platform removes `Expect` before forwarding, so the front itself owns the
 * expectation. What it answers is not documented; an AWS-authored troubleshooting table reports HTTP 417 for
 * large curl uploads. By default the front sends `100 Continue` at once, as RFC 9110 §10.1.1 asks of a proxy
 * that forwards the body, and as nginx and load balancers do; `expect: 'reject'` models the reported 417
 * instead (the smoke checker tells the two apart on a real endpoint).
 */
export interface WebFunctionFrontOptions {
  /** The function's server: `http://127.0.0.1:PORT`. */
  readonly target: string;
  /**
   * The endpoint's domain, the only `Host` accepted.
   * @default the address the front listens on, `127.0.0.1:PORT`
   */
  readonly domain?: string;
  /** @default 'prod' */
  readonly endpointName?: string;
  /**
   * How `Expect: 100-continue` is answered: `continue` sends `100 Continue` at once, `reject` a 417.
   * @default 'continue'
   */
  readonly expect?: 'continue' | 'reject';
  /**
   * The function's request timeout (3-900 s on Lambda).
   * @default 900 s
   */
  readonly timeoutMs?: number;
}

/** Methods the endpoint accepts; others are 400 before reaching the function. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'OPTIONS', 'DELETE']);

/** Request headers the platform removes (DG web-functions-http), besides those named in `Connection`. */
const REMOVED_REQUEST_HEADERS = new Set([
  'connection', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer', 'transfer-encoding', 'proxy-authenticate', 'proxy-authorization',
  'proxy-connection', 'x-real-ip', 'x-http-method-override', 'x-http-method', 'x-method-override',
]);

/** Connection-scoped response headers, removed from the function's answer. */
const REMOVED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authenticate', 'proxy-connection']);

export const DEFAULT_TIMEOUT_MS = 900_000;

export function createWebFunctionFront(options: WebFunctionFrontOptions): http.Server {
  const target = new URL(options.target);
  const agent = new http.Agent({ keepAlive: true });
  const settings: Settings = { target, agent, endpointName: options.endpointName ?? 'prod', timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, domain: () => domain };
  let domain = options.domain;
  const server = http.createServer((req, res) => forward(settings, req, res));
  server.once('listening', () => {
    const address = server.address();
    if (domain === undefined && address !== null && typeof address === 'object') domain = `${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  });
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (options.expect === 'reject') {
      platformError(res, 417, 'Expectation Failed', true);
      return;
    }
    res.writeContinue();
    forward(settings, req, res);
  });
  server.on('close', () => agent.destroy());
  return omitKeepAliveHeaders(server);
}

interface Settings {
  readonly target: URL;
  readonly agent: http.Agent;
  readonly endpointName: string;
  readonly timeoutMs: number;
  readonly domain: () => string | undefined;
}

function forward(settings: Settings, req: http.IncomingMessage, res: http.ServerResponse): void {
  if (req.httpVersion !== '1.1') return platformError(res, 505, 'HTTP Version Not Supported', true);
  const method = req.method ?? '';
  if (!METHODS.has(method)) return platformError(res, 400, 'Bad Request', true);
  const host = req.headers.host;
  if (host === undefined) return platformError(res, 400, 'Bad Request', true);
  if (host !== settings.domain()) return platformError(res, 404, 'Not Found', true);

  const requestId = randomUUID();
  const upstream = http.request({
    host: settings.target.hostname,
    port: settings.target.port,
    method,
    path: req.url,
    headers: forwardedHeaders(req, requestId, settings.endpointName),
    agent: settings.agent,
    setHost: false,
  });
  let answer: http.IncomingMessage | undefined;
  let bodySent = false;
  let clientDone = req.complete;
  const timer = setTimeout(() => {
    if (res.headersSent) res.destroy();
    else platformError(res, 504, 'Gateway Timeout', true, 'Runtime.RequestTimeout', requestId);
    upstream.destroy();
  }, settings.timeoutMs);
  timer.unref();
  res.on('close', () => {
    clearTimeout(timer);
    if (!res.writableFinished) upstream.destroy();
  });

  /** Whether the function answered, before it had the whole body, that it will read no more of it. */
  let refusedRest = false;
  const relay = (): void => {
    // Half-duplex: nothing of the answer moves before the client's whole body was forwarded (or dropped),
    // unless the function closes the connection: then no more of the body can go through, and waiting
    // for the client would only hold the answer back (assumed: the platform's handling is undocumented).
    if (answer === undefined || !bodySent || !(clientDone || refusedRest) || res.headersSent || res.destroyed) return;
    const headers = responseHeaders(answer, requestId);
    // The client's unread body must not be taken for its next request.
    if (!clientDone) headers.push('Connection', 'close');
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
    answer.on('error', () => res.destroy());
    answer.on('aborted', () => res.destroy());
    answer.pipe(res);
  };
  upstream.on('response', (incoming) => {
    answer = incoming;
    if (!bodySent) {
      // The function answered before it had the whole body. Node's client writes no more once an answer
      // arrived, so the rest of the client's body is read and dropped here instead of reaching a function
      // that has answered already; the client still sees the answer only after its last byte. That
      // connection cannot carry another request.
      bodySent = true;
      refusedRest = /(^|,)\s*close\s*(,|$)/i.test(String(incoming.headers.connection ?? ''));
      req.unpipe(upstream);
      if (!clientDone) req.resume();
      incoming.once('end', () => upstream.destroy());
    }
    relay();
  });
  // The body went through ('finish'), or the function closed the connection before taking all of it, or
  // without answering. What it answered before closing still goes out once the client's body is in (the rest
  // of which is dropped); without an answer the client gets the platform's error.
  const bodyForwarded = (): void => {
    if (bodySent) return;
    bodySent = true;
    relay();
  };
  const upstreamBroken = (): void => {
    if (!clientDone) req.resume();
    bodyForwarded();
    if (answer !== undefined) return;
    const fail = (): void => {
      if (!res.headersSent) platformError(res, 502, 'Bad Gateway', false, 'Runtime.ConnectionError', requestId);
    };
    if (clientDone) fail();
    else req.once('end', fail);
  };
  upstream.on('finish', bodyForwarded);
  upstream.on('error', upstreamBroken);
  upstream.on('close', () => {
    if (answer === undefined || !upstream.writableFinished) upstreamBroken();
  });
  req.once('end', () => {
    clientDone = true;
    relay();
  });
  req.on('aborted', () => upstream.destroy());
  req.pipe(upstream);
}

/**
 * The client's headers in their order and spelling, less what the platform removes, plus what it adds. A
 * value the client repeated stays repeated; `X-Forwarded-For` gets the client's address as its last value.
 */
function forwardedHeaders(req: http.IncomingMessage, requestId: string, endpointName: string): string[] {
  const named = new Set(
    (req.headers.connection ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== ''),
  );
  const headers: string[] = [];
  const forwardedFor: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    const lower = name.toLowerCase();
    if (REMOVED_REQUEST_HEADERS.has(lower) || named.has(lower) || lower.startsWith('lambda-web-')) continue;
    if (lower === 'x-forwarded-for') forwardedFor.push(req.rawHeaders[i + 1]);
    else headers.push(name, req.rawHeaders[i + 1]);
  }
  forwardedFor.push(req.socket.remoteAddress ?? '127.0.0.1');
  headers.push('X-Forwarded-For', forwardedFor.join(', '), 'lambda-web-request-id', requestId, 'lambda-web-endpoint-name', endpointName);
  return headers;
}

function responseHeaders(answer: http.IncomingMessage, requestId: string): string[] {
  const named = new Set(
    String(answer.headers.connection ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase()),
  );
  const out: string[] = [];
  for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
    const lower = answer.rawHeaders[i].toLowerCase();
    if (REMOVED_RESPONSE_HEADERS.has(lower) || named.has(lower) || lower.startsWith('lambda-web-')) continue;
    out.push(answer.rawHeaders[i], answer.rawHeaders[i + 1]);
  }
  out.push('lambda-web-request-id', requestId);
  return out;
}

/** An answer of the platform itself: the function never saw the request (or failed to answer it). */
function platformError(res: http.ServerResponse, status: number, message: string, bodyUnread: boolean, errorType?: string, requestId: string = randomUUID()): void {
  const body = JSON.stringify({ message });
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'lambda-web-request-id': requestId,
    ...(errorType ? { 'lambda-web-error-type': errorType } : {}),
    // An unread body would otherwise be parsed as the next request.
    ...(bodyUnread ? { connection: 'close' } : {}),
  });
  res.end(body);
}
