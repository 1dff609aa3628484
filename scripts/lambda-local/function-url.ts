import type { LambdaFunctionURLEvent, StreamifyHandler } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { omitKeepAliveHeaders } from '../../functions/runtime/node/keep-alive';
import type { Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { HTTP_INTEGRATION_CONTENT_TYPE, invoke, type LocalResponseStream } from './awslambda';
import { toFunctionUrlEvent } from './event';
import { readPrelude, responseHeaders, type Chunks } from './prelude';

/**
 * A local Function URL (auth NONE, invoke mode RESPONSE_STREAM) in front of a streaming handler: what the
 * platform does between an HTTP client and the function, so real S3 clients can be pointed at the handler.
 * - The request body is buffered into a payload-2.0 event; an event over 6 MB (measured on the JSON, so a
 *   binary body counts base64-encoded) is refused with the platform's 413 before the function runs. A body
 *   that stops arriving for `bodyIdleTimeoutMs` is answered with a 408 before the function runs, and the
 *   connection closed: the function gets the body whole or not at all, so the platform is what must not
 *   wait. How long AWS waits, and with what it answers, is not documented (platform-function-url.md has no
 *   such case); the stand-in bounds the wait rather than hold the connection for Node's request timeout.
 * - The response stream is read back: the JSON prelude and its 8 NUL bytes give status, headers and cookies,
 *   the rest is the body, streamed with backpressure. A stream without prelude after `from()` is a 502, an
 *   empty one a bare 200 (what Lambda does for `end()` without `write()`).
 * - A failed invocation is a 502 before the first byte, and a cut connection after it; so is a prelude with
 *   a header value that is not plain ASCII (the platform's handling of one is undocumented).
 * - What users report of real Function URLs in this mode, modelled unless turned off (platform-function-url.md):
 *   the prelude's `Content-Length` reaches the client renamed to `x-amzn-remapped-content-length`, with the
 *   body chunked (HEAD included: no response states its size); a `Content-Encoding: gzip` body is
 *   decompressed and the header removed (a body that is not gzip is cut).
 */
export interface FunctionUrlOptions {
  /** Largest invocation payload (the event JSON), in bytes. */
  readonly maxRequestPayloadBytes?: number;
  /** Largest streamed response body, in bytes; the connection is cut beyond it. */
  readonly maxResponseBytes?: number;
  /** The function's timeout. */
  readonly timeoutMs?: number;
  /** How long the request body may stop arriving before the front answers 408; default 120 s. */
  readonly bodyIdleTimeoutMs?: number;
  /**
   * Rename the prelude's `Content-Length` to `x-amzn-remapped-content-length` and stream chunked, as
   * reported (cargo-lambda#862, emulated by cargo-lambda 3229e3f).
   * @default true
   */
  readonly remapContentLength?: boolean;
  /**
   * Decompress a `Content-Encoding: gzip` body and drop the header, as reported
   * (aws-lambda-nodejs-runtime-interface-client#96, opennextjs-aws#1127).
   * @default true
   */
  readonly decodeGzip?: boolean;
}

/** Lambda's synchronous invocation limit: "Request must be smaller than 6291456 bytes". */
export const MAX_REQUEST_PAYLOAD_BYTES = 6 * 1024 * 1024;
/** The streamed response limit (200 MB). */
export const MAX_RESPONSE_BYTES = 200 * 1024 * 1024;
/**
 * Header values the stand-in passes on. What the platform does with any other prelude header value (non-ASCII
 * text, control characters) is not documented, so the stand-in answers such a prelude with a 502 rather than
 * guess: the function must not depend on it.
 */
const PLAIN_ASCII = /^[\t\x20-\x7e]*$/;

type Handler = StreamifyHandler<LambdaFunctionURLEvent, unknown>;

export function createFunctionUrlServer(handler: Handler, options: FunctionUrlOptions = {}): http.Server {
  const limit = options.maxRequestPayloadBytes ?? MAX_REQUEST_PAYLOAD_BYTES;
  const server = http.createServer((req, res) => handle(handler, req, res, limit, options));
  // A client announcing a body too large to fit in an event gets the 413 instead of `100 Continue`.
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (declaredBodyLength(req) > limit) {
      refuseTooLarge(res, true);
      return;
    }
    res.writeContinue();
    handle(handler, req, res, limit, options);
  });
  return omitKeepAliveHeaders(server);
}

function handle(handler: Handler, req: http.IncomingMessage, res: http.ServerResponse, limit: number, options: FunctionUrlOptions): void {
  serve(handler, req, res, limit, options).catch(() => res.destroy());
}

async function serve(handler: Handler, req: http.IncomingMessage, res: http.ServerResponse, limit: number, options: FunctionUrlOptions): Promise<void> {
  const body = await readBody(req, limit, options.bodyIdleTimeoutMs ?? DEFAULT_BODY_IDLE_TIMEOUT_MS);
  if (body === 'stalled') return refuseStalled(res);
  if (body === undefined) return refuseTooLarge(res, false);
  const event = toFunctionUrlEvent(req, body);
  if (Buffer.byteLength(JSON.stringify(event)) > limit) return refuseTooLarge(res, false);
  const awsRequestId = randomUUID();
  const stream = invoke(handler, event, { timeoutMs: options.timeoutMs, awsRequestId });
  // The client left: the function's stream breaks, as on Lambda.
  res.on('close', () => {
    if (!res.writableFinished) stream.destroy(new Error('The client closed the connection'));
  });
  try {
    await relay(stream, res, awsRequestId, options);
  } catch {
    if (res.headersSent) res.destroy();
    else functionError(res, awsRequestId);
  }
}

