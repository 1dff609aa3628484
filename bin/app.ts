/**
 * The CDK app (`npx cdk deploy`, `npm run synth`). Context:
 *   -c config=PATH        gateway configuration to deploy (default proxy.toml)
 *   -c stackName=NAME     (default S3Gateway; S3GatewayContainer for the container)
 *   -c retainKeys=true    keep the key parameters when the stack is deleted
 *   -c keyRotation=VALUE  a new value generates new keys
 *   -c deployment=SHAPE   function-url (default): a Lambda Function URL with response streaming;
 *                         web-function: the Node server on a Lambda Web Function;
 *                         container: ECS Fargate behind a load balancer (stack S3GatewayContainer)
 * web-function only:
 *   -c replicaRegions=us-east-1,eu-west-1   also serve from these Regions (one global domain)
 *   -c webFunctionName=NAME                 (set it when deploying the stack to several Regions)
 *   -c maxEnvironments=N                    a cap on execution environments (cost ceiling)
 * container only:
 *   -c domainName=NAME -c certificateArn=ARN for HTTPS, -c hostedZoneId=ID -c hostedZoneName=ZONE for its
 *   DNS records
 * Variables that the configuration reads through { env = "NAME" } are passed to the function (or the
 * containers) from this process's environment (a warning names the ones that are not set).
 */
import { App, type Stack } from 'aws-cdk-lib';
import { resolve } from 'node:path';
import { readConfigFile } from '../lib/config-file';
import { ContainerStack } from '../lib/container-stack';
import { GatewayStack } from '../lib/gateway-stack';
import { WebFunctionStack } from '../lib/web-function-stack';

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

const stackName = context('stackName');
/** What every shape deploys the same way. */
const gateway = { configFile, environment, retainKeys: context('retainKeys') === 'true', keyRotation: context('keyRotation') };
/** Where alarms notify: `-c alarmEmail=ops@example.com` (a topic with that subscription) or `-c alarmTopic=true`. */
const alarmEmail = context('alarmEmail');
const notify = alarmEmail ? { email: alarmEmail } : context('alarmTopic') === 'true';

/** The deployment shapes, by their `-c deployment=` name; each builds its own stack. */
const DEPLOYMENTS: Record<string, () => Stack> = {
  'function-url': () =>
    new GatewayStack(app, stackName ?? 'S3Gateway', {
      description: 'S3 gateway on a Lambda Function URL with response streaming',
      gateway,
      notify,
    }),
  'web-function': () =>
    new WebFunctionStack(app, stackName ?? 'S3Gateway', {
      description: 'S3 gateway on a Lambda Web Function',
      notify,
      gateway: {
        ...gateway,
        replicaRegions: context('replicaRegions')?.split(',').map((region) => region.trim()).filter((region) => region !== ''),
        webFunctionName: context('webFunctionName'),
        maxEnvironments: context('maxEnvironments') === undefined ? undefined : Number(context('maxEnvironments')),
      },
    }),
  container: () => {
    const zoneId = context('hostedZoneId');
    const zoneName = context('hostedZoneName');
    return new ContainerStack(app, stackName ?? 'S3GatewayContainer', {
      description: 'S3 gateway on ECS Fargate behind an Application Load Balancer',
      gateway: { ...gateway, domainName: context('domainName') },
      certificateArn: context('certificateArn'),
      hostedZone: zoneId && zoneName ? { hostedZoneId: zoneId, zoneName } : undefined,
      notify,
    });
  },
};

const deployment = context('deployment') ?? 'function-url';
const build = Object.hasOwn(DEPLOYMENTS, deployment) ? DEPLOYMENTS[deployment] : undefined;
if (build === undefined) {
  throw new Error(`Unknown deployment "${deployment}": -c deployment= takes ${Object.keys(DEPLOYMENTS).join(', ')}`);
}
build();
