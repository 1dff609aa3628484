import http from 'node:http';
import { Readable } from 'node:stream';
import type { Gateway } from '../core/gateway';
import type { HeaderMap, ProxyRequest } from '../core/http';
import { newRequestId } from '../core/responses';
import { accessLogLine } from './access-log';
import { execute } from './node-executor';

/**
 * The native server adapter: IncomingMessage in, the core's dispatch executed, one JSON access-log line out.
 */
export function createServer(gateway: Gateway, log: (line: string) => void = (l) => process.stdout.write(l + '\n')): http.Server {
  return http.createServer((req, res) => {
    const started = performance.now();
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const request = toProxyRequest(req, abort.signal);
    execute(gateway, {
      request,
      body: () => req,
      start: (status, headers) => {
        res.writeHead(status, headers);
        return res;
      },
    })
      .then((result) => log(accessLogLine(request, result, started)))
      .catch(() => res.destroy());
  });
}

export function toProxyRequest(req: http.IncomingMessage, signal: AbortSignal): ProxyRequest {
  const target = req.url ?? '/';
  const q = target.indexOf('?');
  return {
    requestId: newRequestId(),
    method: (req.method ?? 'GET').toUpperCase(),
    rawPath: q < 0 ? target : target.slice(0, q),
    rawQuery: q < 0 ? '' : target.slice(q + 1),
    headers: toHeaders(req.rawHeaders),
    body: () => Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>,
    signal,
  };
}

/** Repeated headers joined with `,`, as on every runtime. */
function toHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  return headers;
}

export type { HeaderMap };
