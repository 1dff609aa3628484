import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

/** The namespace of the Lambda shapes' EMF metrics (functions/runtime/lambda/emf.ts) and of the log metric filters. */
export const METRICS_NAMESPACE = 'S3Gateway';

/** Where the gateway runs, and so where its request metrics come from. */
export type AlarmSource =
  /** Function URL or Web Function: the EMF metrics in the access log, and the function's own metrics. */
  | { readonly kind: 'lambda'; readonly functionName: string }
  /** ECS behind an ALB: the load balancer's target metrics, and the service's CPU. */
  | { readonly kind: 'container'; readonly loadBalancer: elbv2.ApplicationLoadBalancer; readonly targetGroup: elbv2.ApplicationTargetGroup; readonly service: ecs.FargateService };

export interface GatewayAlarmsProps {
  readonly source: AlarmSource;
  /** The access log's log group: STS and OIDC failures are counted from it by metric filters, on every shape. */
  readonly logGroup: ILogGroup;
  /**
   * Send every alarm's state changes to an SNS topic: `true` creates one, an email address also subscribes it.
   * @default - no topic: the alarms only show in CloudWatch
   */
  readonly notify?: boolean | { readonly email: string };
  /** Share of 5xx answers over 5 minutes that raises the alarm. @default 0.05 */
  readonly serverErrorRate?: number;
  /** p99 latency over 5 minutes that raises the alarm. @default 10 s */
  readonly p99Latency?: Duration;
  /** Failed STS calls (any error outcome) in 5 minutes that raise the alarm. @default 20 */
  readonly stsFailures?: number;
}

const PERIOD = Duration.minutes(5);

/**
 * The operator's alarms and dashboard for one deployment: the 5xx rate, p99 latency, throttles or saturation,
 * failed STS calls and failed OIDC exchanges, optionally notifying an SNS topic. The request metrics are
 * the EMF metrics on Lambda and the load balancer's on the container; STS and OIDC failures come from the
 * access log and the core's events through metric filters, the same on every shape.
 */
export class GatewayAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;
  readonly topic?: sns.Topic;

  constructor(scope: Construct, id: string, props: GatewayAlarmsProps) {
    super(scope, id);
    const source = props.source;
    const requests = source.kind === 'lambda' ? lambdaMetrics(source.functionName) : containerRequests(source);
    const stsFailures = this.logCount(props.logGroup, 'StsFailures', FilterPattern.literal('{ ($.operation = "AssumeRoleWithWebIdentity" || $.operation = "GetCallerIdentity" || $.operation = "STS") && $.status >= 400 }'));
    const oidcFailures = this.logCount(props.logGroup, 'OidcExchangeFailures', FilterPattern.literal('{ $.event = "oidc-exchange" && $.outcome != "ok" }'));

    this.alarm('ServerErrorRate', requests.errorRate, props.serverErrorRate ?? 0.05, 'Share of requests answered 5xx');
    this.alarm('P99Latency', requests.p99, (props.p99Latency ?? Duration.seconds(10)).toMilliseconds() / requests.p99Scale, 'p99 latency of all requests');
    this.alarm('Saturation', requests.saturation, requests.saturationThreshold, requests.saturationWhat);
    this.alarm('StsFailures', stsFailures, props.stsFailures ?? 20, 'STS calls answered with an error (refused tokens, unknown roles, …)');
    this.alarm('OidcExchangeFailures', oidcFailures, 1, "The gateway's own token exchanges for oidc buckets failing");

    if (props.notify) {
      this.topic = new sns.Topic(this, 'Topic', { displayName: 'S3 gateway alarms' });
      if (typeof props.notify === 'object') this.topic.addSubscription(new subscriptions.EmailSubscription(props.notify.email));
      const action = new SnsAction(this.topic);
      for (const alarm of this.alarms) {
        alarm.addAlarmAction(action);
        alarm.addOkAction(action);
      }
    }

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      widgets: [
        [
          new cloudwatch.GraphWidget({ title: 'Requests', left: [requests.count], right: [requests.errorRate], width: 12 }),
          new cloudwatch.GraphWidget({ title: 'p99 latency', left: [requests.p99], width: 12 }),
        ],
        [
          new cloudwatch.GraphWidget({ title: requests.saturationWhat, left: [requests.saturation], width: 12 }),
          new cloudwatch.GraphWidget({ title: 'STS and OIDC failures', left: [stsFailures, oidcFailures], width: 12 }),
        ],
        [new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 })],
      ],
    });
  }

  private logCount(logGroup: ILogGroup, name: string, pattern: ReturnType<typeof FilterPattern.literal>): cloudwatch.IMetric {
    const filter = new MetricFilter(this, `${name}Filter`, { logGroup, metricNamespace: METRICS_NAMESPACE, metricName: name, filterPattern: pattern, metricValue: '1', defaultValue: 0 });
    return filter.metric({ statistic: 'Sum', period: PERIOD });
  }

  private alarm(id: string, metric: cloudwatch.IMetric, threshold: number, description: string): void {
    this.alarms.push(
      new cloudwatch.Alarm(this, id, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        // No traffic is not an incident.
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `S3 gateway: ${description}`,
      }),
    );
  }
}

