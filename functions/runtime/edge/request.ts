import type { ProxyRequest } from '../../core/http';
import { newRequestId } from '../../core/responses';
import { wireHeaders } from './headers';
import { CLOUDFLARE_HEADERS, CLOUDFLARE_HEADERS_WITHOUT_CF } from './platform-headers';

/**
 * The Worker translator: a fetch `Request` becomes the core's ProxyRequest.
 *
 * A Worker never sees the request line. The platform hands over `request.url`, already parsed by a WHATWG
 * URL parser, which resolves dot segments (`/b/a/%2e%2e/k` arrives as `/b/k`) and keeps everything else as
 * sent (percent-encoding, `//`, case). The path and query are therefore taken from that string, split by
 * hand rather than re-parsed: what the core gets is exactly what the platform gave. A client that signed a
 * path with dot segments is refused (the signature covers the path it sent, the core verifies the one that
 * arrived); an anonymous one reaches the resolved path, authorized as that path (docs/deploy-edge.md).
 */
export function toProxyRequest(request: Request, body: () => ReadableStream<Uint8Array> = () => request.body ?? emptyBody()): ProxyRequest {
  const { rawPath, rawQuery } = requestTarget(request.url);
  const acceptEncoding = clientAcceptEncoding(request);
  return {
    requestId: newRequestId(),
    method: request.method.toUpperCase(),
    rawPath,
    rawQuery,
    headers: wireHeaders(request.headers, acceptEncoding),
    body,
    signal: request.signal,
    // The listed values stand in for the client's only where the platform dropped it (platform-headers.ts).
    platformHeaders: acceptEncoding === undefined ? CLOUDFLARE_HEADERS_WITHOUT_CF : CLOUDFLARE_HEADERS,
  };
}

/** `request.cf.clientAcceptEncoding`: the Accept-Encoding the client sent, where the platform replaced it. */
function clientAcceptEncoding(request: Request): string | undefined {
  const cf = (request as Request & { cf?: { clientAcceptEncoding?: unknown } }).cf;
  return typeof cf?.clientAcceptEncoding === 'string' ? cf.clientAcceptEncoding : undefined;
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

/**
 * The client's body as the core reads it, with whatever the core leaves unread still reachable by the
 * adapter. The Node server drops an unread request body by itself; the Workers runtime resets the
 * connection instead, under a client that may still be sending and then never reads the answer (a
 * refused upload, a precondition failed before the body was needed). The wrapper never cancels the
 * client's stream, so `discardRest` can read it to its end whatever the core did with its side.
 */
export interface ClientBody {
  /** The stream handed to the core (opened at most once). */
  readonly stream: () => ReadableStream<Uint8Array>;
  /**
   * Reads what is left of the client's body and drops it, never rejecting. With `upTo`, stops after about
   * that many bytes and resolves with whether the body ended; call again without it for the rest.
   */
  readonly discardRest: (upTo?: number) => Promise<boolean>;
}

export function clientBody(body: ReadableStream<Uint8Array> | null): ClientBody {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let ended = body === null;
  const readOne = async (): Promise<Uint8Array | undefined> => {
    reader ??= body?.getReader();
    const piece = await reader?.read();
    if (piece === undefined || piece.done) {
      ended = true;
      return undefined;
    }
    return piece.value;
  };
  // The core's drain and `discardRest` may read at once; workerd's request body refuses a second pending
  // read (a TypeError, not a queued read as the Streams standard has it), so reads take turns.
  let turn: Promise<unknown> = Promise.resolve();
  const read = (): Promise<Uint8Array | undefined> => {
    const piece = turn.then(readOne);
    turn = piece.catch(() => undefined);
    return piece;
  };
  return {
    stream: () =>
      new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            const piece = await read();
            if (piece === undefined) controller.close();
            else controller.enqueue(piece);
          },
        },
        { highWaterMark: 0 },
      ),
    discardRest: async (upTo = Number.POSITIVE_INFINITY) => {
      // Untouched and locked: the platform streamed it to the backend itself.
      if (ended || (reader === undefined && (body === null || body.locked))) return true;
      let dropped = 0;
      try {
        for (let piece = await read(); piece !== undefined; piece = await read()) {
          dropped += piece.byteLength;
          if (dropped > upTo) return false;
        }
      } catch {
        // the client went away
      }
      return true;
    },
  };
}
