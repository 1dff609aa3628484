import { EmfMetrics, EMF_NAMESPACE } from '../../../functions/runtime/lambda/emf';
import type { RequestSample } from '../../../functions/core/observability/metrics';

const GET: RequestSample = { operation: 'GetObject', statusClass: '2xx', bucket: 'data', seconds: 0.0123, firstByteSeconds: 0.004, bytesIn: 0, bytesOut: 4096 };

interface Directive {
  Namespace: string;
  Dimensions: string[][];
  Metrics: Array<{ Name: string; Unit: string }>;
}

function fields(metrics: EmfMetrics, sample: RequestSample): Record<string, unknown> {
  const entry: Record<string, unknown> = { requestId: 'R' };
  metrics.logFields(entry, sample);
  return entry;
}

/** Every declared dimension is a string member and every metric a number member (the EMF specification). */
function expectValid(entry: Record<string, unknown>): Directive[] {
  const aws = entry._aws as { Timestamp: number; CloudWatchMetrics: Directive[] };
  expect(aws.Timestamp).toBe(1_700_000_000_000);
  for (const d of aws.CloudWatchMetrics) {
    expect(d.Namespace).toBe(EMF_NAMESPACE);
    for (const set of d.Dimensions) for (const name of set) expect(typeof entry[name]).toBe('string');
    for (const m of d.Metrics) expect(typeof entry[m.Name]).toBe('number');
  }
  return aws.CloudWatchMetrics;
}

describe('EmfMetrics', () => {
  const now = (): number => 1_700_000_000_000;

  it('turns a request into EMF members of its access-log line, the line keeping its own fields', () => {
    const entry = fields(new EmfMetrics(now), GET);
    expect(entry).toMatchObject({ requestId: 'R', Operation: 'GetObject', StatusClass: '2xx', Bucket: 'data', Requests: 1, Latency: 12, TimeToFirstByte: 4, BytesIn: 0, BytesOut: 4096 });
    const names = expectValid(entry).flatMap((d) => d.Metrics.map((m) => m.Name));
    expect(names).toEqual(['Requests', 'Latency', 'TimeToFirstByte', 'BytesIn', 'BytesOut']);
  });

  it('declares no time to first byte when no head was sent, and no bytes for an empty exchange', () => {
    const entry = fields(new EmfMetrics(now), { operation: 'Unknown', statusClass: '4xx', bucket: '_none', seconds: 0.001, bytesIn: 0, bytesOut: 0 });
    expect(expectValid(entry).flatMap((d) => d.Metrics.map((m) => m.Name))).toEqual(['Requests', 'Latency']);
    expect(entry).not.toHaveProperty('TimeToFirstByte');
  });

  it('adds a backend failure and an STS outcome with their dimensions', () => {
    const entry = fields(new EmfMetrics(now), {
      ...GET,
      operation: 'AssumeRoleWithWebIdentity',
      statusClass: '4xx',
      stsOutcome: 'InvalidIdentityToken',
      backendFailure: { backendType: 's3', kind: 'timeout' },
    });
    expectValid(entry);
    expect(entry).toMatchObject({ Action: 'AssumeRoleWithWebIdentity', Outcome: 'InvalidIdentityToken', StsRequests: 1, BackendType: 's3', Failure: 'timeout', BackendFailures: 1 });
  });

  it('carries the OIDC exchanges and cache lookups counted since the last line on the next line only', () => {
    const metrics = new EmfMetrics(now);
    metrics.oidcExchange('ok');
    metrics.oidcExchange('unreachable');
    metrics.oidcCredentials(false);
    metrics.oidcCredentials(true);
    metrics.oidcCredentials(true);
    const first = fields(metrics, GET);
    expectValid(first);
    expect(first).toMatchObject({ OidcExchangesOk: 1, OidcExchangesUnreachable: 1, OidcCredentialCacheMisses: 1, OidcCredentialCacheHits: 2 });
    const second = fields(metrics, GET);
    expect(second).not.toHaveProperty('OidcCredentialCacheHits');
    expect(expectValid(second).some((d) => d.Metrics.some((m) => m.Name.startsWith('Oidc')))).toBe(false);
  });
});
