import type { ProxyRequest } from '../../functions/core/http';

let counter = 0;

/** A request as an adapter hands it to the core: raw path and query as sent, an empty body. */
export function proxyRequest(method: string, path: string, rawQuery: string, headers: Record<string, string>): ProxyRequest {
  return {
    method,
    requestId: `REQ${++counter}`,
    rawPath: path,
    rawQuery,
    headers: new Headers(headers),
    body: () => new ReadableStream({ start: (c) => c.close() }),
  };
}
