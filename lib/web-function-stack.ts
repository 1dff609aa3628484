import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import { GatewayAlarms, type GatewayAlarmsProps } from './constructs/gateway-alarms';
import { S3GatewayWebFunction, type S3GatewayWebFunctionProps } from './constructs/s3-gateway-web-function';

export interface WebFunctionStackProps extends StackProps {
  /** The gateway's settings (configuration file, environment, keys, sizing, Regions). */
  readonly gateway?: S3GatewayWebFunctionProps;
  /**
   * Alarms' notifications: `true` sends them to a new SNS topic, `{ email }` also subscribes the address
   * (`-c alarmTopic=true`, `-c alarmEmail=…`). The alarms and dashboard exist either way.
   */
  readonly notify?: GatewayAlarmsProps['notify'];
}

/**
 * The gateway on a Lambda Web Function (`-c deployment=web-function`): one S3GatewayWebFunction and what an
 * operator needs to use it. Environment-agnostic like the Function URL stack, so it synthesizes without an
 * AWS account. The construct id is the Function URL stack's, so both name their parameters alike.
 */
export class WebFunctionStack extends Stack {
  readonly gateway: S3GatewayWebFunction;
  readonly operations: GatewayAlarms;

  constructor(scope: Construct, id: string, props: WebFunctionStackProps = {}) {
    super(scope, id, props);
    this.gateway = new S3GatewayWebFunction(this, 'Gateway', props.gateway);
    this.operations = new GatewayAlarms(this, 'Operations', {
      source: { kind: 'lambda', functionName: this.gateway.function.webFunctionName },
      logGroup: this.gateway.node.findChild('Logs') as LogGroup,
      notify: props.notify,
    });
    new CfnOutput(this, 'EndpointUrl', { value: this.gateway.url, description: 'Endpoint for S3 clients (--endpoint-url, endpoint_url, AWS_ENDPOINT_URL_S3); path-style addressing only' });
    new CfnOutput(this, 'IssuerUrl', { value: this.gateway.issuer, description: 'OIDC issuer of the tokens the gateway mints (register it as an IAM OIDC provider)' });
    new CfnOutput(this, 'OidcProviderKeyParameter', { value: this.gateway.keys.oidcProviderKeyParameterName, description: 'SecureString with the OIDC signing key' });
    new CfnOutput(this, 'SessionTokenKeyParameter', { value: this.gateway.keys.sessionTokenKeyParameterName, description: 'SecureString with the STS session token key' });
    new CfnOutput(this, 'IssuerParameter', { value: this.gateway.issuerParameterName, description: 'String parameter holding the issuer URL' });
    new CfnOutput(this, 'WebFunctionName', { value: this.gateway.function.webFunctionName, description: 'The gateway web function' });
    new CfnOutput(this, 'LogGroupName', { value: this.gateway.function.logGroup.logGroupRef.logGroupName, description: 'Where its access log goes' });
  }
}
