import type { RequestRecord } from './record';

/**
 * The gateway's metrics, whatever exports them: Prometheus on the Node server (runtime/node/prometheus.ts),
 * CloudWatch Embedded Metric Format on Lambda (runtime/lambda/emf.ts). Every label is bounded: the operation
 * is one of the gateway's own names, the bucket one of the configuration's virtual buckets or `_other`, the
 * status a class, codes and outcomes ones the gateway or the token services define.
 */
export interface Metrics {
  /** A request arrived: one more in flight until `finished`. */
  started(): void;
  /** A request ended (its response sent, or the client gone). */
  finished(sample: RequestSample): void;
  /** An exchange of the gateway's web identity for backend credentials (`auth_type = "oidc"` buckets). */
  oidcExchange(outcome: OidcOutcome): void;
  /** Backend credentials for an `oidc` bucket were asked for: `true` when the cache held them. */
  oidcCredentials(cached: boolean): void;
}

/** `ok`, or how the token service failed (refused the role, failed otherwise, could not be reached). */
export type OidcOutcome = 'ok' | 'refused' | 'failed' | 'unreachable';

/** One finished request, labels bounded. */
export interface RequestSample {
  readonly operation: string;
  /** `2xx` … `5xx`. */
  readonly statusClass: string;
  /** A virtual bucket's name, `_other` for a name not configured, `_none` for requests outside buckets. */
  readonly bucket: string;
  readonly seconds: number;
  /** Time to the response head; undefined when no head was sent (the client left first). */
  readonly firstByteSeconds?: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** Set when the request was forwarded and its backend failed: the backend's type and the failure. */
  readonly backendFailure?: { readonly backendType: string; readonly kind: 'error' | 'timeout' | '5xx' };
  /** For an STS call: `Success` or the STS error code. */
  readonly stsOutcome?: string;
}

/** Metrics off: every call does nothing. */
export const NO_METRICS: Metrics = {
  started: () => undefined,
  finished: () => undefined,
  oidcExchange: () => undefined,
  oidcCredentials: () => undefined,
};

/** The STS actions the gateway serves; any other STS request counts under `STS`. */
const STS_OPERATIONS = new Set(['AssumeRoleWithWebIdentity', 'GetCallerIdentity', 'STS']);

/** The status class label of a status. */
export function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}

/**
 * The sample for a finished request: its record, final status and byte counts, the labels bounded by the
 * configuration (`config` decides which bucket names are virtual buckets).
 */
export function sampleOf(record: RequestRecord, status: number, bytesIn: number, bytesOut: number, endedAt: number): RequestSample {
  const operation = record.operation ?? 'Unknown';
  const failure = record.backendFailure ?? (record.backendStatus !== undefined && record.backendStatus >= 500 ? '5xx' : undefined);
  return {
    operation,
    statusClass: statusClass(status),
    bucket: record.bucket === undefined ? '_none' : record.knownBucket ? record.bucket : '_other',
    seconds: (endedAt - record.startedAt) / 1000,
    firstByteSeconds: record.firstByteAt === undefined ? undefined : (record.firstByteAt - record.startedAt) / 1000,
    bytesIn,
    bytesOut,
    backendFailure: failure && record.backendType ? { backendType: record.backendType, kind: failure } : undefined,
    stsOutcome: STS_OPERATIONS.has(operation) ? (record.errorCode ?? 'Success') : undefined,
  };
}