const DEFAULT_BODY_IDLE_TIMEOUT_MS = 120_000;

/**
 * Buffers the body; undefined when it cannot fit in an event (the rest is read and discarded), `'stalled'`
 * when nothing arrives for `idleMs` (the body is left unread).
 */
function readBody(req: http.IncomingMessage, limit: number, idleMs: number): Promise<Buffer | undefined | 'stalled'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let timer = setTimeout(stalled, idleMs);
    function stalled(): void {
      req.off('data', onData);
      req.off('end', onEnd);
      req.pause();
      resolve('stalled');
    }
    function onData(chunk: Buffer): void {
      clearTimeout(timer);
      timer = setTimeout(stalled, idleMs);
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    }
    function onEnd(): void {
      clearTimeout(timer);
      resolve(size > limit ? undefined : Buffer.concat(chunks, size));
    }
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** The stand-in's answer to a body that stopped arriving; the function never runs. */
function refuseStalled(res: http.ServerResponse): void {
  const body = JSON.stringify({ message: 'Request Timeout' });
  res.writeHead(408, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'x-amzn-requestid': randomUUID(),
    // The rest of the body is never read: the connection cannot carry another request.
    connection: 'close',
  });
  res.end(body);
}

function declaredBodyLength(req: http.IncomingMessage): number {
  const length = Number(req.headers['content-length'] ?? 0);
  return Number.isFinite(length) ? length : 0;
}

/** The platform's answer to an oversized payload; the function never runs. */
function refuseTooLarge(res: http.ServerResponse, bodyUnread: boolean): void {
  const body = JSON.stringify({ message: 'Request Entity Too Large' });
  res.writeHead(413, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'x-amzn-errortype': 'RequestEntityTooLargeException',
    'x-amzn-requestid': randomUUID(),
    // The unread body would otherwise be parsed as the next request.
    ...(bodyUnread ? { connection: 'close' } : {}),
  });
  res.end(body);
}

function functionError(res: http.ServerResponse, awsRequestId: string): void {
  const body = JSON.stringify({ message: 'Internal Server Error' });
  res.writeHead(502, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'x-amzn-requestid': awsRequestId });
  res.end(body);
}

/** Turns the function's response stream back into an HTTP response. Rejects when the invocation failed. */
async function relay(stream: LocalResponseStream, res: http.ServerResponse, awsRequestId: string, options: FunctionUrlOptions): Promise<void> {
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  let sink: Writable = res;
  const chunks: Chunks = stream[Symbol.asyncIterator]();
  // The runtime sends its content type with the first bytes, so nothing is known before them.
  const first = await chunks.next();
  let rest: Buffer = first.done ? Buffer.alloc(0) : first.value;
  if (stream.contentType === HTTP_INTEGRATION_CONTENT_TYPE) {
    const parsed = await readPrelude(rest, chunks);
    if (parsed === 'empty') {
      res.writeHead(200, { 'x-amzn-requestid': awsRequestId });
      res.end();
      return;
    }
    if (parsed === 'invalid') throw new Error('The response stream has no valid prelude');
    if (!Object.values(parsed.headers).every((value) => PLAIN_ASCII.test(value))) throw new Error('The prelude has a header value that is not plain ASCII');
    const headers = responseHeaders(parsed, awsRequestId);
    if (options.remapContentLength !== false) remapContentLength(headers);
    if (options.decodeGzip !== false && isGzip(headers)) {
      delete headers['content-encoding'];
      sink = gunzipInto(res);
    }
    res.writeHead(parsed.statusCode, headers);
    rest = parsed.rest;
  } else {
    res.writeHead(200, { 'content-type': stream.contentType, 'x-amzn-requestid': awsRequestId });
  }
  let sent = 0;
  for (let chunk: Buffer | undefined = rest; chunk !== undefined; chunk = await nextChunk(chunks)) {
    if (chunk.length === 0) continue;
    sent += chunk.length;
    if (sent > maxBytes) throw new Error('The streamed response exceeded the Function URL limit');
    await write(sink, chunk);
  }
  await new Promise<void>((resolve, reject) => {
    res.once('finish', resolve);
    res.once('close', () => (res.writableFinished ? resolve() : reject(new Error('The response was cut'))));
    sink.end();
  });
}

/** The prelude's length goes out under another name; without it Node frames the body chunked. */
function remapContentLength(headers: http.OutgoingHttpHeaders): void {
  const length = headers['content-length'];
  if (length === undefined) return;
  delete headers['content-length'];
  headers['x-amzn-remapped-content-length'] = length;
}

function isGzip(headers: http.OutgoingHttpHeaders): boolean {
  return String(headers['content-encoding'] ?? '').trim().toLowerCase() === 'gzip';
}

/** A writable that decompresses into the response; a body that is not gzip cuts the response. */
function gunzipInto(res: http.ServerResponse): Writable {
  const gunzip = createGunzip();
  gunzip.on('error', () => res.destroy());
  gunzip.pipe(res);
  return gunzip;
}

async function nextChunk(chunks: Chunks): Promise<Buffer | undefined> {
  const next = await chunks.next();
  return next.done ? undefined : next.value;
}

/** Writes one chunk and waits for the client to drain it, so a slow client slows the function down. */
function write(res: Writable, chunk: Buffer): Promise<void> {
  if (res.write(chunk)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error): void => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = (): void => done();
    const onClose = (): void => done(new Error('The client closed the connection'));
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}
