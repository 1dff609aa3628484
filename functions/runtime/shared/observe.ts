import type { ProxyRequest } from '../../core/http';
import { NO_METRICS, sampleOf, type Metrics, type RequestSample } from '../../core/observability/metrics';
import { RequestRecord } from '../../core/observability/record';
import { traceContext } from '../../core/observability/trace';
import { bytesIn } from './access-log';
import type { ExchangeResult } from './dispatch';

/**
 * Metrics written into the access-log line itself (CloudWatch Embedded Metric Format on Lambda): `logFields`
 * adds the request's sample, and whatever else was counted since the last line, to the line's entry.
 */
export interface LoggedMetrics extends Metrics {
  readonly logFields?: (entry: Record<string, unknown>, sample: RequestSample) => void;
}

export const NO_LOGGED_METRICS: LoggedMetrics = NO_METRICS;

/**
 * A request's observation from arrival to end, the same on every runtime: its record (audit fields, trace,
 * time to first byte) opened when it arrives, counted in flight, and turned into a metrics sample at its end.
 */
export function openRecord(request: ProxyRequest, metrics: Metrics = NO_METRICS): RequestRecord {
  metrics.started();
  return new RequestRecord(performance.now(), traceContext(request.headers));
}

/** Ends the request's observation: its sample goes to `metrics`, and is returned (the Lambda logs it as EMF). */
export function closeRecord(request: ProxyRequest, result: ExchangeResult, record: RequestRecord, metrics: Metrics = NO_METRICS): RequestSample {
  const sample = sampleOf(record, result.status, bytesIn(request), record.bytesOut ?? 0, performance.now());
  metrics.finished(sample);
  return sample;
}
