import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { GatewayAlarms, type GatewayAlarmsProps } from './constructs/gateway-alarms';
import { S3Gateway, type S3GatewayProps } from './constructs/s3-gateway';

export interface GatewayStackProps extends StackProps {
  /** The gateway's settings (configuration file, environment, keys, sizing). */
  readonly gateway?: S3GatewayProps;
  /**
   * Alarms' notifications: `true` sends them to a new SNS topic, `{ email }` also subscribes the address
   * (`-c alarmTopic=true`, `-c alarmEmail=…`). The alarms and dashboard exist either way.
   */
  readonly notify?: GatewayAlarmsProps['notify'];
}

/**
 * The project's deployment: one S3Gateway and what an operator needs to use it. Environment-agnostic, so it
 * synthesizes without an AWS account and deploys to whatever account and region the CLI targets.
 */
export class GatewayStack extends Stack {
  readonly gateway: S3Gateway;
  readonly operations: GatewayAlarms;

  constructor(scope: Construct, id: string, props: GatewayStackProps = {}) {
    super(scope, id, props);
    this.gateway = new S3Gateway(this, 'Gateway', props.gateway);
    const fn = this.gateway.function;
    this.operations = new GatewayAlarms(this, 'Operations', { source: { kind: 'lambda', functionName: fn.functionName }, logGroup: fn.logGroup, notify: props.notify });
    new CfnOutput(this, 'EndpointUrl', { value: this.gateway.url, description: 'Endpoint for S3 clients (--endpoint-url, endpoint_url, AWS_ENDPOINT_URL_S3)' });
    new CfnOutput(this, 'IssuerUrl', { value: this.gateway.issuer, description: 'OIDC issuer of the tokens the gateway mints (register it as an IAM OIDC provider)' });
    new CfnOutput(this, 'OidcProviderKeyParameter', { value: this.gateway.keys.oidcProviderKeyParameterName, description: 'SecureString with the OIDC signing key' });
    new CfnOutput(this, 'SessionTokenKeyParameter', { value: this.gateway.keys.sessionTokenKeyParameterName, description: 'SecureString with the STS session token key' });
    new CfnOutput(this, 'IssuerParameter', { value: this.gateway.issuerParameterName, description: 'String parameter holding the issuer URL' });
    new CfnOutput(this, 'FunctionName', { value: this.gateway.function.functionName, description: 'The gateway function (logs: /aws/lambda/<name> group of the stack)' });
  }
}
