import { Annotations, CfnResource, Duration, Stack, Token } from 'aws-cdk-lib';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as route53 from 'aws-cdk-lib/aws-route53';
import { LoadBalancerTarget } from 'aws-cdk-lib/aws-route53-targets';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { readConfigFile } from '../config-file';
import { GatewayKeys, validateParameterPrefix } from './gateway-keys';
import { checkEnvironment } from './s3-gateway';

const ROOT = join(__dirname, '..', '..');

/** The port the image's server listens on (its PORT). */
export const CONTAINER_PORT = 8080;

/** The health endpoint of functions/core/health.ts: 200 while serving, 503 once draining. */
export const HEALTH_CHECK_PATH = '/.health';

/** Fargate stops a task with SIGKILL at most 120 s after SIGTERM; the drain must end before. */
const MAX_STOP_TIMEOUT_SECONDS = 120;
/** Time left after the drain for the process to exit before SIGKILL. */
const EXIT_MARGIN_SECONDS = 5;

/** Variables the construct sets itself (or the image does); `environment` may not override them. */
const RESERVED_VARIABLES = [
  'CONFIG_PATH', 'HOST', 'PORT', 'OIDC_PROVIDER_KEY', 'SESSION_TOKEN_KEY', 'OIDC_PROVIDER_ISSUER', 'KEY_ROTATION',
  'GATEWAY_DRAIN_TIMEOUT_MS', 'NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS',
];

export interface ContainerGatewayProps {
  /**
   * The gateway configuration (TOML) baked into the image at /etc/s3-gateway/proxy.toml, checked at synth
   * time. It must be inside the repository, since the image is built from it (and outside test/, bench/ and
   * the other paths .dockerignore leaves out). Secrets in it should be `{ env = "NAME" }`, with the values in
   * `environment`.
   * @default 'proxy.toml' at the project root
   */
  readonly configFile?: string;
  /**
   * Extra environment variables for the container: the values of the configuration's `{ env = "NAME" }`
   * secrets, and MAX_UPLOAD_BYTES. They are stored in the task definition (and the template).
   * @default - none
   */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * Where the key parameters live: `<prefix>/oidc-provider-key` and `<prefix>/session-token-key`.
   * @default `/<stack name>/<construct id>`
   */
  readonly parameterPrefix?: string;
  /**
   * Keep the key parameters when the stack is deleted.
   * @default false - the keys are deleted with the stack
   */
  readonly retainKeys?: boolean;
  /**
   * Changing this string generates new keys and replaces every task (tasks read the keys when they start).
   * @default '' - keys are generated once
   */
  readonly keyRotation?: string;
  /**
   * The name clients use, e.g. `s3.example.com`; with `certificate`, the load balancer serves HTTPS on it
   * and the OIDC issuer is `https://<domainName>`. Without both, it serves plain HTTP on its own DNS name
   * (a synth-time warning says what that means).
   * @default - plain HTTP on the load balancer's DNS name
   */
  readonly domainName?: string;
  /**
   * An ACM certificate in the stack's region for `domainName` and `*.<domainName>` (the wildcard name is for
   * virtual-hosted-style requests, `bucket.<domainName>`).
   * @default - none: plain HTTP
   */
  readonly certificate?: ICertificate;
  /**
   * A Route 53 zone to create `domainName` and `*.<domainName>` in, as aliases of the load balancer.
   * @default - no records: point the names at the `LoadBalancerDnsName` output yourself
   */
  readonly hostedZone?: route53.IHostedZone;
  /**
   * The VPC. The default one has public subnets in two zones and no NAT gateway: tasks get public IP
   * addresses for their way out (to the backends, ECR, SSM and CloudWatch) and take connections only from
   * the load balancer; S3 is reached through a gateway endpoint. In a given VPC tasks go in its private
   * subnets with egress.
   * @default - a new VPC as described
   */
  readonly vpc?: ec2.IVpc;
  /**
   * vCPU units of a task (1024 = 1 vCPU). The server runs JavaScript on one thread: more than a vCPU per task
   * buys little, so the service scales out instead.
   * @default 1024
   */
  readonly cpu?: number;
  /**
   * Memory of a task, MiB. The server's baseline is ~110 MiB; a client that reads slower than its backend
   * sends holds up to 2 MiB of buffers.
   * @default 2048
   */
  readonly memoryLimitMiB?: number;
  /**
   * Fewest tasks; two spread the service over two zones.
   * @default 2
   */
  readonly minCapacity?: number;
  /** @default 10 */
  readonly maxCapacity?: number;
  /**
   * Average CPU the service scales to.
   * @default 60
   */
  readonly targetCpuPercent?: number;
  /**
   * Requests per task per minute the service scales to (ALBRequestCountPerTarget), for bursts of small
   * requests that CPU averages see late. The default: a small signed GET costs the Node server ~70 µs of CPU
   * (~52 µs forwarding plus ~17 µs verifying its signature, in the project's benchmark), so 5,000 per second
   * keep a task near a third of a vCPU, leaving room for TLS to the backends (not in the benchmark) and
   * larger bodies, whose CPU the CPU policy follows.
   * @default 300_000
   */
  readonly requestsPerTarget?: number;
  /**
   * How long requests in flight get to finish when a task stops: the target group's deregistration delay
   * (the load balancer sends no new requests and waits this long for the open ones), then the server's own
   * drain after SIGTERM (GATEWAY_DRAIN_TIMEOUT_MS), with the task's stop timeout a few seconds longer.
   * At most 115 s: Fargate kills a task 120 s after SIGTERM.
   * @default Duration.seconds(25)
   */
  readonly drainTimeout?: Duration;
  /**
   * How long the tasks' logs (the access log, one JSON line per request) are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/**
 * The gateway as an always-on service: its container image (the repository's Dockerfile, built as a CDK
 * asset for arm64) on ECS Fargate behind an Application Load Balancer, with the keys from the same SSM
 * SecureStrings as the Function URL deployment (GatewayKeys) handed to the tasks as ECS secrets, the load
 * balancer's URL as the OIDC issuer, and scaling on CPU and on requests per task.
 */
export class ContainerGateway extends Construct {
  readonly service: ecs.FargateService;
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly loadBalancer: elbv2.ApplicationLoadBalancer;
  readonly targetGroup: elbv2.ApplicationTargetGroup;
  readonly keys: GatewayKeys;
  readonly logGroup: LogGroup;
  /** The endpoint for S3 clients. */
  readonly url: string;
  /** The OIDC issuer: the URL without a trailing slash. */
  readonly issuer: string;

