import { Annotations, CfnResource, Duration, Fn, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Architecture, FunctionUrlAuthType, InvokeMode, Runtime, type FunctionUrl } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { join, resolve } from 'node:path';
import { readConfigFile } from '../config-file';
import { GatewayKeys, parameterArn, validateParameterPrefix } from './gateway-keys';

const ROOT = join(__dirname, '..', '..');

/** Where the bundled configuration lives inside the function (Lambda unpacks the asset in /var/task). */
const DEPLOYED_CONFIG_PATH = '/var/task/proxy.toml';

/**
 * The exec wrapper Lambda's runtime starts node through (AWS_LAMBDA_EXEC_WRAPPER): it adds the Node server's
 * V8 flags, which V8 refuses in NODE_OPTIONS (ADR 0003). Shipped beside the bundle.
 */
const EXEC_WRAPPER = join(ROOT, 'functions', 'runtime', 'lambda', 'exec-wrapper.sh');
const DEPLOYED_EXEC_WRAPPER = '/var/task/exec-wrapper.sh';

/** Variables the construct sets itself; `environment` may not override them. */
const RESERVED_VARIABLES = [
  'CONFIG_PATH', 'OIDC_PROVIDER_KEY_PARAMETER', 'SESSION_TOKEN_KEY_PARAMETER', 'OIDC_PROVIDER_ISSUER_PARAMETER',
  'OIDC_PROVIDER_KEY', 'SESSION_TOKEN_KEY', 'OIDC_PROVIDER_ISSUER', 'KEY_ROTATION', 'NODE_OPTIONS',
];

export interface S3GatewayProps {
  /**
   * The gateway configuration (TOML) bundled into the function. It is validated at synth time; secrets in it
   * should be `{ env = "NAME" }` with the values passed in `environment`.
   * @default 'proxy.toml' at the project root
   */
  readonly configFile?: string;
  /**
   * Extra environment variables for the function: the values of the `{ env = "NAME" }` secrets the
   * configuration reads, and MAX_UPLOAD_BYTES. They are stored in the function's configuration (and the
   * template), so prefer backend `auth_type = "oidc"` over static backend keys where possible.
   * @default - none
   */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * Prefix of the SSM parameters: `<prefix>/oidc-provider-key`, `<prefix>/session-token-key` (SecureStrings)
   * and `<prefix>/oidc-provider-issuer` (String).
   * @default `/<stack name>/<construct id>`
   */
  readonly parameterPrefix?: string;
  /**
   * Keep the key parameters when the stack is deleted.
   * @default false - the keys are deleted with the stack
   */
  readonly retainKeys?: boolean;
  /**
   * Changing this string generates new keys and recycles the function's execution environments, which
   * read the keys once per cold start.
   * @default '' - keys are generated once
   */
  readonly keyRotation?: string;
  /**
   * Memory of the function. Lambda gives CPU and network bandwidth in proportion to memory, and the gateway
   * spends its time copying streams and verifying signatures.
   * @default 1024
   */
  readonly memorySize?: number;
  /**
   * The function's timeout. A streamed response may run past 200 s (200 MB at 2 MB/s after the first 6 MB)
   * and slower for slow clients, and hung backends are already cut by the gateway's 120 s idle timeout, so
   * the platform maximum only ever lets legitimate long downloads finish.
   * @default Duration.minutes(15)
   */
  readonly timeout?: Duration;
  /**
   * How long the function's logs (one JSON access-log line per request) are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/**
 * The gateway as a Lambda Function URL any S3 client can use as its endpoint: a response-streaming function
 * (auth NONE: clients sign requests with the gateway's own keys, which the gateway verifies), the two keys
 * in SSM SecureStrings, and its public URL published as the OIDC issuer.
 *
 * The issuer is the function's own URL, which cannot be one of its environment variables (the URL depends
 * on the function). So the URL is written to an SSM String parameter after the URL exists, the function gets
 * only the parameter's name, and it reads the value at cold start. The function's policy names that
 * parameter by ARN built from its name, so nothing the function depends on depends on the URL.
 */
export class S3Gateway extends Construct {
  readonly function: NodejsFunction;
  readonly functionUrl: FunctionUrl;
  /** The endpoint for S3 clients (`https://<id>.lambda-url.<region>.on.aws/`). */
  readonly url: string;
  /** The OIDC issuer: the URL without its trailing slash. */
  readonly issuer: string;
  readonly keys: GatewayKeys;
  readonly issuerParameterName: string;

