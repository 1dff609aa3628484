/**
 * The CDK app (`npx cdk deploy`, `npm run synth`). Context:
 *   -c config=PATH        gateway configuration to deploy (default proxy.toml)
 *   -c stackName=NAME     (default S3Gateway)
 *   -c retainKeys=true    keep the key parameters when the stack is deleted
 *   -c keyRotation=VALUE  a new value generates new keys
 *   -c deployment=container  the container shape instead (ECS Fargate behind a load balancer, stack
 *                         S3GatewayContainer), with -c domainName=NAME -c certificateArn=ARN for HTTPS and
 *                         -c hostedZoneId=ID -c hostedZoneName=ZONE for its DNS records
 * Variables that the configuration reads through { env = "NAME" } are passed to the function (or the
 * containers) from this process's environment (a warning names the ones that are not set).
 */
import { App } from 'aws-cdk-lib';
import { resolve } from 'node:path';
import { readConfigFile } from '../lib/config-file';
import { ContainerStack } from '../lib/container-stack';
import { GatewayStack } from '../lib/gateway-stack';

const app = new App();
const context = (key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return value === undefined || value === null ? undefined : String(value);
};

const configFile = resolve(context('config') ?? 'proxy.toml');
const environment: Record<string, string> = {};
for (const name of readConfigFile(configFile).environmentNames) {
  const value = process.env[name];
  if (value !== undefined) environment[name] = value;
}
if (process.env.MAX_UPLOAD_BYTES) environment.MAX_UPLOAD_BYTES = process.env.MAX_UPLOAD_BYTES;

if (app.node.tryGetContext('deployment') === 'container') {
  const zoneId = context('hostedZoneId');
  const zoneName = context('hostedZoneName');
  new ContainerStack(app, context('stackName') ?? 'S3GatewayContainer', {
    description: 'S3 gateway on ECS Fargate behind an Application Load Balancer',
    gateway: {
      configFile,
      environment,
      retainKeys: context('retainKeys') === 'true',
      keyRotation: context('keyRotation'),
      domainName: context('domainName'),
    },
    certificateArn: context('certificateArn'),
    hostedZone: zoneId && zoneName ? { hostedZoneId: zoneId, zoneName } : undefined,
  });
} else {
  new GatewayStack(app, context('stackName') ?? 'S3Gateway', {
    description: 'S3 gateway on a Lambda Function URL with response streaming',
    gateway: {
      configFile,
      environment,
      retainKeys: context('retainKeys') === 'true',
      keyRotation: context('keyRotation'),
    },
  });
}
