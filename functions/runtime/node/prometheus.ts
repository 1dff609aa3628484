import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Metrics, OidcOutcome, RequestSample } from '../../core/observability/metrics';

/** Seconds: from a cached small GET (a few ms) to a slow multi-gigabyte transfer. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * The metrics of one (operation, status class, bucket): prom-client's children, looked up once, and the
 * counts not yet handed to them. A prom-client child still validates and hashes its labels on every call
 * (0.2-0.4 µs each), so counters are summed here and handed over when scraped; histograms observe at once.
 */
interface Series {
  readonly requests: Counter.Internal;
  readonly duration: Histogram.Internal<string>;
  readonly firstByte: Histogram.Internal<string>;
  readonly bytesIn: Counter.Internal;
  readonly bytesOut: Counter.Internal;
  pendingRequests: number;
  pendingBytesIn: number;
  pendingBytesOut: number;
}

/**
 * The gateway's metrics in a prom-client registry (Prometheus text format), with Node's process metrics.
 * Names and labels: docs/observability.md. Children are cached per label set, so a request costs a Map
 * lookup and a few additions rather than prom-client hashing its labels for every metric.
 */
export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly series = new Map<string, Series>();
  private readonly requests = this.counter('s3gateway_requests_total', 'Requests answered, by operation, status class and virtual bucket.', ['operation', 'status_class', 'bucket']);
  private readonly duration = this.histogram('s3gateway_request_duration_seconds', 'Time from request to the end of the response.', ['operation', 'status_class']);
  private readonly firstByte = this.histogram('s3gateway_request_ttfb_seconds', 'Time from request to the response head (time to first byte).', ['operation', 'status_class']);
  private readonly bytesIn = this.counter('s3gateway_received_bytes_total', 'Request body bytes (Content-Length) received from clients.', ['operation', 'bucket']);
  private readonly bytesOut = this.counter('s3gateway_sent_bytes_total', 'Response body bytes sent to clients.', ['operation', 'bucket']);
  private inFlightNow = 0;
  private readonly inFlight: Gauge = new Gauge({
    name: 's3gateway_requests_in_flight',
    help: 'Requests being served.',
    registers: [this.registry],
    collect: (): void => this.inFlight.set(this.inFlightNow),
  });
  private readonly backendFailures = this.counter('s3gateway_backend_failures_total', 'Forwarded requests whose backend failed: error (unreachable, broken), timeout, or 5xx.', ['backend_type', 'kind']);
  private readonly sts = this.counter('s3gateway_sts_requests_total', 'STS requests by action and outcome (Success or the STS error code).', ['action', 'outcome']);
  private readonly oidcExchanges = this.counter('s3gateway_oidc_exchanges_total', 'Exchanges of the gateway web identity for backend credentials, by outcome.', ['outcome']);
  private readonly oidcSources = this.counter('s3gateway_oidc_credentials_total', 'Backend credentials asked for by oidc buckets: from the cache, or by an exchange.', ['source']);

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  started(): void {
    this.inFlightNow++;
  }

  finished(sample: RequestSample): void {
    this.inFlightNow--;
    const series = this.seriesOf(sample.operation, sample.statusClass, sample.bucket);
    series.pendingRequests++;
    series.pendingBytesIn += sample.bytesIn;
    series.pendingBytesOut += sample.bytesOut;
    series.duration.observe(sample.seconds);
    if (sample.firstByteSeconds !== undefined) series.firstByte.observe(sample.firstByteSeconds);
    if (sample.backendFailure) this.backendFailures.inc({ backend_type: sample.backendFailure.backendType, kind: sample.backendFailure.kind });
    if (sample.stsOutcome !== undefined) this.sts.inc({ action: sample.operation, outcome: sample.stsOutcome });
  }

  oidcExchange(outcome: OidcOutcome): void {
    this.oidcExchanges.inc({ outcome });
  }

  oidcCredentials(cached: boolean): void {
    this.oidcSources.inc({ source: cached ? 'cache' : 'exchange' });
  }

  private seriesOf(operation: string, statusClass: string, bucket: string): Series {
    const key = `${operation} ${statusClass} ${bucket}`;
    let series = this.series.get(key);
    if (series === undefined) {
      series = {
        requests: this.requests.labels(operation, statusClass, bucket),
        duration: this.duration.labels(operation, statusClass),
        firstByte: this.firstByte.labels(operation, statusClass),
        bytesIn: this.bytesIn.labels(operation, bucket),
        bytesOut: this.bytesOut.labels(operation, bucket),
        pendingRequests: 0,
        pendingBytesIn: 0,
        pendingBytesOut: 0,
      };
      this.series.set(key, series);
    }
    return series;
  }

  private counter(name: string, help: string, labelNames: string[]): Counter<string> {
    // Each scrape hands the summed counts over first (whichever counter prom-client collects first).
    return new Counter({ name, help, labelNames, registers: [this.registry], collect: () => this.flush() });
  }

  private flush(): void {
    for (const series of this.series.values()) {
      if (series.pendingRequests > 0) series.requests.inc(series.pendingRequests);
      if (series.pendingBytesIn > 0) series.bytesIn.inc(series.pendingBytesIn);
      if (series.pendingBytesOut > 0) series.bytesOut.inc(series.pendingBytesOut);
      series.pendingRequests = series.pendingBytesIn = series.pendingBytesOut = 0;
    }
  }

  private histogram(name: string, help: string, labelNames: string[]): Histogram<string> {
    return new Histogram({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers: [this.registry] });
  }
}

/** The metrics listener: `GET /metrics` in the registry's format, 404 for anything else. */
export async function listenMetrics(metrics: PrometheusMetrics, host: string, port: number): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/metrics`, server };
}
