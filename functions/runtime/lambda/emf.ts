import type { OidcOutcome, RequestSample } from '../../core/observability/metrics';
import type { LoggedMetrics } from '../shared/observe';

/** The CloudWatch namespace the gateway's metrics are in (the CDK stack's alarms and dashboard read it). */
export const EMF_NAMESPACE = 'S3Gateway';

interface Directive {
  readonly Namespace: string;
  readonly Dimensions: string[][];
  readonly Metrics: Array<{ readonly Name: string; readonly Unit: string }>;
}

/** Every request: counted by status class, operation and status class, and bucket; all of them, too. */
const REQUESTS: Directive = {
  Namespace: EMF_NAMESPACE,
  Dimensions: [[], ['StatusClass'], ['Operation', 'StatusClass'], ['Bucket']],
  Metrics: [{ Name: 'Requests', Unit: 'Count' }],
};
const LATENCY: Directive = {
  Namespace: EMF_NAMESPACE,
  Dimensions: [[], ['Operation']],
  Metrics: [{ Name: 'Latency', Unit: 'Milliseconds' }],
};
const FIRST_BYTE: Directive = {
  Namespace: EMF_NAMESPACE,
  Dimensions: [[], ['Operation']],
  Metrics: [{ Name: 'TimeToFirstByte', Unit: 'Milliseconds' }],
};
const BYTES: Directive = {
  Namespace: EMF_NAMESPACE,
  Dimensions: [['Bucket']],
  Metrics: [
    { Name: 'BytesIn', Unit: 'Bytes' },
    { Name: 'BytesOut', Unit: 'Bytes' },
  ],
};
const BACKEND: Directive = { Namespace: EMF_NAMESPACE, Dimensions: [['BackendType', 'Failure']], Metrics: [{ Name: 'BackendFailures', Unit: 'Count' }] };
const STS: Directive = { Namespace: EMF_NAMESPACE, Dimensions: [['Action', 'Outcome'], ['Outcome']], Metrics: [{ Name: 'StsRequests', Unit: 'Count' }] };

/** One metric per outcome rather than a dimension: a line may carry several outcomes' counts at once. */
const OIDC_METRICS: Record<OidcOutcome, string> = {
  ok: 'OidcExchangesOk',
  refused: 'OidcExchangesRefused',
  failed: 'OidcExchangesFailed',
  unreachable: 'OidcExchangesUnreachable',
};

/**
 * CloudWatch Embedded Metric Format (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html)
 * written into the access-log line itself: `_aws` declares the metrics, their values and dimensions are the
 * line's top-level members. No API call and no line of its own: CloudWatch Logs extracts the metrics from
 * what is logged anyway. Written by hand rather than through aws-embedded-metrics, which adds a logger, a
 * flush per invocation and its environment detection for what is one object here (measured: see
 * docs/observability.md). OIDC exchanges and credential-cache lookups between two lines are added to the
 * next one (on Lambda, one request at a time, that is the request's own).
 */
export class EmfMetrics implements LoggedMetrics {
  private readonly pending = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  started(): void {}

  finished(): void {}

  oidcExchange(outcome: OidcOutcome): void {
    this.count(OIDC_METRICS[outcome]);
  }

  oidcCredentials(cached: boolean): void {
    this.count(cached ? 'OidcCredentialCacheHits' : 'OidcCredentialCacheMisses');
  }

  readonly logFields = (entry: Record<string, unknown>, sample: RequestSample): void => {
    const directives: Directive[] = [REQUESTS, LATENCY];
    entry.Operation = sample.operation;
    entry.StatusClass = sample.statusClass;
    entry.Bucket = sample.bucket;
    entry.Requests = 1;
    entry.Latency = Math.round(sample.seconds * 1000);
    if (sample.firstByteSeconds !== undefined) {
      directives.push(FIRST_BYTE);
      entry.TimeToFirstByte = Math.round(sample.firstByteSeconds * 1000);
    }
    if (sample.bytesIn > 0 || sample.bytesOut > 0) {
      directives.push(BYTES);
      entry.BytesIn = sample.bytesIn;
      entry.BytesOut = sample.bytesOut;
    }
    if (sample.backendFailure) {
      directives.push(BACKEND);
      entry.BackendType = sample.backendFailure.backendType;
      entry.Failure = sample.backendFailure.kind;
      entry.BackendFailures = 1;
    }
    if (sample.stsOutcome !== undefined) {
      directives.push(STS);
      entry.Action = sample.operation;
      entry.Outcome = sample.stsOutcome;
      entry.StsRequests = 1;
    }
    if (this.pending.size > 0) {
      const metrics = [...this.pending.keys()].map((Name) => ({ Name, Unit: 'Count' }));
      directives.push({ Namespace: EMF_NAMESPACE, Dimensions: [[]], Metrics: metrics });
      for (const [name, count] of this.pending) entry[name] = count;
      this.pending.clear();
    }
    entry._aws = { Timestamp: this.now(), CloudWatchMetrics: directives };
  };

  private count(name: string): void {
    this.pending.set(name, (this.pending.get(name) ?? 0) + 1);
  }
}