  constructor(scope: Construct, id: string, props: ContainerGatewayProps = {}) {
    super(scope, id);
    const prefix = props.parameterPrefix ?? `/${Stack.of(this).stackName}/${id}`;
    validateParameterPrefix(prefix);
    const drain = props.drainTimeout ?? Duration.seconds(25);
    const drainSeconds = drain.toSeconds();
    if (drainSeconds > MAX_STOP_TIMEOUT_SECONDS - EXIT_MARGIN_SECONDS) {
      throw new Error(`drainTimeout must be at most ${MAX_STOP_TIMEOUT_SECONDS - EXIT_MARGIN_SECONDS} seconds (Fargate kills a task ${MAX_STOP_TIMEOUT_SECONDS} s after SIGTERM), got ${drainSeconds}`);
    }
    if ((props.domainName === undefined) !== (props.certificate === undefined)) {
      throw new Error('domainName and certificate go together: HTTPS needs both (or neither, for plain HTTP on the load balancer\'s DNS name)');
    }
    if (props.hostedZone && !props.domainName) throw new Error('hostedZone needs domainName (and certificate): the records are made for that name');
    const config = readConfigFile(resolve(props.configFile ?? join(ROOT, 'proxy.toml')));
    const environment = checkEnvironment(this, props.environment ?? {}, config.environmentNames, RESERVED_VARIABLES);
    this.keys = new GatewayKeys(this, 'Keys', { parameterPrefix: prefix, retainKeys: props.retainKeys, rotation: props.keyRotation, logRetention: props.logRetention });

    const vpc = props.vpc ?? defaultVpc(this);
    const cluster = new ecs.Cluster(this, 'Cluster', { vpc });
    this.loadBalancer = new elbv2.ApplicationLoadBalancer(this, 'LoadBalancer', { vpc, internetFacing: true });
    const https = props.domainName !== undefined;
    this.url = https ? `https://${props.domainName}` : `http://${this.loadBalancer.loadBalancerDnsName}`;
    this.issuer = this.url;
    if (!https) {
      Annotations.of(this).addWarningV2(
        's3-gateway:plain-http',
        'No domainName and certificate: the load balancer serves plain HTTP. Signatures protect requests from tampering, not from being read: object data, listings and the temporary keys STS returns cross the network in clear text, and IAM does not accept an http:// OIDC issuer (auth_type = "oidc" buckets cannot work). Pass a domainName and a certificate (-c domainName=... -c certificateArn=...) for HTTPS.',
      );
    }

    this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention ?? RetentionDays.ONE_MONTH });
    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: props.cpu ?? 1024,
      memoryLimitMiB: props.memoryLimitMiB ?? 2048,
      // Graviton: cheaper per vCPU, and the image has nothing native of its own.
      runtimePlatform: { cpuArchitecture: ecs.CpuArchitecture.ARM64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
    });
    const secureString = (name: string, parameterName: string): ecs.Secret =>
      ecs.Secret.fromSsmParameter(StringParameter.fromSecureStringParameterAttributes(this, name, { parameterName }));
    this.taskDefinition.addContainer('Gateway', {
      image: ecs.ContainerImage.fromAsset(ROOT, {
        platform: Platform.LINUX_ARM64,
        buildArgs: { CONFIG: configInContext(config.path) },
      }),
      portMappings: [{ containerPort: CONTAINER_PORT }],
      environment: {
        ...environment,
        OIDC_PROVIDER_ISSUER: this.issuer,
        GATEWAY_DRAIN_TIMEOUT_MS: String(drain.toMilliseconds()),
        // A new value changes the task definition, so every task is replaced and reads the new keys.
        KEY_ROTATION: props.keyRotation ?? '',
      },
      // ECS reads the SecureStrings when a task starts (the execution role's permission, not the app's).
      secrets: {
        OIDC_PROVIDER_KEY: secureString('OidcProviderKey', this.keys.oidcProviderKeyParameterName),
        SESSION_TOKEN_KEY: secureString('SessionTokenKey', this.keys.sessionTokenKeyParameterName),
      },
      logging: ecs.LogDrivers.awsLogs({ logGroup: this.logGroup, streamPrefix: 'gateway' }),
      stopTimeout: Duration.seconds(drainSeconds + EXIT_MARGIN_SECONDS),
      // The server writes nothing.
      readonlyRootFilesystem: true,
    });

    this.service = new ecs.FargateService(this, 'Service', {
      cluster,
      taskDefinition: this.taskDefinition,
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { rollback: true },
      healthCheckGracePeriod: Duration.seconds(30),
      assignPublicIp: props.vpc === undefined,
      vpcSubnets: props.vpc === undefined ? { subnetType: ec2.SubnetType.PUBLIC } : undefined,
    });
    // Tasks read the keys when they start: they must exist (and, after a rotation, be the new ones) first.
    (this.service.node.defaultChild as CfnResource).addResourceDependency(this.keys.resource.node.defaultChild as CfnResource);

    this.targetGroup = new elbv2.ApplicationTargetGroup(this, 'Targets', {
      vpc,
      port: CONTAINER_PORT,
      protocol: elbv2.ApplicationProtocol.HTTP,
      targetType: elbv2.TargetType.IP,
      targets: [this.service],
      deregistrationDelay: drain,
      healthCheck: {
        path: HEALTH_CHECK_PATH,
        healthyHttpCodes: '200',
        interval: Duration.seconds(10),
        timeout: Duration.seconds(5),
        healthyThresholdCount: 2,
        unhealthyThresholdCount: 2,
      },
    });
    if (https) {
      this.loadBalancer.addListener('Https', {
        port: 443,
        protocol: elbv2.ApplicationProtocol.HTTPS,
        certificates: [props.certificate as ICertificate],
        sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
        defaultTargetGroups: [this.targetGroup],
      });
      this.loadBalancer.addRedirect({ sourcePort: 80, targetPort: 443 });
    } else {
      this.loadBalancer.addListener('Http', { port: 80, protocol: elbv2.ApplicationProtocol.HTTP, defaultTargetGroups: [this.targetGroup] });
    }
    if (props.hostedZone && props.domainName) {
      const target = route53.RecordTarget.fromAlias(new LoadBalancerTarget(this.loadBalancer));
      new route53.ARecord(this, 'Name', { zone: props.hostedZone, recordName: props.domainName, target });
      new route53.ARecord(this, 'WildcardName', { zone: props.hostedZone, recordName: `*.${props.domainName}`, target });
    }

    const scaling = this.service.autoScaleTaskCount({ minCapacity: props.minCapacity ?? 2, maxCapacity: props.maxCapacity ?? 10 });
    scaling.scaleOnCpuUtilization('Cpu', {
      targetUtilizationPercent: props.targetCpuPercent ?? 60,
      scaleOutCooldown: Duration.minutes(1),
      scaleInCooldown: Duration.minutes(5),
    });
    scaling.scaleOnRequestCount('Requests', {
      requestsPerTarget: props.requestsPerTarget ?? 300_000,
      targetGroup: this.targetGroup,
      scaleOutCooldown: Duration.minutes(1),
      scaleInCooldown: Duration.minutes(5),
    });
  }
}

/** Two zones, public subnets only, no NAT gateway; S3 through a (free) gateway endpoint. */
function defaultVpc(scope: Construct): ec2.Vpc {
  const vpc = new ec2.Vpc(scope, 'Vpc', {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'Public', subnetType: ec2.SubnetType.PUBLIC }],
  });
  vpc.addGatewayEndpoint('S3', { service: ec2.GatewayVpcEndpointAwsService.S3 });
  return vpc;
}

/** The configuration's path in the image's build context (the repository), for the Dockerfile's CONFIG. */
function configInContext(path: string): string {
  if (Token.isUnresolved(path)) throw new Error('configFile must be a path, not a token');
  const inside = relative(ROOT, path);
  if (inside.startsWith('..') || isAbsolute(inside)) {
    throw new Error(`configFile must be inside the repository, which is the image's build context (${ROOT}); got ${path}`);
  }
  return inside.split(sep).join('/');
}
