import { AssetHashType, CfnResource, DockerImage, Duration, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import {
  WebFunction,
  WebFunctionAuthType,
  WebFunctionCode,
  WebFunctionEndpointLocation,
  WebFunctionRuntime,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readConfigFile } from '../config-file';
import { GatewayKeys, parameterArn, validateParameterPrefix } from './gateway-keys';
import { checkEnvironment } from './s3-gateway';

const ROOT = join(__dirname, '..', '..');

/** Variables the construct sets itself (or that the bundle finds on its own); `environment` may not set them. */
const RESERVED_VARIABLES = [
  'CONFIG_PATH', 'OIDC_PROVIDER_KEY_PARAMETER', 'SESSION_TOKEN_KEY_PARAMETER', 'OIDC_PROVIDER_ISSUER_PARAMETER', 'PARAMETER_REGION',
  'OIDC_PROVIDER_KEY', 'SESSION_TOKEN_KEY', 'OIDC_PROVIDER_ISSUER', 'KEY_ROTATION', 'NODE_OPTIONS', 'HOST', 'PORT',
];

/**
 * How many requests one execution environment serves at once. Lambda gives an environment about 1 Gbps,
 * shared by its concurrent requests, and bounds a request, stream included, by the timeout: a 5 GiB PUT
 * (S3's largest single upload) in 900 s needs 48 Mbit/s, 1/20 of an environment. At 8 each request has
 * 125 Mbit/s when all are large, so the largest upload takes ~6 minutes, with room for the undocumented
 * per-request shaping; small requests scale out to more environments instead.
 */
export const DEFAULT_MAX_CONCURRENCY_PER_ENVIRONMENT = 8;

export interface S3GatewayWebFunctionProps {
  /**
   * The gateway configuration (TOML) bundled beside the function's entry. It is validated at synth time;
   * secrets in it should be `{ env = "NAME" }` with the values passed in `environment`.
   * @default 'proxy.toml' at the project root
   */
  readonly configFile?: string;
  /**
   * Extra environment variables: the values of the `{ env = "NAME" }` secrets the configuration reads, and
   * MAX_UPLOAD_BYTES. They are stored in the revision (and the template, and readable with
   * get-web-function-revision), so prefer backend `auth_type = "oidc"` over static backend keys.
   * @default - none
   */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * Prefix of the SSM parameters: `<prefix>/oidc-provider-key`, `<prefix>/session-token-key` (SecureStrings)
   * and `<prefix>/oidc-provider-issuer` (String), all in the stack's Region.
   * @default `/<stack name>/<construct id>`
   */
  readonly parameterPrefix?: string;
  /**
   * Keep the key parameters when the stack is deleted.
   * @default false - the keys are deleted with the stack
   */
  readonly retainKeys?: boolean;
  /**
   * Changing this string generates new keys and makes a new revision, whose environments read the new keys.
   * @default '' - keys are generated once
   */
  readonly keyRotation?: string;
  /**
   * The request timeout. It bounds the whole exchange, a streamed upload or download included, so the
   * platform maximum lets the largest transfers finish (see `maxConcurrencyPerEnvironment`); hung backends
   * are cut earlier by the gateway's own 120 s idle timeout.
   * @default Duration.seconds(900)
   */
  readonly timeout?: Duration;
  /**
   * Requests one environment serves at once (1-128; Lambda's default is 64). Environments share ~1 Gbps
   * among their requests: a lower value keeps large transfers inside the timeout, a higher one packs small
   * requests into fewer environments (each billed for its memory while it lives).
   * @default 8
   */
  readonly maxConcurrencyPerEnvironment?: number;
  /**
   * A cap on the endpoint's environments (2 or more): a cost ceiling, reached as queued or refused requests.
   * @default - bounded only by the account's Arm vCPU quota
   */
  readonly maxEnvironments?: number;
  /**
   * Serve from these Regions too, under one global domain with latency-based routing (a MultiRegion
   * endpoint). Clients may sign for any Region: the gateway verifies the Region the client put in its
   * credential scope, never the serving Region. The keys and the issuer stay in this stack's Region's SSM,
   * which every replica reads (PARAMETER_REGION). Changing the set replaces the endpoint: a new domain, and
   * so a new issuer.
   * @default - the stack's Region only
   */
  readonly replicaRegions?: readonly string[];
  /**
   * The function's name. Names are unique across all Regions of an account, so set it when the same stack
   * is deployed to more than one Region. Changing it replaces the function and its endpoint (a new domain).
   * @default - generated from the construct path
   */
  readonly webFunctionName?: string;
  /**
   * How long the function's logs (one JSON access-log line per request) are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/**
 * The gateway as a Lambda Web Function: the Node server bundle (functions/web-function.ts) on nodejs24.x,
 * behind an APPLICATION_MANAGED endpoint (Lambda authenticates nothing: clients sign with the gateway's own
 * keys, which the gateway verifies; IamAuth would consume their signatures). Lambda proxies HTTP/1.1 to it
 * streamed both ways, with no request body cap documented, so uploads and multipart parts of any S3 size pass
 * (bounded by `timeout`), unlike a Function URL's 6 MB.
 *
 * As for the Function URL: the two keys live in SSM SecureStrings written by GatewayKeys, and the issuer
 * (the endpoint's URL) is written to an SSM String once the endpoint exists; the function gets only the
 * parameter names and reads them at start, through a policy that names them by ARN.
 */
export class S3GatewayWebFunction extends Construct {
  readonly function: WebFunction;
  /** The endpoint for S3 clients, `https://<domain>` (path-style addressing only: the Host must be the domain). */
  readonly url: string;
  /** The OIDC issuer: the same URL. */
  readonly issuer: string;
  readonly keys: GatewayKeys;
  readonly issuerParameterName: string;

  constructor(scope: Construct, id: string, props: S3GatewayWebFunctionProps = {}) {
    super(scope, id);
    const stack = Stack.of(this);
    const prefix = props.parameterPrefix ?? `/${stack.stackName}/${id}`;
    validateParameterPrefix(prefix);
    const config = readConfigFile(resolve(props.configFile ?? join(ROOT, 'proxy.toml')));
    const environment = checkEnvironment(this, props.environment ?? {}, config.environmentNames, RESERVED_VARIABLES);
    const replicas = validateReplicaRegions(props.replicaRegions);
    if (props.maxEnvironments !== undefined && !Token.isUnresolved(props.maxEnvironments) && !(Number.isInteger(props.maxEnvironments) && props.maxEnvironments >= 2)) {
      throw new Error(`maxEnvironments must be a whole number of at least 2, got ${props.maxEnvironments}`);
    }
    this.issuerParameterName = `${prefix}/oidc-provider-issuer`;
    this.keys = new GatewayKeys(this, 'Keys', { parameterPrefix: prefix, retainKeys: props.retainKeys, rotation: props.keyRotation, logRetention: props.logRetention });

    this.function = new WebFunction(this, 'Function', {
      webFunctionName: props.webFunctionName,
      code: WebFunctionCode.fromAssetToManagedBucket(ROOT, {
        // The bundle, not the source tree, decides when a new revision is needed.
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          // Never used: bundling is local (esbuild from node_modules), as NodejsFunction does it.
          image: DockerImage.fromRegistry('dummy'),
          local: { tryBundle: (outputDir) => bundle(outputDir, config.path) },
        },
      }),
      runtime: WebFunctionRuntime.NODEJS_24_X,
      defaultEndpointAuth: WebFunctionAuthType.APPLICATION_MANAGED,
      timeout: props.timeout ?? Duration.seconds(900),
      maxConcurrencyPerEnvironment: props.maxConcurrencyPerEnvironment ?? DEFAULT_MAX_CONCURRENCY_PER_ENVIRONMENT,
      defaultEndpoint: {
        endpointDescription: 'S3 gateway',
        maxEnvironments: props.maxEnvironments,
        ...(replicas ? { endpointLocation: WebFunctionEndpointLocation.multiRegion(replicas) } : {}),
      },
      logGroup: new LogGroup(this, 'Logs', { retention: props.logRetention ?? RetentionDays.ONE_MONTH }),
      revisionDescription: 'S3 gateway (Node server on a Web Function)',
      environment: {
        ...environment,
        OIDC_PROVIDER_KEY_PARAMETER: this.keys.oidcProviderKeyParameterName,
        SESSION_TOKEN_KEY_PARAMETER: this.keys.sessionTokenKeyParameterName,
        OIDC_PROVIDER_ISSUER_PARAMETER: this.issuerParameterName,
        // Replicas serve from other Regions; the parameters exist in this one.
        PARAMETER_REGION: stack.region,
        // A new value makes a new revision, so no environment keeps the old keys.
        KEY_ROTATION: props.keyRotation ?? '',
        // Stack traces in the logs point into functions/*.ts (the bundle ships its source map).
        NODE_OPTIONS: '--enable-source-maps',
      },
    });
    // Environments read the keys when they start: the keys must exist (and, after a rotation, be the new
    // ones) before the revision that reads them.
    this.function.resourceRevision.addResourceDependency(this.keys.resource.node.defaultChild as CfnResource);
    this.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['ssm:GetParameter'],
        resources: [this.keys.oidcProviderKeyParameterName, this.keys.sessionTokenKeyParameterName, this.issuerParameterName].map((name) => parameterArn(this, name)),
      }),
    );

    this.url = `https://${this.function.endpoint.domainName}`;
    this.issuer = this.url;
    new StringParameter(this, 'Issuer', {
      parameterName: this.issuerParameterName,
      stringValue: this.issuer,
      description: 'S3 gateway OIDC issuer: its Web Function endpoint, read by the function at start',
    });
  }
}

function validateReplicaRegions(regions: readonly string[] | undefined): string[] | undefined {
  if (regions === undefined || regions.length === 0) return undefined;
  for (const region of regions) {
    if (!Token.isUnresolved(region) && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) {
      throw new Error(`replicaRegions must be Region names like "us-east-1", got "${region}"`);
    }
  }
  return [...regions];
}

/**
 * The asset: the Web Function entry bundled with everything it imports (the AWS SDK included, so the code
 * runs with the SDK it was tested with), minified, with its source map, as `index.js` (the runtime's default
 * entry), and the configuration beside it, where the entry looks for it.
 */
function bundle(outputDir: string, configPath: string): boolean {
  buildSync({
    entryPoints: [join(ROOT, 'functions', 'web-function.ts')],
    outfile: join(outputDir, 'index.js'),
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    minify: true,
    sourcemap: true,
    logLevel: 'warning',
    // The entry starts the server itself. In a bundle every module's `require.main === module` guard is
    // true (they share the bundle's module), so the bundled Node server's own guard would start a second
    // server on 127.0.0.1:8080: never let one fire.
    define: { 'require.main': 'undefined' },
  });
  copyFileSync(configPath, join(outputDir, 'proxy.toml'));
  return true;
}
