import { PrometheusMetrics, listenMetrics } from '../../../functions/runtime/node/prometheus';

describe('PrometheusMetrics and its listener', () => {
  const metrics = new PrometheusMetrics();
  let listener: Awaited<ReturnType<typeof listenMetrics>>;

  beforeAll(async () => {
    listener = await listenMetrics(metrics, '127.0.0.1', 0);
  });

  afterAll(() => new Promise<void>((resolve) => listener.server.close(() => resolve())));

  it('serves every metric in the Prometheus text format at /metrics, labels bounded as sampled', async () => {
    metrics.started();
    metrics.started();
    metrics.finished({ operation: 'GetObject', statusClass: '2xx', bucket: 'data', seconds: 0.02, firstByteSeconds: 0.01, bytesIn: 0, bytesOut: 100 });
    metrics.finished({ operation: 'AssumeRoleWithWebIdentity', statusClass: '4xx', bucket: '_none', seconds: 0.5, bytesIn: 300, bytesOut: 0, stsOutcome: 'InvalidIdentityToken', backendFailure: { backendType: 'gcs', kind: 'error' } });
    metrics.oidcExchange('refused');
    metrics.oidcCredentials(true);
    const response = await fetch(listener.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    for (const line of [
      's3gateway_requests_total{operation="GetObject",status_class="2xx",bucket="data"} 1',
      's3gateway_request_duration_seconds_bucket{le="0.025",operation="GetObject",status_class="2xx"} 1',
      's3gateway_request_ttfb_seconds_count{operation="GetObject",status_class="2xx"} 1',
      's3gateway_sent_bytes_total{operation="GetObject",bucket="data"} 100',
      's3gateway_received_bytes_total{operation="AssumeRoleWithWebIdentity",bucket="_none"} 300',
      's3gateway_requests_in_flight 0',
      's3gateway_sts_requests_total{action="AssumeRoleWithWebIdentity",outcome="InvalidIdentityToken"} 1',
      's3gateway_backend_failures_total{backend_type="gcs",kind="error"} 1',
      's3gateway_oidc_exchanges_total{outcome="refused"} 1',
      's3gateway_oidc_credentials_total{source="cache"} 1',
    ]) {
      expect(text).toContain(line);
    }
    expect(text).toContain('process_cpu_seconds_total');
  });

  it('answers anything but GET /metrics with 404', async () => {
    expect((await fetch(listener.url.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(listener.url, { method: 'POST' })).status).toBe(404);
  });
});
