import { Readable } from 'node:stream';
import { S3Error, invalidBackendResponse, requestTimeout } from '../../core/errors';
import type { BackendClient, BackendRequest } from '../../core/http';
import type { Exchange } from './http1/exchange';
import { Http1Pool } from './http1/pool';
import { ProtocolError } from './http1/syntax';
import type { WireRequest } from './http1/request-head';
import type { WireResponse } from './http1/response';
import { DEFAULT_IDLE_TIMEOUT_MS } from '../shared/settings';
import { NodeHeaders } from './headers';
import { webBody } from './web-body';

export interface NodeBackendOptions {
  /**
   * How much of a body each backend connection holds before it pushes back on its source.
   * @default Node's 16 KiB (the Node server passes GATEWAY_STREAM_BUFFER_BYTES)
   */
  readonly bufferBytes?: number;
  /**
   * Idle time on a backend socket, or of any request body the gateway reads (a streamed upload, or one it
   * collects: DeleteObjects, CompleteMultipartUpload, STS forms), after which the request fails.
   * @default 120 000 ms (GATEWAY_IDLE_TIMEOUT_MS)
   */
  readonly idleTimeoutMs?: number;
}

/** A Node runtime's backend side: its keep-alive connections, for Forwards and for the core's own requests. */
export interface NodeBackend {
  /**
   * Sends one backend request. `body` is the client's body as a Node stream when the request says
   * `'client'`. Resolves with the response head once it arrives; the body is left unread. Transport failures
   * reject with an S3Error (503 unreachable, 504 timed out, 502 an answer that is not valid HTTP); a body
   * stream that errors aborts the request first, so the backend never commits a partial object, and its error
   * is the rejection.
   */
  send(request: BackendRequest, clientBody: () => Readable, whenGone?: (abort: () => void) => void): Promise<WireResponse>;
  /** A BackendClient for the core, on the same connections; the core never streams the client's body through it. */
  readonly client: BackendClient;
  /** GATEWAY_IDLE_TIMEOUT_MS: also the rule for request bodies the gateway collects (see `whenIdle`). */
  readonly idleTimeoutMs: number;
}

/**
 * Backend requests from Node runtimes go through the keep-alive HTTP/1.1 client of http1/: measured here,
 * global fetch costs 2-3x the CPU of node:http per small request (platform.md), and node:http copies every
 * body chunk that the client hands on as slices (a 1 MiB GET: 1,080 against 786 µs of CPU). Each runtime
 * builds one at start-up and hands it to the gateway (`client`) and to its executor (`send`).
 */
export function nodeBackend(options: NodeBackendOptions = {}): NodeBackend {
  return new PooledBackend(options.bufferBytes, options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
}

class PooledBackend implements NodeBackend {
  private readonly pool: Http1Pool;
  readonly client: BackendClient;

  constructor(
    bufferBytes: number | undefined,
    readonly idleTimeoutMs: number,
  ) {
    // Retire idle pooled sockets before common server keep-alive timeouts (Node servers: 5 s) close them, so
    // a request is not written onto a socket the backend is closing at that moment.
    this.pool = new Http1Pool({ bufferBytes, idleMs: 4_000, maxIdlePerOrigin: 64 });
    this.client = async (request, signal) => {
      const res = await this.send(request, () => Readable.from([]), signal && ((abort) => onAbort(signal, abort)));
      return {
        status: res.statusCode ?? 502,
        headers: NodeHeaders.fromIncoming(res.headers),
        body: webBody(res),
      };
    };
  }

  send(request: BackendRequest, clientBody: () => Readable, whenGone?: (abort: () => void) => void): Promise<WireResponse> {
    const wire = wireRequest(request);
    const body = request.body;
    const streamed = body !== undefined && body !== null && !(body instanceof Uint8Array);
    const idleTimeoutMs = this.idleTimeoutMs;
    return new Promise((resolve, reject) => {
      let bodyError: unknown;
      let gone = false;
      let stalledBody: (() => S3Error | undefined) | undefined;
      const exchange = this.pool.send(wire, body instanceof Uint8Array ? body : undefined, streamed, idleTimeoutMs, {
        response: resolve,
        timeout: () => exchange.destroy(stalledBody?.() ?? new S3Error('GatewayTimeout', 'The backend did not answer in time')),
        error: (err) => {
          if (bodyError !== undefined) reject(bodyError);
          else if (err instanceof S3Error || gone) reject(err);
          else if (err instanceof ProtocolError) reject(invalidBackendResponse());
          else reject(new S3Error('ServiceUnavailable', 'The backend is unreachable'));
        },
      });
      whenGone?.(() => {
        gone = true;
        exchange.destroy(new Error('The client went away'));
      });
      if (!streamed) return;
      const source = body === 'client' ? clientBody() : Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>);
      source.on('error', (err) => {
        bodyError = err;
        exchange.destroy(err);
      });
      stalledBody = watchBodyProgress(source, exchange, idleTimeoutMs);
      exchange.sendBody(source);
    });
  }
}

