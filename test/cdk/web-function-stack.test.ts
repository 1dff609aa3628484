import { App, Duration } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { join } from 'node:path';
import type { S3GatewayWebFunctionProps } from '../../lib/constructs/s3-gateway-web-function';
import { WebFunctionStack } from '../../lib/web-function-stack';
import { findCycle } from './find-cycle';

/**
 * The Web Function deployment (`-c deployment=web-function`), specified on the synthesized template.
 * Bundling is skipped here (web-function-bundle.test.ts really runs esbuild).
 */

const ROOT = join(__dirname, '..', '..');
const EXAMPLE_ENV = { ASSETS_BACKEND_ACCESS_KEY_ID: 'AKIAEXAMPLE', ASSETS_BACKEND_SECRET_ACCESS_KEY: 'backend-secret', DEPLOY_KEY_SECRET: 'deploy-secret' };
const PREFIX = '/S3Gateway/Gateway';

type Json = Record<string, unknown>;

function synth(gateway: S3GatewayWebFunctionProps = { environment: EXAMPLE_ENV }): { stack: WebFunctionStack; template: Template } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new WebFunctionStack(app, 'S3Gateway', { gateway });
  return { stack, template: Template.fromStack(stack) };
}

function parameterArn(name: string): Json {
  return { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ssm:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:parameter${name}`]] };
}

function only(template: Template, type: string): [string, Json] {
  const found = Object.entries(template.findResources(type)) as [string, Json][];
  expect(found).toHaveLength(1);
  return found[0];
}

function propertiesOf(resource: Json): Json {
  return resource.Properties as Json;
}

function variablesOf(template: Template): Json {
  const [, revision] = only(template, 'AWS::Lambda::WebFunctionRevision');
  return (propertiesOf(revision).ServiceConfig as { EnvironmentVariables: Json }).EnvironmentVariables;
}

/** The gateway's execution role and every statement of the policies attached to it. */
function roleOf(template: Template): { role: Json; statements: Json[] } {
  const [, revision] = only(template, 'AWS::Lambda::WebFunctionRevision');
  const roleId = (propertiesOf(revision).ServiceConfig as { ExecutionRoleArn: { 'Fn::GetAtt': [string, string] } }).ExecutionRoleArn['Fn::GetAtt'][0];
  const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as Json[])
    .filter((p) => JSON.stringify(propertiesOf(p).Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap((p) => (propertiesOf(p) as { PolicyDocument: { Statement: Json[] } }).PolicyDocument.Statement);
  return { role: template.toJSON().Resources[roleId] as Json, statements };
}

describe('WebFunctionStack', () => {
  test('GIVEN the defaults WHEN synthesized THEN one web function runs nodejs24.x behind an ApplicationManaged home-Region endpoint serving its revision', () => {
    const { template } = synth();
    template.resourceCountIs('AWS::Lambda::WebFunction', 1);
    const [revisionId, revision] = only(template, 'AWS::Lambda::WebFunctionRevision');
    expect(propertiesOf(revision).BuildConfig).toMatchObject({ RuntimeConfig: { Runtime: 'nodejs24.x' } });
    const [, endpoint] = only(template, 'AWS::Lambda::WebFunctionEndpoint');
    expect(propertiesOf(endpoint)).toMatchObject({
      AuthType: 'ApplicationManaged',
      EndpointType: 'HomeRegion',
      RevisionWeights: [{ RevisionId: { 'Fn::GetAtt': [revisionId, 'RevisionId'] }, Weight: 100 }],
    });
    template.resourceCountIs('AWS::Lambda::Url', 0);
  });

  test('GIVEN the defaults WHEN synthesized THEN the timeout is the 900 s maximum and an environment serves 8 requests at once (large uploads)', () => {
    const { template } = synth();
    const [, revision] = only(template, 'AWS::Lambda::WebFunctionRevision');
    expect(propertiesOf(revision).ServiceConfig).toMatchObject({ TimeoutSeconds: 900, MaxConcurrencyPerEnvironment: 8 });
  });

  test('GIVEN timeout and maxConcurrencyPerEnvironment WHEN synthesized THEN the revision uses them', () => {
    const { template } = synth({ environment: EXAMPLE_ENV, timeout: Duration.minutes(5), maxConcurrencyPerEnvironment: 32 });
    const [, revision] = only(template, 'AWS::Lambda::WebFunctionRevision');
    expect(propertiesOf(revision).ServiceConfig).toMatchObject({ TimeoutSeconds: 300, MaxConcurrencyPerEnvironment: 32 });
  });

  test('GIVEN the defaults WHEN synthesized THEN the function learns parameter names and their Region, never key values, and finds its configuration itself', () => {
    const { template } = synth();
    const variables = variablesOf(template);
    expect(variables).toMatchObject({
      ...EXAMPLE_ENV,
      OIDC_PROVIDER_KEY_PARAMETER: `${PREFIX}/oidc-provider-key`,
      SESSION_TOKEN_KEY_PARAMETER: `${PREFIX}/session-token-key`,
      OIDC_PROVIDER_ISSUER_PARAMETER: `${PREFIX}/oidc-provider-issuer`,
      PARAMETER_REGION: { Ref: 'AWS::Region' },
      KEY_ROTATION: '',
      NODE_OPTIONS: '--enable-source-maps',
    });
    for (const absent of ['OIDC_PROVIDER_KEY', 'SESSION_TOKEN_KEY', 'OIDC_PROVIDER_ISSUER', 'CONFIG_PATH', 'HOST', 'PORT']) expect(variables[absent]).toBeUndefined();
    // Lambda refuses AWS_LAMBDA_* variables (but for the entry point, which stays the default index.js).
    expect(Object.keys(variables).filter((name) => name.startsWith('AWS_'))).toEqual([]);
  });

  test('GIVEN the defaults WHEN synthesized THEN no secret value is in the template: the only parameter it creates is the issuer String', () => {
    const { template } = synth();
    expect(JSON.stringify(template.toJSON())).not.toMatch(/PRIVATE KEY|BEGIN RSA/);
    template.resourceCountIs('AWS::SSM::Parameter', 1);
    template.hasResourceProperties('AWS::SSM::Parameter', { Type: 'String', Name: `${PREFIX}/oidc-provider-issuer` });
    const [keysId, keys] = only(template, 'Custom::GatewayKeys');
    expect(Object.keys(propertiesOf(keys)).sort()).toEqual(['OidcProviderKeyParameter', 'Retain', 'Rotation', 'ServiceToken', 'SessionTokenKeyParameter']);
    expect(JSON.stringify(template.toJSON())).not.toContain(`"Fn::GetAtt":["${keysId}"`);
  });

  test('GIVEN the defaults WHEN synthesized THEN the execution role may GetParameter its three parameters and nothing else beyond writing its logs', () => {
    const { template } = synth();
    const { role, statements } = roleOf(template);
    expect(statements).toEqual([
      {
        Action: 'ssm:GetParameter',
        Effect: 'Allow',
        Resource: [parameterArn(`${PREFIX}/oidc-provider-key`), parameterArn(`${PREFIX}/session-token-key`), parameterArn(`${PREFIX}/oidc-provider-issuer`)],
      },
    ]);
    expect(propertiesOf(role).ManagedPolicyArns).toEqual([
      { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole']] },
    ]);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/"kms:/);
  });

  test('GIVEN the issuer is the endpoint WHEN synthesized THEN it is https://<endpoint domain>, written to SSM after the endpoint exists, with no dependency cycle', () => {
    const { template } = synth();
    const [endpointId] = only(template, 'AWS::Lambda::WebFunctionEndpoint');
    const issuer = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [endpointId, 'DomainName'] }]] };
    template.hasResourceProperties('AWS::SSM::Parameter', { Value: issuer });
    template.hasOutput('IssuerUrl', { Value: issuer });
    template.hasOutput('EndpointUrl', { Value: issuer });
    expect(findCycle(template.toJSON().Resources as Record<string, Json>)).toBeUndefined();
  });

  test('GIVEN the keys are read at start WHEN synthesized THEN the revision is created (and replaced) after the key resource', () => {
    const { template } = synth();
    const [keysId] = only(template, 'Custom::GatewayKeys');
    const [, revision] = only(template, 'AWS::Lambda::WebFunctionRevision');
    expect(revision.DependsOn).toContain(keysId);
  });

  test('GIVEN the defaults WHEN synthesized THEN logs are kept a month in a log group of the stack', () => {
    const { template } = synth();
    const [, revision] = only(template, 'AWS::Lambda::WebFunctionRevision');
    const logGroupId = (propertiesOf(revision).ServiceConfig as { TelemetryConfig: { LoggingConfig: { LogGroup: { Ref: string } } } }).TelemetryConfig.LoggingConfig.LogGroup.Ref;
    expect(propertiesOf(template.toJSON().Resources[logGroupId] as Json).RetentionInDays).toBe(30);
  });

  test('GIVEN keyRotation WHEN synthesized THEN the keys and the revision both see it', () => {
    const { template } = synth({ environment: EXAMPLE_ENV, keyRotation: '2026-12', retainKeys: true });
    template.hasResourceProperties('Custom::GatewayKeys', { Retain: 'true', Rotation: '2026-12' });
    expect(variablesOf(template).KEY_ROTATION).toBe('2026-12');
  });

  test('GIVEN replica Regions WHEN synthesized THEN one MultiRegion endpoint serves them, and the parameters are still read from the stack Region', () => {
    const { template } = synth({ environment: EXAMPLE_ENV, replicaRegions: ['us-east-1', 'eu-west-1'] });
    const [, endpoint] = only(template, 'AWS::Lambda::WebFunctionEndpoint');
    expect(propertiesOf(endpoint)).toMatchObject({ AuthType: 'ApplicationManaged', EndpointType: 'MultiRegion', Regions: ['eu-west-1', 'us-east-1'] });
    expect(variablesOf(template).PARAMETER_REGION).toEqual({ Ref: 'AWS::Region' });
  });

  test.each(['us_east_1', 'US-EAST-1', 'mars'])('GIVEN replica Region %j WHEN synthesized THEN it is refused naming the expected shape', (region) => {
    expect(() => synth({ environment: EXAMPLE_ENV, replicaRegions: [region] })).toThrow(`replicaRegions must be Region names like "us-east-1", got "${region}"`);
  });

  test('GIVEN maxEnvironments WHEN synthesized THEN the endpoint is capped; a value below 2 is refused', () => {
    const { template } = synth({ environment: EXAMPLE_ENV, maxEnvironments: 20 });
    template.hasResourceProperties('AWS::Lambda::WebFunctionEndpoint', { ScalingConfig: Match.objectLike({ MaxEnvironments: 20 }) });
    expect(() => synth({ environment: EXAMPLE_ENV, maxEnvironments: 1 })).toThrow('maxEnvironments must be a whole number of at least 2, got 1');
    expect(() => synth({ environment: EXAMPLE_ENV, maxEnvironments: NaN })).toThrow('maxEnvironments must be a whole number of at least 2, got NaN');
  });

  test.each(['PARAMETER_REGION', 'CONFIG_PATH', 'SESSION_TOKEN_KEY', 'PORT', 'AWS_LAMBDA_NODEJS_ENTRYPOINT'])('GIVEN environment setting %s WHEN synthesized THEN it is refused', (name) => {
    expect(() => synth({ environment: { ...EXAMPLE_ENV, [name]: 'x' } })).toThrow(`environment must not set ${name}`);
  });

  test('GIVEN a configuration secret without a value WHEN synthesized THEN a warning names it', () => {
    const { stack } = synth({ environment: { DEPLOY_KEY_SECRET: 'x' } });
    Annotations.fromStack(stack).hasWarning('*', Match.stringLikeRegexp('ASSETS_BACKEND_ACCESS_KEY_ID, ASSETS_BACKEND_SECRET_ACCESS_KEY'));
  });

  test('GIVEN the local development configuration WHEN synthesized THEN it is accepted as well', () => {
    expect(() => synth({ configFile: join(ROOT, 'local', 'proxy.toml') })).not.toThrow();
  });

  test('GIVEN webFunctionName WHEN synthesized THEN the function has that name (names are unique across an account\'s Regions)', () => {
    const { template } = synth({ environment: EXAMPLE_ENV, webFunctionName: 's3-gateway-eu' });
    template.hasResourceProperties('AWS::Lambda::WebFunction', { FunctionName: 's3-gateway-eu' });
  });
});
