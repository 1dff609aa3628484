import type { ProxyRequest } from '../../core/http';
import type { RequestRecord } from '../../core/observability/record';
import type { ExchangeResult } from './dispatch';

/**
 * One JSON access-log line per request, the same on every runtime: the request, its audit trail (who, as
 * what action, on which bucket and key, with how many bytes, what the backend answered, which error code) and
 * its trace. Its fields are a stable schema (docs/observability.md). It never holds a header or the query
 * (which may carry signatures or session tokens), a secret, a token or a signature. `extra` adds runtime
 * fields; `fields`, when given, receives the entry before it is serialized (the Lambda adds its metrics).
 */
export function accessLogLine(
  request: ProxyRequest,
  result: ExchangeResult,
  record: RequestRecord,
  extra?: Readonly<Record<string, string>>,
  fields?: (entry: Record<string, unknown>) => void,
): string {
  // Filled field by field rather than spread together: a line per request, a third of the cost.
  const entry: Record<string, unknown> = { time: isoNow(), requestId: request.requestId };
  if (extra) Object.assign(entry, extra);
  // The fields lines had before the audit trail keep their order (log queries and specs match on it).
  entry.method = request.method;
  entry.path = request.rawPath;
  entry.status = result.status;
  entry.ms = Math.round(performance.now() - record.startedAt);
  if (record.firstByteAt !== undefined) entry.ttfbMs = Math.round(record.firstByteAt - record.startedAt);
  entry.traceId = record.trace.traceId;
  entry.spanId = record.trace.spanId;
  if (record.trace.parentId !== undefined) entry.parentSpanId = record.trace.parentId;
  if (record.operation !== undefined) entry.operation = record.operation;
  if (record.action !== undefined) entry.action = record.action;
  if (record.bucket !== undefined) entry.bucket = record.bucket;
  if (record.key !== undefined) entry.key = record.key;
  const caller = record.caller;
  if (caller !== undefined) {
    entry.caller = caller.type;
    if (caller.type !== 'anonymous') entry.accessKeyId = caller.accessKeyId;
    if (caller.type === 'session') {
      entry.role = caller.role;
      entry.subject = caller.subject;
    }
  }
  entry.bytesIn = bytesIn(request);
  if (record.bytesOut !== undefined) entry.bytesOut = record.bytesOut;
  if (record.backendType !== undefined) entry.backendType = record.backendType;
  if (record.backendStatus !== undefined) entry.backendStatus = record.backendStatus;
  if (record.backendFailure !== undefined) entry.backendFailure = record.backendFailure;
  if (record.errorCode !== undefined) entry.errorCode = record.errorCode;
  if (result.error) entry.error = describeError(result.error);
  if (fields) fields(entry);
  return JSON.stringify(entry);
}

/** The request body's length as the client declared it (Content-Length; 0 without one). */
export function bytesIn(request: ProxyRequest): number {
  const declared = request.headers.get('content-length');
  return declared === null ? 0 : Number(declared) || 0;
}

let isoMs = 0;
let isoText = '';

/** The time as ISO 8601, formatted once per millisecond. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}

export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
