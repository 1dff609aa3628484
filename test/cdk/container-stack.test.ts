import { App, Duration } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerStack, type ContainerStackProps } from '../../lib/container-stack';

/**
 * The container deployment (`-c deployment=container`), specified on the synthesized template and asset
 * manifest. The image is an asset: synthesis stages its build context, building it is for deployment.
 */

const ROOT = join(__dirname, '..', '..');
/** Values for the `{ env = ... }` secrets of the top-level proxy.toml. */
const EXAMPLE_ENV = { ASSETS_BACKEND_ACCESS_KEY_ID: 'AKIAEXAMPLE', ASSETS_BACKEND_SECRET_ACCESS_KEY: 'backend-secret', DEPLOY_KEY_SECRET: 'deploy-secret' };
const PREFIX = '/S3GatewayContainer/Gateway';
const CERTIFICATE = 'arn:aws:acm:eu-west-1:111122223333:certificate/0a1b2c3d-aaaa-bbbb-cccc-0123456789ab';

type Json = Record<string, unknown>;

interface Synthesized {
  readonly stack: ContainerStack;
  readonly template: Template;
  readonly app: App;
}

/** Each synthesis stages the image's build context: in a directory of this file's, removed at the end. */
let out: string;
beforeAll(() => (out = mkdtempSync(join(tmpdir(), 'container-stack-'))));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function synth(props: ContainerStackProps = {}, gateway: NonNullable<ContainerStackProps['gateway']> = {}): Synthesized {
  const app = new App({ outdir: mkdtempSync(join(out, 'app-')), context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new ContainerStack(app, 'S3GatewayContainer', { ...props, gateway: { environment: EXAMPLE_ENV, ...gateway } });
  return { stack, template: Template.fromStack(stack), app };
}

function resourcesOf(template: Template, type: string): [string, Json][] {
  return Object.entries(template.findResources(type)) as [string, Json][];
}

function only(template: Template, type: string): [string, Json] {
  const found = resourcesOf(template, type);
  expect(found).toHaveLength(1);
  return found[0];
}

interface ContainerDefinition {
  readonly Environment: Array<{ Name: string; Value: unknown }>;
  readonly Secrets: Array<{ Name: string; ValueFrom: unknown }>;
  readonly [key: string]: unknown;
}

function container(template: Template): ContainerDefinition {
  const [, task] = only(template, 'AWS::ECS::TaskDefinition');
  const definitions = (task.Properties as { ContainerDefinitions: ContainerDefinition[] }).ContainerDefinitions;
  expect(definitions).toHaveLength(1);
  return definitions[0];
}

function environmentOf(template: Template): Record<string, unknown> {
  return Object.fromEntries(container(template).Environment.map((e) => [e.Name, e.Value]));
}

/** The ARN CloudFormation builds for a parameter name in an environment-agnostic stack. */
function parameterArn(name: string): Json {
  return { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ssm:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:parameter${name}`]] };
}

/** Every statement of every policy attached to `roleId`. */
function statementsOf(template: Template, roleId: string): Json[] {
  return resourcesOf(template, 'AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify((p.Properties as Json).Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap(([, p]) => (p.Properties as { PolicyDocument: { Statement: Json[] } }).PolicyDocument.Statement);
}

function roleOf(template: Template, property: 'TaskRoleArn' | 'ExecutionRoleArn'): string {
  const [, task] = only(template, 'AWS::ECS::TaskDefinition');
  return ((task.Properties as Record<string, { 'Fn::GetAtt': [string, string] }>)[property])['Fn::GetAtt'][0];
}

const loadBalancerDns = (template: Template): Json => ({ 'Fn::GetAtt': [only(template, 'AWS::ElasticLoadBalancingV2::LoadBalancer')[0], 'DNSName'] });

describe('ContainerStack: the task', () => {
  test('GIVEN the defaults WHEN synthesized THEN one arm64 Fargate task of 1 vCPU and 2 GiB runs the image on port 8080, read-only, logging to CloudWatch', () => {
    const { template } = synth();
    const [, task] = only(template, 'AWS::ECS::TaskDefinition');
    expect(task.Properties).toMatchObject({
      Cpu: '1024',
      Memory: '2048',
      NetworkMode: 'awsvpc',
      RequiresCompatibilities: ['FARGATE'],
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
    });
    const definition = container(template);
    expect(definition).toMatchObject({
      Essential: true,
      PortMappings: [{ ContainerPort: 8080, Protocol: 'tcp' }],
      ReadonlyRootFilesystem: true,
      LogConfiguration: { LogDriver: 'awslogs', Options: { 'awslogs-stream-prefix': 'gateway' } },
    });
    expect(JSON.stringify(definition.Image)).toContain('container-assets');
    const logGroupId = ((definition.LogConfiguration as { Options: Record<string, { Ref: string }> }).Options['awslogs-group']).Ref;
    expect((template.toJSON().Resources[logGroupId] as { Properties: Json }).Properties.RetentionInDays).toBe(30);
  });

  test('GIVEN the defaults WHEN synthesized THEN the image is an arm64 asset built from the repository\'s Dockerfile, baking in proxy.toml', () => {
    const { app, stack } = synth();
    const assembly = app.synth();
    const manifest = JSON.parse(readFileSync(join(assembly.directory, `${stack.artifactId}.assets.json`), 'utf8')) as {
      dockerImages: Record<string, { source: { directory: string; dockerBuildArgs?: Record<string, string>; platform?: string; dockerFile?: string } }>;
    };
    const images = Object.values(manifest.dockerImages);
    expect(images).toHaveLength(1);
    const { source } = images[0];
    expect(source).toMatchObject({ dockerBuildArgs: { CONFIG: 'proxy.toml' }, platform: 'linux/arm64' });
    expect(source.dockerFile).toBeUndefined();
    // The staged build context is the repository as .dockerignore leaves it.
    const context = join(assembly.directory, source.directory);
    expect(readFileSync(join(context, 'Dockerfile'), 'utf8')).toBe(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    for (const present of ['package-lock.json', 'functions/node-server.ts', 'scripts/build.ts', 'proxy.toml']) expect(existsSync(join(context, present))).toBe(true);
    for (const absent of ['node_modules', 'test', 'cdk.out', '.git', 'lib']) expect(existsSync(join(context, absent))).toBe(false);
  });

  test('GIVEN the defaults WHEN synthesized THEN the drain takes 25 s: GATEWAY_DRAIN_TIMEOUT_MS, the deregistration delay, and a stop timeout 5 s longer', () => {
    const { template } = synth();
    expect(environmentOf(template).GATEWAY_DRAIN_TIMEOUT_MS).toBe('25000');
    expect(container(template).StopTimeout).toBe(30);
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      TargetGroupAttributes: Match.arrayWith([{ Key: 'deregistration_delay.timeout_seconds', Value: '25' }]),
    });
  });

  test('GIVEN drainTimeout 60 s WHEN synthesized THEN all three follow it', () => {
    const { template } = synth({}, { drainTimeout: Duration.seconds(60) });
    expect(environmentOf(template).GATEWAY_DRAIN_TIMEOUT_MS).toBe('60000');
    expect(container(template).StopTimeout).toBe(65);
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      TargetGroupAttributes: Match.arrayWith([{ Key: 'deregistration_delay.timeout_seconds', Value: '60' }]),
    });
  });

  test('GIVEN drainTimeout beyond 115 s WHEN synthesized THEN it is refused: Fargate kills a task 120 s after SIGTERM', () => {
    expect(() => synth({}, { drainTimeout: Duration.seconds(116) })).toThrow('drainTimeout must be at most 115 seconds (Fargate kills a task 120 s after SIGTERM), got 116');
  });

  test('GIVEN environment values for the configuration secrets WHEN synthesized THEN the container receives them, and the issuer is the load balancer\'s URL', () => {
    const { template } = synth();
    expect(environmentOf(template)).toMatchObject({
      ...EXAMPLE_ENV,
      OIDC_PROVIDER_ISSUER: { 'Fn::Join': ['', ['http://', loadBalancerDns(template)]] },
      KEY_ROTATION: '',
    });
  });

  test.each(['PORT', 'HOST', 'CONFIG_PATH', 'SESSION_TOKEN_KEY', 'GATEWAY_DRAIN_TIMEOUT_MS', 'AWS_REGION'])('GIVEN environment setting %s WHEN synthesized THEN it is refused', (name) => {
    expect(() => synth({}, { environment: { ...EXAMPLE_ENV, [name]: 'x' } })).toThrow(`environment must not set ${name}`);
  });

  test('GIVEN a configuration secret without a value WHEN synthesized THEN a warning names it', () => {
    const { stack } = synth({}, { environment: { DEPLOY_KEY_SECRET: 'x' } });
    Annotations.fromStack(stack).hasWarning('*', Match.stringLikeRegexp('ASSETS_BACKEND_ACCESS_KEY_ID, ASSETS_BACKEND_SECRET_ACCESS_KEY'));
  });

  test('GIVEN another configuration in the repository WHEN synthesized THEN it is the one baked in', () => {
    const { app, stack } = synth({}, { configFile: join(ROOT, 'local', 'proxy.toml'), environment: {} });
    const manifest = JSON.parse(readFileSync(join(app.synth().directory, `${stack.artifactId}.assets.json`), 'utf8')) as { dockerImages: Record<string, { source: { dockerBuildArgs: Json } }> };
    expect(Object.values(manifest.dockerImages)[0].source.dockerBuildArgs).toEqual({ CONFIG: 'local/proxy.toml' });
  });

  test('GIVEN a configuration outside the repository WHEN synthesized THEN it is refused: the image is built from the repository', () => {
    const dir = mkdtempSync(join(tmpdir(), 'container-config-'));
    try {
      const file = join(dir, 'proxy.toml');
      writeFileSync(file, readFileSync(join(ROOT, 'local', 'proxy.toml')));
      expect(() => synth({}, { configFile: file, environment: {} })).toThrow(`configFile must be inside the repository, which is the image's build context (${ROOT}); got ${file}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ContainerStack: keys and permissions', () => {
  test('GIVEN the defaults WHEN synthesized THEN the keys reach the container as ECS secrets from the two SecureStrings, by name only', () => {
    const { template } = synth();
    expect(container(template).Secrets).toEqual([
      { Name: 'OIDC_PROVIDER_KEY', ValueFrom: parameterArn(`${PREFIX}/oidc-provider-key`) },
      { Name: 'SESSION_TOKEN_KEY', ValueFrom: parameterArn(`${PREFIX}/session-token-key`) },
    ]);
    const environment = environmentOf(template);
    for (const key of ['OIDC_PROVIDER_KEY', 'SESSION_TOKEN_KEY']) expect(environment[key]).toBeUndefined();
    template.hasResourceProperties('Custom::GatewayKeys', { OidcProviderKeyParameter: `${PREFIX}/oidc-provider-key`, SessionTokenKeyParameter: `${PREFIX}/session-token-key`, Retain: 'false' });
  });

  test('GIVEN the defaults WHEN synthesized THEN no secret value is anywhere in the template', () => {
    const { template } = synth();
    const json = JSON.stringify(template.toJSON());
    expect(json).not.toMatch(/PRIVATE KEY|BEGIN RSA/);
    template.resourceCountIs('AWS::SSM::Parameter', 0);
    const [[keysId]] = resourcesOf(template, 'Custom::GatewayKeys');
    expect(json).not.toContain(`"Fn::GetAtt":["${keysId}"`);
  });

  test('GIVEN the defaults WHEN synthesized THEN the execution role reads exactly the two parameters, pulls the image and writes logs, and nothing else', () => {
    const { template } = synth();
    const statements = statementsOf(template, roleOf(template, 'ExecutionRoleArn'));
    const ssm = statements.filter((s) => JSON.stringify(s.Action).includes('ssm:'));
    expect(ssm.map((s) => s.Resource)).toEqual([parameterArn(`${PREFIX}/oidc-provider-key`), parameterArn(`${PREFIX}/session-token-key`)]);
    for (const s of ssm) expect(s.Action).toEqual(['ssm:DescribeParameters', 'ssm:GetParameters', 'ssm:GetParameter', 'ssm:GetParameterHistory']);
    const others = statements.filter((s) => !ssm.includes(s)).flatMap((s) => [s.Action].flat());
    expect(others.sort()).toEqual(['ecr:BatchCheckLayerAvailability', 'ecr:BatchGetImage', 'ecr:GetAuthorizationToken', 'ecr:GetDownloadUrlForLayer', 'logs:CreateLogStream', 'logs:PutLogEvents']);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/"kms:/);
  });

  test('GIVEN the defaults WHEN synthesized THEN the task role, the gateway\'s own identity, has no permission at all', () => {
    const { template } = synth();
    const taskRole = roleOf(template, 'TaskRoleArn');
    expect(statementsOf(template, taskRole)).toEqual([]);
    expect((template.toJSON().Resources[taskRole] as { Properties: Json }).Properties.ManagedPolicyArns).toBeUndefined();
  });

  test('GIVEN the keys are read when a task starts WHEN synthesized THEN the service is created (and updated) after the key resource', () => {
    const { template } = synth();
    const [keysId] = only(template, 'Custom::GatewayKeys');
    const [, service] = only(template, 'AWS::ECS::Service');
    expect(service.DependsOn).toContain(keysId);
  });

  test('GIVEN keyRotation and retainKeys WHEN synthesized THEN the key resource rotates and keeps, and the task definition changes with the rotation', () => {
    const { template } = synth({}, { keyRotation: '2026-12', retainKeys: true });
    template.hasResourceProperties('Custom::GatewayKeys', { Retain: 'true', Rotation: '2026-12' });
    expect(environmentOf(template).KEY_ROTATION).toBe('2026-12');
  });
});

describe('ContainerStack: load balancer and service', () => {
  test('GIVEN no domain WHEN synthesized THEN plain HTTP on port 80 forwards to the service, and a warning says what that means', () => {
    const { template, stack } = synth();
    const [, listener] = only(template, 'AWS::ElasticLoadBalancingV2::Listener');
    const [targetsId] = only(template, 'AWS::ElasticLoadBalancingV2::TargetGroup');
    expect(listener.Properties).toMatchObject({ Port: 80, Protocol: 'HTTP', DefaultActions: [{ Type: 'forward', TargetGroupArn: { Ref: targetsId } }] });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', { Scheme: 'internet-facing', Type: 'application' });
    Annotations.fromStack(stack).hasWarning('*', Match.stringLikeRegexp('serves plain HTTP.*temporary keys STS returns.*http:// OIDC issuer'));
    template.hasOutput('EndpointUrl', { Value: { 'Fn::Join': ['', ['http://', loadBalancerDns(template)]] } });
  });

  test('GIVEN a domain and a certificate WHEN synthesized THEN HTTPS on 443 with a TLS 1.2+ policy, port 80 redirecting to it, the issuer https://<domain>, and no warning', () => {
    const { template, stack } = synth({ certificateArn: CERTIFICATE }, { domainName: 's3.example.com' });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Port: 443,
      Protocol: 'HTTPS',
      Certificates: [{ CertificateArn: CERTIFICATE }],
      SslPolicy: 'ELBSecurityPolicy-TLS13-1-2-2021-06',
      DefaultActions: [Match.objectLike({ Type: 'forward' })],
    });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Port: 80,
      Protocol: 'HTTP',
      DefaultActions: [{ Type: 'redirect', RedirectConfig: Match.objectLike({ Port: '443', Protocol: 'HTTPS', StatusCode: 'HTTP_301' }) }],
    });
    expect(environmentOf(template).OIDC_PROVIDER_ISSUER).toBe('https://s3.example.com');
    template.hasOutput('EndpointUrl', { Value: 'https://s3.example.com' });
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('plain HTTP'));
    template.resourceCountIs('AWS::Route53::RecordSet', 0);
  });

  test('GIVEN a hosted zone too WHEN synthesized THEN the name and its wildcard (for virtual-hosted addressing) alias the load balancer', () => {
    const { template } = synth({ certificateArn: CERTIFICATE, hostedZone: { hostedZoneId: 'Z0123456789', zoneName: 'example.com' } }, { domainName: 's3.example.com' });
    for (const name of ['s3.example.com.', '*.s3.example.com.']) {
      template.hasResourceProperties('AWS::Route53::RecordSet', { Name: name, Type: 'A', HostedZoneId: 'Z0123456789', AliasTarget: Match.objectLike({ DNSName: Match.anyValue() }) });
    }
  });

  test.each<[string, ContainerStackProps, NonNullable<ContainerStackProps['gateway']>, RegExp]>([
    ['a domain without a certificate', {}, { domainName: 's3.example.com' }, /domainName and certificate go together/],
    ['a certificate without a domain', { certificateArn: CERTIFICATE }, {}, /domainName and certificate go together/],
    ['a hosted zone without a domain', { hostedZone: { hostedZoneId: 'Z1', zoneName: 'example.com' } }, {}, /hostedZone needs domainName/],
  ])('GIVEN %s WHEN synthesized THEN it is refused', (_case, props, gateway, message) => {
    expect(() => synth(props, gateway)).toThrow(message);
  });

  test('GIVEN the defaults WHEN synthesized THEN the target group checks /.health on port 8080 of each task (IP targets) and wants 200', () => {
    const { template } = synth();
    const [, targets] = only(template, 'AWS::ElasticLoadBalancingV2::TargetGroup');
    expect(targets.Properties).toMatchObject({
      Port: 8080,
      Protocol: 'HTTP',
      TargetType: 'ip',
      HealthCheckPath: '/.health',
      Matcher: { HttpCode: '200' },
      HealthCheckIntervalSeconds: 10,
      HealthyThresholdCount: 2,
      UnhealthyThresholdCount: 2,
    });
  });

  test('GIVEN the defaults WHEN synthesized THEN the service keeps full capacity through deployments, rolls back failed ones, and leaves its count to autoscaling', () => {
    const { template } = synth();
    const [, service] = only(template, 'AWS::ECS::Service');
    const [targetsId] = only(template, 'AWS::ElasticLoadBalancingV2::TargetGroup');
    expect(service.Properties).toMatchObject({
      LaunchType: 'FARGATE',
      HealthCheckGracePeriodSeconds: 30,
      DeploymentConfiguration: { MinimumHealthyPercent: 100, MaximumPercent: 200, DeploymentCircuitBreaker: { Enable: true, Rollback: true } },
      LoadBalancers: [{ ContainerName: 'Gateway', ContainerPort: 8080, TargetGroupArn: { Ref: targetsId } }],
      NetworkConfiguration: { AwsvpcConfiguration: { AssignPublicIp: 'ENABLED' } },
    });
    // A fixed count would reset a scaled-out service on every deployment.
    expect((service.Properties as Json).DesiredCount).toBeUndefined();
  });

  test('GIVEN the defaults WHEN synthesized THEN the tasks take connections from the load balancer only, on 8080', () => {
    const { template } = synth();
    const [, service] = only(template, 'AWS::ECS::Service');
    const groups = ((service.Properties as { NetworkConfiguration: { AwsvpcConfiguration: { SecurityGroups: Array<{ 'Fn::GetAtt': [string, string] }> } } }).NetworkConfiguration.AwsvpcConfiguration.SecurityGroups).map((g) => g['Fn::GetAtt'][0]);
    expect(groups).toHaveLength(1);
    const [serviceGroupId] = groups;
    const inline = (template.toJSON().Resources[serviceGroupId] as { Properties: Json }).Properties.SecurityGroupIngress;
    expect(inline).toBeUndefined();
    const ingress = resourcesOf(template, 'AWS::EC2::SecurityGroupIngress').filter(([, r]) => JSON.stringify(r.Properties).includes(serviceGroupId));
    expect(ingress).toHaveLength(1);
    const [, loadBalancer] = only(template, 'AWS::ElasticLoadBalancingV2::LoadBalancer');
    const [lbGroup] = (loadBalancer.Properties as { SecurityGroups: Json[] }).SecurityGroups;
    expect(ingress[0][1].Properties).toMatchObject({ IpProtocol: 'tcp', FromPort: 8080, ToPort: 8080, SourceSecurityGroupId: lbGroup });
  });

  test('GIVEN the defaults WHEN synthesized THEN 2 to 10 tasks, scaled to 60% CPU and to 300,000 requests per task per minute', () => {
    const { template } = synth();
    const [targetId, target] = only(template, 'AWS::ApplicationAutoScaling::ScalableTarget');
    expect(target.Properties).toMatchObject({ MinCapacity: 2, MaxCapacity: 10, ScalableDimension: 'ecs:service:DesiredCount', ServiceNamespace: 'ecs' });
    const [targetsId] = only(template, 'AWS::ElasticLoadBalancingV2::TargetGroup');
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      ScalingTargetId: { Ref: targetId },
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({ PredefinedMetricSpecification: { PredefinedMetricType: 'ECSServiceAverageCPUUtilization' }, TargetValue: 60 }),
    });
    const requests = resourcesOf(template, 'AWS::ApplicationAutoScaling::ScalingPolicy').filter(([, p]) => JSON.stringify(p).includes('ALBRequestCountPerTarget'));
    expect(requests).toHaveLength(1);
    const configuration = (requests[0][1].Properties as { TargetTrackingScalingPolicyConfiguration: Json }).TargetTrackingScalingPolicyConfiguration;
    expect(configuration.TargetValue).toBe(300_000);
    expect(JSON.stringify(configuration)).toContain(`"Fn::GetAtt":["${targetsId}","TargetGroupFullName"]`);
  });

  test('GIVEN sizing props WHEN synthesized THEN the task and the scaling use them', () => {
    const { template } = synth({}, { cpu: 2048, memoryLimitMiB: 4096, minCapacity: 3, maxCapacity: 30, targetCpuPercent: 50, requestsPerTarget: 120_000 });
    template.hasResourceProperties('AWS::ECS::TaskDefinition', { Cpu: '2048', Memory: '4096' });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 3, MaxCapacity: 30 });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', { TargetTrackingScalingPolicyConfiguration: Match.objectLike({ TargetValue: 50 }) });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', { TargetTrackingScalingPolicyConfiguration: Match.objectLike({ TargetValue: 120_000 }) });
  });

  test('GIVEN the defaults WHEN synthesized THEN a VPC of two public subnets without NAT gateways, with an S3 gateway endpoint', () => {
    const { template } = synth();
    template.resourceCountIs('AWS::EC2::Subnet', 2);
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.hasResourceProperties('AWS::EC2::VPCEndpoint', { VpcEndpointType: 'Gateway', ServiceName: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith(['.s3'])]) }) });
  });

  test('GIVEN the defaults WHEN synthesized THEN the outputs give the endpoint, the issuer, the load balancer\'s name and the parameter names', () => {
    const { template } = synth();
    template.hasOutput('IssuerUrl', { Value: { 'Fn::Join': ['', ['http://', loadBalancerDns(template)]] } });
    template.hasOutput('LoadBalancerDnsName', { Value: loadBalancerDns(template) });
    template.hasOutput('OidcProviderKeyParameter', { Value: `${PREFIX}/oidc-provider-key` });
    template.hasOutput('SessionTokenKeyParameter', { Value: `${PREFIX}/session-token-key` });
  });
});
