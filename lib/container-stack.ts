import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { HostedZone, type HostedZoneAttributes } from 'aws-cdk-lib/aws-route53';
import type { Construct } from 'constructs';
import { ContainerGateway, type ContainerGatewayProps } from './constructs/container-gateway';
import { GatewayAlarms, type GatewayAlarmsProps } from './constructs/gateway-alarms';

export interface ContainerStackProps extends StackProps {
  /** The gateway's settings (configuration file, environment, keys, domain, sizing, drain). */
  readonly gateway?: Omit<ContainerGatewayProps, 'certificate' | 'hostedZone'>;
  /**
   * ARN of the ACM certificate for the gateway's `domainName` and its wildcard, in the stack's region.
   * @default - none: plain HTTP
   */
  readonly certificateArn?: string;
  /**
   * The Route 53 zone for the gateway's DNS records (no lookup: synth needs no credentials).
   * @default - no records
   */
  readonly hostedZone?: HostedZoneAttributes;
  /**
   * Alarms' notifications: `true` sends them to a new SNS topic, `{ email }` also subscribes the address
   * (`-c alarmTopic=true`, `-c alarmEmail=…`). The alarms and dashboard exist either way.
   */
  readonly notify?: GatewayAlarmsProps['notify'];
}

/**
 * The container deployment (`-c deployment=container`): one ContainerGateway and what an operator needs to
 * use it. Environment-agnostic like GatewayStack: it synthesizes without an AWS account or Docker (the
 * image is built when the assets are published, at deploy time).
 */
export class ContainerStack extends Stack {
  readonly gateway: ContainerGateway;
  readonly operations: GatewayAlarms;

  constructor(scope: Construct, id: string, props: ContainerStackProps = {}) {
    super(scope, id, props);
    this.gateway = new ContainerGateway(this, 'Gateway', {
      ...props.gateway,
      certificate: props.certificateArn ? Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn) : undefined,
      hostedZone: props.hostedZone ? HostedZone.fromHostedZoneAttributes(this, 'Zone', props.hostedZone) : undefined,
    });
    const { loadBalancer, targetGroup, service, logGroup } = this.gateway;
    this.operations = new GatewayAlarms(this, 'Operations', { source: { kind: 'container', loadBalancer, targetGroup, service }, logGroup, notify: props.notify });
    new CfnOutput(this, 'EndpointUrl', { value: this.gateway.url, description: 'Endpoint for S3 clients (--endpoint-url, endpoint_url, AWS_ENDPOINT_URL_S3)' });
    new CfnOutput(this, 'IssuerUrl', { value: this.gateway.issuer, description: 'OIDC issuer of the tokens the gateway mints (register it as an IAM OIDC provider; needs HTTPS)' });
    new CfnOutput(this, 'LoadBalancerDnsName', { value: this.gateway.loadBalancer.loadBalancerDnsName, description: 'Point the domain name (and its wildcard) here when the stack manages no DNS records' });
    new CfnOutput(this, 'OidcProviderKeyParameter', { value: this.gateway.keys.oidcProviderKeyParameterName, description: 'SecureString with the OIDC signing key' });
    new CfnOutput(this, 'SessionTokenKeyParameter', { value: this.gateway.keys.sessionTokenKeyParameterName, description: 'SecureString with the STS session token key' });
    new CfnOutput(this, 'ServiceName', { value: this.gateway.service.serviceName, description: 'The ECS service running the gateway' });
    new CfnOutput(this, 'LogGroupName', { value: this.gateway.logGroup.logGroupName, description: 'The tasks\' logs: one JSON access-log line per request' });
  }
}
