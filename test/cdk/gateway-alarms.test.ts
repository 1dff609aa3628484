import { App, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerStack } from '../../lib/container-stack';
import { GatewayStack } from '../../lib/gateway-stack';
import { WebFunctionStack } from '../../lib/web-function-stack';
import type { GatewayAlarmsProps } from '../../lib/constructs/gateway-alarms';

/**
 * Every deployment shape gets the same five alarms (5xx rate, p99 latency, throttles or saturation, STS
 * failures, OIDC exchange failures), a dashboard, and with `notify` an SNS topic the alarms report to.
 * Bundling is skipped (bundling.test.ts runs esbuild once).
 */
const EXAMPLE_ENV = { ASSETS_BACKEND_ACCESS_KEY_ID: 'AKIAEXAMPLE', ASSETS_BACKEND_SECRET_ACCESS_KEY: 'backend-secret', DEPLOY_KEY_SECRET: 'deploy-secret' };
const out = mkdtempSync(join(tmpdir(), 'alarms-synth-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

type Shape = 'function-url' | 'web-function' | 'container';

function synth(shape: Shape, notify?: GatewayAlarmsProps['notify']): Template {
  const app = new App({ outdir: mkdtempSync(join(out, 'app-')), context: { 'aws:cdk:bundling-stacks': [] } });
  const gateway = { environment: EXAMPLE_ENV };
  const stacks: Record<Shape, () => Stack> = {
    'function-url': () => new GatewayStack(app, 'S3Gateway', { gateway, notify }),
    'web-function': () => new WebFunctionStack(app, 'S3Gateway', { gateway, notify }),
    container: () => new ContainerStack(app, 'S3GatewayContainer', { gateway, notify }),
  };
  return Template.fromStack(stacks[shape]());
}

const SHAPES: Shape[] = ['function-url', 'web-function', 'container'];

describe.each(SHAPES)('alarms and dashboard (%s)', (shape) => {
  let template: Template;
  beforeAll(() => {
    template = synth(shape);
  });

  it('has the five alarms, none notifying anyone by default, and missing data is not an incident', () => {
    const alarms = template.findResources('AWS::CloudWatch::Alarm');
    const descriptions = Object.values(alarms).map((a) => (a.Properties as { AlarmDescription: string }).AlarmDescription);
    expect(descriptions).toHaveLength(5);
    for (const what of ['5xx', 'p99 latency', 'STS calls', 'token exchanges']) expect(descriptions.some((d) => d.includes(what))).toBe(true);
    for (const alarm of Object.values(alarms)) {
      expect(alarm.Properties).toMatchObject({ TreatMissingData: 'notBreaching', ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
      expect(alarm.Properties).not.toHaveProperty('AlarmActions');
    }
    template.resourceCountIs('AWS::SNS::Topic', 0);
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it('counts STS and OIDC failures from the access log and events with metric filters', () => {
    template.resourceCountIs('AWS::Logs::MetricFilter', 2);
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: Match.stringLikeRegexp('\\$\\.operation = "AssumeRoleWithWebIdentity"'),
      MetricTransformations: [Match.objectLike({ MetricNamespace: 'S3Gateway', MetricName: 'StsFailures', DefaultValue: 0 })],
    });
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.event = "oidc-exchange" && $.outcome != "ok" }',
      MetricTransformations: [Match.objectLike({ MetricName: 'OidcExchangeFailures' })],
    });
  });

  if (shape === 'container') {
    it("alarms on the load balancer's 5xx share, its targets' p99 response time and the service's CPU", () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Metrics: Match.arrayWith([Match.objectLike({ MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: 'HTTPCode_Target_5XX_Count' }) }) })]),
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'TargetResponseTime', ExtendedStatistic: 'p99', Threshold: 10 });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'CPUUtilization', Namespace: 'AWS/ECS' });
    });
  } else {
    it("alarms on the EMF metrics' 5xx share and p99 latency, and on the function's throttles", () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Metrics: Match.arrayWith([
          Match.objectLike({ MetricStat: Match.objectLike({ Metric: { Namespace: 'S3Gateway', MetricName: 'Requests', Dimensions: [{ Name: 'StatusClass', Value: '5xx' }] } }) }),
        ]),
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'S3Gateway', MetricName: 'Latency', ExtendedStatistic: 'p99', Threshold: 10_000 });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/Lambda', MetricName: 'Throttles' });
    });
  }
});

describe.each(SHAPES)('alarm notifications (%s)', (shape) => {
  it('sends every alarm and its recovery to a topic, with the email subscribed', () => {
    const template = synth(shape, { email: 'ops@example.com' });
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(5);
    for (const alarm of alarms) {
      const props = alarm.Properties as { AlarmActions: unknown[]; OKActions: unknown[] };
      expect(props.AlarmActions).toHaveLength(1);
      expect(props.OKActions).toHaveLength(1);
    }
  });
});