  constructor(scope: Construct, id: string, props: S3GatewayProps = {}) {
    super(scope, id);
    const prefix = props.parameterPrefix ?? `/${Stack.of(this).stackName}/${id}`;
    validateParameterPrefix(prefix);
    const config = readConfigFile(resolve(props.configFile ?? join(ROOT, 'proxy.toml')));
    const environment = checkEnvironment(this, props.environment ?? {}, config.environmentNames);
    this.issuerParameterName = `${prefix}/oidc-provider-issuer`;
    this.keys = new GatewayKeys(this, 'Keys', { parameterPrefix: prefix, retainKeys: props.retainKeys, rotation: props.keyRotation, logRetention: props.logRetention });

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(ROOT, 'functions', 'lambda-handler.ts'),
      handler: 'handler',
      projectRoot: ROOT,
      depsLockFilePath: join(ROOT, 'package-lock.json'),
      runtime: Runtime.NODEJS_22_X,
      // Graviton: cheaper per GB-second, and nothing in the bundle is native.
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.minutes(15),
      logGroup: new LogGroup(this, 'Logs', { retention: props.logRetention ?? RetentionDays.ONE_MONTH }),
      description: 'S3 gateway (Function URL, response streaming)',
      environment: {
        ...environment,
        CONFIG_PATH: DEPLOYED_CONFIG_PATH,
        OIDC_PROVIDER_KEY_PARAMETER: this.keys.oidcProviderKeyParameterName,
        SESSION_TOKEN_KEY_PARAMETER: this.keys.sessionTokenKeyParameterName,
        OIDC_PROVIDER_ISSUER_PARAMETER: this.issuerParameterName,
        // A new value changes the function's configuration, so no environment keeps the old keys.
        KEY_ROTATION: props.keyRotation ?? '',
        // Stack traces in the logs point into functions/*.ts (the bundle ships its source map).
        NODE_OPTIONS: '--enable-source-maps',
        AWS_LAMBDA_EXEC_WRAPPER: DEPLOYED_EXEC_WRAPPER,
      },
      bundling: {
        minify: true,
        sourceMap: true,
        format: OutputFormat.CJS,
        target: 'node22',
        // The SDK the function was tested with, not whatever version the runtime ships.
        bundleAwsSDK: true,
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_input: string, output: string) => [
            `cp ${shellQuote(config.path)} ${shellQuote(join(output, 'proxy.toml'))}`,
            // Lambda executes the wrapper itself: it must stay executable in the asset.
            `cp ${shellQuote(EXEC_WRAPPER)} ${shellQuote(join(output, 'exec-wrapper.sh'))}`,
            `chmod 755 ${shellQuote(join(output, 'exec-wrapper.sh'))}`,
          ],
        },
      },
    });
    // Cold starts read the keys: they must exist (and, after a rotation, be the new ones) before the function
    // changes. Only the function itself waits; its role need not.
    (this.function.node.defaultChild as CfnResource).addResourceDependency(this.keys.resource.node.defaultChild as CfnResource);
    this.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['ssm:GetParameter'],
        resources: [this.keys.oidcProviderKeyParameterName, this.keys.sessionTokenKeyParameterName, this.issuerParameterName].map((name) => parameterArn(this, name)),
      }),
    );
    // SecureStrings use the AWS managed key aws/ssm, whose key policy lets SSM decrypt for any principal of
    // the account allowed to GetParameter: no kms:Decrypt grant is needed.

    this.functionUrl = this.function.addFunctionUrl({ authType: FunctionUrlAuthType.NONE, invokeMode: InvokeMode.RESPONSE_STREAM });
    this.url = this.functionUrl.url;
    this.issuer = Fn.join('', ['https://', Fn.select(2, Fn.split('/', this.functionUrl.url))]);
    new StringParameter(this, 'Issuer', {
      parameterName: this.issuerParameterName,
      stringValue: this.issuer,
      description: 'S3 gateway OIDC issuer: its Function URL, read by the function at cold start',
    });
  }
}

/**
 * The extra environment of a deployment: refused when it sets what the construct sets itself (`reserved`,
 * or anything `AWS_`); a warning names each `{ env = "NAME" }` of the configuration left without a value.
 */
export function checkEnvironment(
  scope: Construct,
  environment: Readonly<Record<string, string>>,
  referenced: readonly string[],
  reservedNames: readonly string[] = RESERVED_VARIABLES,
): Record<string, string> {
  const reserved = Object.keys(environment).filter((name) => reservedNames.includes(name) || name.startsWith('AWS_'));
  if (reserved.length > 0) {
    throw new Error(`environment must not set ${reserved.join(', ')}: the construct sets them (use keyRotation, parameterPrefix or configFile instead)`);
  }
  const missing = referenced.filter((name) => environment[name] === undefined);
  if (missing.length > 0) {
    Annotations.of(scope).addWarningV2(
      's3-gateway:missing-environment',
      `The configuration reads ${missing.join(', ')} through { env = ... } but no value is passed: the gateway will refuse to start until they are set in 'environment'`,
    );
  }
  return { ...environment };
}

function shellQuote(path: string): string {
  return `'${path.replace(/'/g, `'\\''`)}'`;
}