/**
 * Fails an upload whose body stops moving for `idleTimeoutMs` before the backend answers. The socket's own
 * idle timeout does not fire while a write is pending, so a backend that stops reading (a full store) or a
 * client that stops sending would otherwise hold the request forever. Which side stalled decides the answer:
 * the backend not draining is 504, the client not sending is S3's 400 RequestTimeout.
 */
function watchBodyProgress(source: Readable, exchange: Exchange, idleTimeoutMs: number): () => S3Error | undefined {
  let sent = false;
  // Which side stalled (asked only while the body is still on its way).
  const stalled = (): S3Error => (exchange.needsDrain ? new S3Error('GatewayTimeout', 'The backend stopped reading the request body') : requestTimeout());
  // Stopped once the body has all been sent, so it only fires on a stall.
  const stop = whenIdle(source, idleTimeoutMs, () => exchange.destroy(stalled()));
  source.once('end', () => {
    sent = true;
    stop();
  });
  exchange.onSettled(stop);
  return () => (sent ? undefined : stalled());
}

/**
 * Calls `onIdle` once `source` has delivered nothing for `idleTimeoutMs`: the one idle rule for every request
 * body the Node runtimes read, streamed to a backend or collected. Returns what stops watching. One timer per
 * body, rearmed only when it fires (not per chunk).
 */
export function whenIdle(source: Readable, idleTimeoutMs: number, onIdle: () => void): () => void {
  let last = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    const idle = Date.now() - last;
    if (idle < idleTimeoutMs) timer = setTimeout(check, idleTimeoutMs - idle);
    else onIdle();
  };
  timer = setTimeout(check, idleTimeoutMs);
  const moved = (): void => {
    last = Date.now();
  };
  source.on('data', moved);
  return () => {
    clearTimeout(timer);
    source.off('data', moved);
  };
}

/** The request as the HTTP/1.1 client sends it: target split from the URL, headers as Node's flat list. */
export function wireRequest(request: BackendRequest): WireRequest {
  const url = splitUrl(request.url);
  // Not `{ ...url, method, headers }`: a new hidden class per request (see inBucket in core/context.ts).
  const { protocol, hostname, port, path } = url;
  return { protocol, hostname, port, path, method: request.method, headers: headerList(request, url) };
}

/** Runs `abort` when `signal` aborts (at once if it already has). */
export function onAbort(signal: AbortSignal, abort: () => void): void {
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
}

const DEFAULT_PORT = { 'http:': '80', 'https:': '443' } as const;

export interface BackendUrl {
  readonly protocol: 'http:' | 'https:';
  readonly hostname: string;
  readonly port: string;
  readonly path: string;
}

/**
 * The request's headers as Node's flat `[name, value, …]` list. Node writes a list as given, still validating
 * every name and value, where an object costs a `setHeader` per header (measured: 1-3 µs of a small GET or
 * HEAD). What Node would otherwise add, added here: `host` unless the request was signed with one, and the
 * length of a body in hand (a PUT or POST without one would go out chunked, which S3 refuses on a copy).
 */
export function headerList(request: BackendRequest, url: BackendUrl): string[] {
  const { headers, body } = request;
  const list: string[] = [];
  for (const name of Object.keys(headers)) list.push(name, headers[name]);
  if (!Object.hasOwn(headers, 'host')) {
    const host = url.hostname.includes(':') ? `[${url.hostname}]` : url.hostname;
    list.push('host', url.port === DEFAULT_PORT[url.protocol] ? host : `${host}:${url.port}`);
  }
  const inHand = body === undefined || body === null || body instanceof Uint8Array;
  if (inHand && !BODILESS_BY_DEFAULT.has(request.method) && !Object.hasOwn(headers, 'content-length') && !Object.hasOwn(headers, 'transfer-encoding')) {
    list.push('content-length', String(body instanceof Uint8Array ? body.length : 0));
  }
  return list;
}

/** Methods Node sends without a length or chunked framing when no body is given (its `useChunkedEncodingByDefault`). */
const BODILESS_BY_DEFAULT: ReadonlySet<string> = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/** Splits an absolute URL without `new URL()`, which would normalize `..` and `%2e%2e` in the path. */
export function splitUrl(url: string): BackendUrl {
  const match = /^(https?:)\/\/(\[[^\]]+\]|[^/:?#]+)(?::(\d+))?(\/[^#]*)?$/i.exec(url);
  if (!match) throw new S3Error('InternalError', 'Invalid backend URL');
  const protocol = match[1].toLowerCase() as 'http:' | 'https:';
  return { protocol, hostname: match[2].replace(/^\[|\]$/g, ''), port: match[3] ?? DEFAULT_PORT[protocol], path: match[4] ?? '/' };
}
