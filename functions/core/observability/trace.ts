import type { BackendRequest, HeaderMap, ReadonlyHeaders } from '../http';

/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the trace a request belongs to, and the span the
 * gateway's hop is in it. A client's valid `traceparent` continues its trace; a missing or malformed one
 * (the spec says to ignore it) starts a new trace, so every request has a trace id to log and propagate.
 */
export interface TraceContext {
  /** 32 lower-case hex digits, never all zeros. */
  readonly traceId: string;
  /** The gateway's own span: the parent id of its backend request. 16 hex digits. */
  readonly spanId: string;
  /** The client's span, when it sent a valid `traceparent`. */
  readonly parentId?: string;
  /** Trace flags, two hex digits (`01`: sampled). */
  readonly flags: string;
  /** The client's `tracestate`, passed on unchanged with its trace. */
  readonly state?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-|$)/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** The spec's limit on what a vendor may put in `tracestate` (32 members of at most 256 characters). */
const MAX_TRACESTATE = 8192;

/** The trace context of a request: the client's, continued, or a new one. */
export function traceContext(headers: ReadonlyHeaders): TraceContext {
  const random = randomHex(24);
  const spanId = random.slice(32);
  const parent = parseTraceparent(headers.get('traceparent'));
  if (parent === undefined) return { traceId: random.slice(0, 32), spanId, flags: '00' };
  const state = headers.get('tracestate');
  return { traceId: parent.traceId, spanId, parentId: parent.parentId, flags: parent.flags, state: state && state.length <= MAX_TRACESTATE ? state : undefined };
}

/**
 * A `traceparent` value's trace id, parent id and flags, or undefined when it is malformed: the wrong shape,
 * upper-case hex, version `ff`, an all-zero id, or a version-00 value with anything after the flags. A later
 * version may append fields after a `-`, which are ignored (the spec's forward compatibility rule).
 */
export function parseTraceparent(value: string | null): { traceId: string; parentId: string; flags: string } | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  const m = TRACEPARENT.exec(text);
  if (m === null) return undefined;
  const [, version, traceId, parentId, flags, more] = m;
  if (version === 'ff' || traceId === ZERO_TRACE || parentId === ZERO_SPAN) return undefined;
  if (version === '00' && (more !== '' || text.length !== 55)) return undefined;
  return { traceId, parentId, flags: version === '00' ? flags : (parseInt(flags, 16) & 1).toString(16).padStart(2, '0') };
}

/**
 * `headers` with the trace propagated: `traceparent` naming the gateway's span as the parent, and the
 * client's `tracestate`. Added after signing and never signed, so a backend verifies the signature over the
 * same headers as before (SigV4's SignedHeaders, Azure's x-ms-* canonical headers and GCS's signed headers
 * all leave it out).
 */
export function withTrace(headers: HeaderMap, trace: TraceContext): HeaderMap {
  const traceparent = `00-${trace.traceId}-${trace.spanId}-${trace.flags}`;
  // Object.assign, never a spread followed by new properties or a delete: those give the object a fresh
  // hidden class (or dictionary mode) on every request, which every later read of the headers pays for.
  if (trace.state !== undefined) return Object.assign({}, headers, { traceparent, tracestate: trace.state });
  if (headers.tracestate === undefined) return Object.assign({}, headers, { traceparent });
  const out: HeaderMap = {};
  for (const name in headers) if (name !== 'tracestate') out[name] = headers[name];
  out.traceparent = traceparent;
  return out;
}

/**
 * A signed backend request with the trace propagated (`withTrace`): the one place the trace is stamped on
 * every backend request, a Forward's (the dispatch loop) and the core's own (the stores' client).
 */
export function tracedRequest(request: BackendRequest, trace: TraceContext): BackendRequest {
  return { method: request.method, url: request.url, headers: withTrace(request.headers, trace), body: request.body };
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * Random bytes drawn 4 KiB at a time: a `getRandomValues` call per request cost 6.6 µs on Node 20 (a tenth of
 * a small GET's CPU), a slice of a pool 0.3 µs. Filled on first use: edge workers refuse random generation at
 * module scope.
 */
const POOL_BYTES = 4096;
let pool: Uint8Array | undefined;
let used = POOL_BYTES;

function randomHex(bytes: number): string {
  if (used + bytes > POOL_BYTES) {
    pool = crypto.getRandomValues(pool ?? new Uint8Array(POOL_BYTES));
    used = 0;
  }
  const from = pool as Uint8Array;
  let out = '';
  for (let i = used; i < used + bytes; i++) out += HEX[from[i]];
  used += bytes;
  return out;
}
