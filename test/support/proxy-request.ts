import type { Dispatch, ProxyRequest, ProxyResponse } from '../../functions/core/http';

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

/** A request for `target`, its path and query as sent, with `requestId` when a spec asserts on it. */
export function targetRequest(method: string, target: string, headers: Record<string, string>, requestId = `REQ${++counter}`): ProxyRequest {
  const q = target.indexOf('?');
  const request = proxyRequest(method, q < 0 ? target : target.slice(0, q), q < 0 ? '' : target.slice(q + 1), headers);
  return { ...request, requestId };
}

/** The response a dispatch carries; a Forward or a NeedsBody fails the spec. */
export function responseOf(dispatch: Dispatch): ProxyResponse {
  if (dispatch.kind !== 'response') throw new Error(`expected a response, got ${dispatch.kind}`);
  return dispatch.response;
}

/** A response body the core built itself (a string or bytes), as text. */
export function bodyText(body: ProxyResponse['body']): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  throw new Error(`unexpected body ${String(body)}`);
}
