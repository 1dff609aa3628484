import type { ProxyRequest } from '../core/http';
import { newRequestId } from '../core/responses';

/**
 * The Worker translator: a fetch `Request` becomes the core's ProxyRequest.
 *
 * A Worker never sees the request line. The platform hands over `request.url`, already parsed by a WHATWG
 * URL parser, which resolves dot segments (`/b/a/%2e%2e/k` arrives as `/b/k`) and keeps everything else as
 * sent (percent-encoding, `//`, case). The path and query are therefore taken from that string, split by
 * hand rather than re-parsed: what the core gets is exactly what the platform gave. A client that signed a
 * path with dot segments is refused (the signature covers the path it sent, the core verifies the one that
 * arrived); an anonymous one reaches the resolved path, authorized as that path (docs/edge.md).
 */
export function toProxyRequest(request: Request): ProxyRequest {
  const { rawPath, rawQuery } = requestTarget(request.url);
  return {
    requestId: newRequestId(),
    method: request.method.toUpperCase(),
    rawPath,
    rawQuery,
    headers: request.headers,
    body: () => request.body ?? emptyBody(),
    signal: request.signal,
  };
}

/**
 * Path and query of an absolute URL as serialized, without parsing it again.
 *
 * @example requestTarget('http://gw.example/b/a%20b?uploads') // { rawPath: '/b/a%20b', rawQuery: 'uploads' }
 */
export function requestTarget(url: string): { rawPath: string; rawQuery: string } {
  const scheme = url.indexOf('://');
  const pathStart = url.indexOf('/', scheme < 0 ? 0 : scheme + 3);
  const target = pathStart < 0 ? '/' : url.slice(pathStart);
  const hash = target.indexOf('#');
  const withoutFragment = hash < 0 ? target : target.slice(0, hash);
  const q = withoutFragment.indexOf('?');
  return {
    rawPath: q < 0 ? withoutFragment : withoutFragment.slice(0, q),
    rawQuery: q < 0 ? '' : withoutFragment.slice(q + 1),
  };
}

function emptyBody(): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
}
