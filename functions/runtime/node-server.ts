import http from 'node:http';
import { Readable } from 'node:stream';
import type { Gateway } from '../core/gateway';
import type { HeaderMap, ProxyRequest } from '../core/http';
import { newRequestId } from '../core/responses';
import { accessLogLine, batchedStdout } from './access-log';
import { execute } from './node-executor';
import { NodeHeaders } from './node-headers';

/**
 * The native server adapter: IncomingMessage in, the core's dispatch executed, one JSON access-log line out.
 */
export function createServer(gateway: Gateway, log: (line: string) => void = batchedStdout()): http.Server {
  return http.createServer((req, res) => {
    const started = performance.now();
    // The client is gone when the response closes unfinished. Listeners on the response, and an
    // AbortController only if the core asks for a signal: one per request is measurable on a small GET.
    const whenClientGone = (abort: () => void): void => {
      res.once('close', () => {
        if (!res.writableFinished) abort();
      });
    };
    const request = toProxyRequest(req, whenClientGone);
    execute(gateway, {
      request,
      whenClientGone,
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

export function toProxyRequest(req: http.IncomingMessage, whenClientGone: (abort: () => void) => void): ProxyRequest {
  const target = req.url ?? '/';
  const q = target.indexOf('?');
  let controller: AbortController | undefined;
  return {
    requestId: newRequestId(),
    method: (req.method ?? 'GET').toUpperCase(),
    rawPath: q < 0 ? target : target.slice(0, q),
    rawQuery: q < 0 ? '' : target.slice(q + 1),
    headers: NodeHeaders.fromRaw(req.rawHeaders),
    body: () => Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>,
    get signal(): AbortSignal {
      if (controller === undefined) {
        const created = new AbortController();
        whenClientGone(() => created.abort());
        controller = created;
      }
      return controller.signal;
    },
  };
}

export type { HeaderMap };