interface RequestMetrics {
  readonly count: cloudwatch.IMetric;
  readonly errorRate: cloudwatch.IMetric;
  readonly p99: cloudwatch.IMetric;
  /** What `p99` is in per millisecond (Lambda: milliseconds, 1; the ALB: seconds, 1000). */
  readonly p99Scale: number;
  readonly saturation: cloudwatch.IMetric;
  readonly saturationThreshold: number;
  readonly saturationWhat: string;
}

/** From the EMF metrics in the access log (dimension sets: see docs/observability.md), and Lambda's Throttles. */
function lambdaMetrics(functionName: string): RequestMetrics {
  const all = new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: 'Requests', statistic: 'Sum', period: PERIOD });
  const errors = new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: 'Requests', dimensionsMap: { StatusClass: '5xx' }, statistic: 'Sum', period: PERIOD });
  return {
    count: all,
    errorRate: new cloudwatch.MathExpression({ expression: 'IF(all > 0, errors / all, 0)', usingMetrics: { all, errors }, label: '5xx rate', period: PERIOD }),
    p99: new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: 'Latency', statistic: 'p99', period: PERIOD }),
    p99Scale: 1,
    saturation: new cloudwatch.Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', dimensionsMap: { FunctionName: functionName }, statistic: 'Sum', period: PERIOD }),
    saturationThreshold: 1,
    saturationWhat: 'Throttled invocations',
  };
}

/** From the load balancer's target metrics, and the service's CPU. */
function containerRequests(source: Extract<AlarmSource, { kind: 'container' }>): RequestMetrics {
  const all = source.targetGroup.metrics.requestCount({ period: PERIOD });
  const targetErrors = source.targetGroup.metrics.httpCodeTarget(elbv2.HttpCodeTarget.TARGET_5XX_COUNT, { period: PERIOD });
  const balancerErrors = source.loadBalancer.metrics.httpCodeElb(elbv2.HttpCodeElb.ELB_5XX_COUNT, { period: PERIOD });
  return {
    count: all,
    errorRate: new cloudwatch.MathExpression({
      expression: 'IF(all > 0, (FILL(target, 0) + FILL(balancer, 0)) / all, 0)',
      usingMetrics: { all, target: targetErrors, balancer: balancerErrors },
      label: '5xx rate',
      period: PERIOD,
    }),
    p99: source.targetGroup.metrics.targetResponseTime({ statistic: 'p99', period: PERIOD }),
    p99Scale: 1000,
    saturation: source.service.metricCpuUtilization({ statistic: 'Maximum', period: PERIOD }),
    saturationThreshold: 90,
    saturationWhat: 'Service CPU (maximum %)',
  };
}
