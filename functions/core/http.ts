import type { PlatformHeaders } from './sigv4/platform-headers';
/**
 * The core's view of HTTP: what an adapter hands in and what it gets back. Web-standard types only, so the
 * Node server, the Lambda handler and an edge worker can each translate to and from their own shapes.
 */

/** A method or header field name (RFC 9110 §5.6.2 `token`). */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A client request exactly as received. `rawPath` and `rawQuery` are never normalized: SigV4 signs them. */
export interface ProxyRequest {
  /** Upper-case method. */
  readonly method: string;
  /** Request id (see `newRequestId`), stamped on every response and log line. */
  readonly requestId: string;
  /** Path as sent, percent-encoding intact, without the query string (e.g. `/bucket/a%20b/..%2Fc`). */
  readonly rawPath: string;
  /** Query string as sent, without the leading `?` (empty when absent). */
  readonly rawQuery: string;
  /** Request headers; names are case-insensitive. Repeated headers are joined with `,`. */
  readonly headers: ReadonlyHeaders;
  /**
   * Opens the request body. Called at most once, and only by dispatches that consume it; a Forward whose
   * body is `'client'` leaves the adapter to stream the body natively instead.
   */
  readonly body: () => ReadableStream<Uint8Array>;
  /**
   * Aborted when the client goes away; for the core's own backend calls. Adapters may create it lazily:
   * an AbortSignal per request is measurable on a small GET.
   */
  readonly signal?: AbortSignal;
  /**
   * What the runtime's platform removes or rewrites in requests before the adapter sees them (absent: nothing),
   * so that the signature of a client that signed such a header is verified exactly (sigv4/platform-headers).
   */
  readonly platformHeaders?: PlatformHeaders;
}

export type HeaderMap = Record<string, string>;

/**
 * The read side of fetch's `Headers`, which is all the core uses: names case-insensitive, one value per
 * name. A `Headers` satisfies it; an adapter may pass a cheaper view of its platform's own header object.
 */
export interface ReadonlyHeaders {
  get(name: string): string | null;
  has(name: string): boolean;
  forEach(callback: (value: string, name: string) => void): void;
}

/** A response the core built completely (listings, errors, STS and discovery documents). */
export interface ProxyResponse {
  readonly status: number;
  readonly headers: HeaderMap;
  readonly body: Uint8Array | string | ReadableStream<Uint8Array> | null;
  /** The S3 or STS error code an error response carries (for the access log and metrics; never sent as a header). */
  readonly errorCode?: string;
}

/** A request to a backend store, already signed. */
export interface BackendRequest {
  readonly method: string;
  /** Absolute URL; path segments already encoded with the one key encoder. */
  readonly url: string;
  readonly headers: HeaderMap;
  /**
   * `'client'`: stream the client's request body as received. A stream: the core's transformed body (for
   * example decoded aws-chunked); if it errors, the adapter must abort the backend request so nothing is
   * committed. Bytes: a small body the core built.
   */
  readonly body?: 'client' | ReadableStream<Uint8Array> | Uint8Array | null;
}

/** What a backend answered, with the body still unread. */
export interface BackendResponse {
  readonly status: number;
  readonly headers: ReadonlyHeaders;
  readonly body: ReadableStream<Uint8Array> | null;
}

/** Status and headers the client will see for a forwarded response. */
export interface ResponseHead {
  readonly status: number;
  readonly headers: HeaderMap;
}

/**
 * A backend answer the client must not see as sent (an S3 error document naming the backend bucket): the
 * adapter reads at most `maxBytes` of the backend's body (a longer one reaches `rewrite` empty) and answers
 * with what `rewrite` builds from it.
 */
export interface RewriteBody {
  readonly maxBytes: number;
  readonly rewrite: (body: Uint8Array) => ProxyResponse;
}

/**
 * Forward: the adapter executes `request` with its native HTTP client and streams the backend's body back.
 * `respond` maps the backend's status and headers into the client's; when it returns a full ProxyResponse
 * (a backend error translated to S3 XML) the backend body is discarded; a RewriteBody reads it first.
 */
export interface Forward {
  readonly kind: 'forward';
  readonly request: BackendRequest;
  readonly respond: (status: number, headers: ReadonlyHeaders) => ResponseHead | ProxyResponse | RewriteBody;
}

/** Response: the core built the whole answer. */
export interface Respond {
  readonly kind: 'response';
  readonly response: ProxyResponse;
}

/**
 * NeedsBody: the adapter collects the request body (at most `maxBytes`; more is the core's EntityTooLarge or
 * MalformedXML, reported through `tooLarge`) and hands it to `withBody` for the next dispatch. A body that
 * stops arriving for the adapter's idle timeout (GATEWAY_IDLE_TIMEOUT_MS) is abandoned and answered with
 * `timedOut`: S3's 400 RequestTimeout, or its STS counterpart.
 */
export interface NeedsBody {
  readonly kind: 'needs-body';
  readonly maxBytes: number;
  readonly withBody: (body: Uint8Array) => Promise<Dispatch>;
  readonly tooLarge: () => Dispatch;
  readonly timedOut: () => Dispatch;
}

export type Dispatch = Forward | Respond | NeedsBody;

/** Executes a backend request the core itself needs the answer to (listings, copy, multipart control). */
export type BackendClient = (request: BackendRequest, signal?: AbortSignal) => Promise<BackendResponse>;

export function isProxyResponse(value: ResponseHead | ProxyResponse | RewriteBody): value is ProxyResponse {
  return 'body' in value;
}

export function isRewriteBody(value: ResponseHead | ProxyResponse | RewriteBody): value is RewriteBody {
  return 'rewrite' in value;
}
