import { App, Duration } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayStack } from '../../lib/gateway-stack';
import { findCycle } from './find-cycle';
import type { S3GatewayProps } from '../../lib/constructs/s3-gateway';

/**
 * The deployment, specified on the synthesized template. Bundling is skipped here (one synth in
 * bundling.test.ts really runs esbuild).
 */

const ROOT = join(__dirname, '..', '..');
/** Values for the `{ env = ... }` secrets of the top-level proxy.toml. */
const EXAMPLE_ENV = { ASSETS_BACKEND_ACCESS_KEY_ID: 'AKIAEXAMPLE', ASSETS_BACKEND_SECRET_ACCESS_KEY: 'backend-secret', DEPLOY_KEY_SECRET: 'deploy-secret' };
const PREFIX = '/S3Gateway/Gateway';

type Json = Record<string, unknown>;

function synth(gateway: S3GatewayProps = { environment: EXAMPLE_ENV }): { stack: GatewayStack; template: Template } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new GatewayStack(app, 'S3Gateway', { gateway });
  return { stack, template: Template.fromStack(stack) };
}

/** The ARN CloudFormation builds for a parameter name in an environment-agnostic stack. */
function parameterArn(name: string): Json {
  return { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ssm:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:parameter${name}`]] };
}

function resourcesOf(template: Template, type: string): [string, Json][] {
  return Object.entries(template.findResources(type)) as [string, Json][];
}

/** The gateway function: the one whose environment names CONFIG_PATH. */
function gatewayFunction(template: Template): [string, Json] {
  const found = resourcesOf(template, 'AWS::Lambda::Function').filter(([, r]) => JSON.stringify(r).includes('CONFIG_PATH'));
  expect(found).toHaveLength(1);
  return found[0];
}

function keyGenerator(template: Template): [string, Json] {
  const found = resourcesOf(template, 'AWS::Lambda::Function').filter(([id]) => id.startsWith('GatewayKeysGenerator'));
  expect(found).toHaveLength(1);
  return found[0];
}

/** Every statement of every policy attached to the role of `functionId`. */
function statementsOf(template: Template, functionId: string): Json[] {
  const fn = template.toJSON().Resources[functionId] as { Properties: { Role: { 'Fn::GetAtt': [string, string] } } };
  const roleId = fn.Properties.Role['Fn::GetAtt'][0];
  return resourcesOf(template, 'AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify((p.Properties as Json).Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap(([, p]) => ((p.Properties as { PolicyDocument: { Statement: Json[] } }).PolicyDocument.Statement));
}

describe('GatewayStack', () => {
  test('GIVEN the defaults WHEN synthesized THEN a Function URL with auth NONE and invoke mode RESPONSE_STREAM targets the gateway function, without CORS', () => {
    const { template } = synth();
    const [fnId] = gatewayFunction(template);
    template.resourceCountIs('AWS::Lambda::Url', 1);
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      InvokeMode: 'RESPONSE_STREAM',
      TargetFunctionArn: { 'Fn::GetAtt': [fnId, 'Arn'] },
      Cors: Match.absent(),
    });
    template.hasResourceProperties('AWS::Lambda::Permission', { Action: 'lambda:InvokeFunctionUrl', FunctionUrlAuthType: 'NONE', Principal: '*' });
  });

  test('GIVEN the defaults WHEN synthesized THEN the function runs nodejs22.x on arm64 with 1024 MB, 15 minutes and source maps', () => {
    const { template } = synth();
    const [, fn] = gatewayFunction(template);
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      MemorySize: 1024,
      Timeout: 900,
      Handler: 'index.handler',
      Environment: { Variables: { CONFIG_PATH: '/var/task/proxy.toml', NODE_OPTIONS: '--enable-source-maps' } },
    });
  });

  test('GIVEN the defaults WHEN synthesized THEN Lambda starts node through the bundled exec wrapper, which adds the V8 flags NODE_OPTIONS cannot carry', () => {
    const { template } = synth();
    const [, fn] = gatewayFunction(template);
    expect(fn.Properties).toMatchObject({ Environment: { Variables: { AWS_LAMBDA_EXEC_WRAPPER: '/var/task/exec-wrapper.sh' } } });
  });

  test('GIVEN the defaults WHEN synthesized THEN the function learns parameter names, never key values', () => {
    const { template } = synth();
    const [, fn] = gatewayFunction(template);
    const variables = (fn.Properties as { Environment: { Variables: Json } }).Environment.Variables;
    expect(variables).toMatchObject({
      OIDC_PROVIDER_KEY_PARAMETER: `${PREFIX}/oidc-provider-key`,
      SESSION_TOKEN_KEY_PARAMETER: `${PREFIX}/session-token-key`,
      OIDC_PROVIDER_ISSUER_PARAMETER: `${PREFIX}/oidc-provider-issuer`,
    });
    for (const direct of ['OIDC_PROVIDER_KEY', 'SESSION_TOKEN_KEY', 'OIDC_PROVIDER_ISSUER']) expect(variables[direct]).toBeUndefined();
  });

  test('GIVEN the defaults WHEN synthesized THEN no secret value is anywhere in the template', () => {
    const { template } = synth();
    const json = JSON.stringify(template.toJSON());
    expect(json).not.toMatch(/PRIVATE KEY|BEGIN RSA/);
    // CloudFormation cannot create SecureStrings; the only parameter in the template is the issuer String.
    template.resourceCountIs('AWS::SSM::Parameter', 1);
    template.hasResourceProperties('AWS::SSM::Parameter', { Type: 'String', Name: `${PREFIX}/oidc-provider-issuer` });
    // The key resource is given names only, and nothing reads attributes from it.
    const [[keysId, keys]] = resourcesOf(template, 'Custom::GatewayKeys');
    expect(Object.keys(keys.Properties as Json).sort()).toEqual(['OidcProviderKeyParameter', 'Retain', 'Rotation', 'ServiceToken', 'SessionTokenKeyParameter']);
    expect(json).not.toContain(`"Fn::GetAtt":["${keysId}"`);
    const outputs = JSON.stringify(template.toJSON().Outputs);
    expect(outputs).not.toContain(keysId);
  });

  test('GIVEN the defaults WHEN synthesized THEN the function may GetParameter its three parameters and nothing else in SSM or KMS', () => {
    const { template } = synth();
    const [fnId] = gatewayFunction(template);
    const statements = statementsOf(template, fnId);
    expect(statements).toEqual([
      {
        Action: 'ssm:GetParameter',
        Effect: 'Allow',
        Resource: [parameterArn(`${PREFIX}/oidc-provider-key`), parameterArn(`${PREFIX}/session-token-key`), parameterArn(`${PREFIX}/oidc-provider-issuer`)],
      },
    ]);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/"kms:/);
  });

  test('GIVEN the defaults WHEN synthesized THEN the key generator may put and delete exactly the two key parameters, and read none', () => {
    const { template } = synth();
    const [generatorId] = keyGenerator(template);
    expect(statementsOf(template, generatorId)).toEqual([
      {
        Action: ['ssm:PutParameter', 'ssm:DeleteParameter'],
        Effect: 'Allow',
        Resource: [parameterArn(`${PREFIX}/oidc-provider-key`), parameterArn(`${PREFIX}/session-token-key`)],
      },
    ]);
    // The provider framework only invokes the generator.
    const framework = resourcesOf(template, 'AWS::Lambda::Function').find(([id]) => id.includes('ProviderframeworkonEvent'));
    expect(framework).toBeDefined();
    const frameworkActions = statementsOf(template, framework?.[0] ?? '').map((s) => s.Action);
    expect(frameworkActions.flat()).toEqual(['lambda:InvokeFunction', 'lambda:GetFunction']);
  });

  test('GIVEN the defaults WHEN synthesized THEN the key generator is a bundled-SDK nodejs22.x arm64 function', () => {
    const { template } = synth();
    const [, generator] = keyGenerator(template);
    expect(generator.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Handler: 'index.handler' });
  });

  test('GIVEN the issuer is the function URL WHEN synthesized THEN it is published through an SSM String written after the URL, with no dependency cycle', () => {
    const { template } = synth();
    const [urlId] = resourcesOf(template, 'AWS::Lambda::Url')[0];
    const issuer = { 'Fn::Join': ['', ['https://', { 'Fn::Select': [2, { 'Fn::Split': ['/', { 'Fn::GetAtt': [urlId, 'FunctionUrl'] }] }] }]] };
    template.hasResourceProperties('AWS::SSM::Parameter', { Value: issuer });
    template.hasOutput('IssuerUrl', { Value: issuer });
    expect(findCycle(template.toJSON().Resources as Record<string, Json>)).toBeUndefined();
  });

  test('GIVEN the keys are read at cold start WHEN synthesized THEN the function is created (and updated) after the key resource', () => {
    const { template } = synth();
    const [keysId] = resourcesOf(template, 'Custom::GatewayKeys')[0];
    const [, fn] = gatewayFunction(template);
    expect(fn.DependsOn).toContain(keysId);
  });

  test('GIVEN the defaults WHEN synthesized THEN logs are kept a month and the keys are deleted with the stack', () => {
    const { template } = synth();
    const [, fn] = gatewayFunction(template);
    const logGroupId = ((fn.Properties as { LoggingConfig: { LogGroup: { Ref: string } } }).LoggingConfig.LogGroup.Ref);
    expect((template.toJSON().Resources[logGroupId] as { Properties: Json }).Properties.RetentionInDays).toBe(30);
    template.hasResourceProperties('Custom::GatewayKeys', { Retain: 'false', Rotation: '' });
  });

  test('GIVEN the defaults WHEN synthesized THEN the outputs give the endpoint, the issuer and the parameter names', () => {
    const { template } = synth();
    const [urlId] = resourcesOf(template, 'AWS::Lambda::Url')[0];
    template.hasOutput('EndpointUrl', { Value: { 'Fn::GetAtt': [urlId, 'FunctionUrl'] } });
    template.hasOutput('OidcProviderKeyParameter', { Value: `${PREFIX}/oidc-provider-key` });
    template.hasOutput('SessionTokenKeyParameter', { Value: `${PREFIX}/session-token-key` });
    template.hasOutput('IssuerParameter', { Value: `${PREFIX}/oidc-provider-issuer` });
  });

  test('GIVEN retainKeys and keyRotation WHEN synthesized THEN the key resource keeps its parameters and the function sees the rotation', () => {
    const { template } = synth({ environment: EXAMPLE_ENV, retainKeys: true, keyRotation: '2026-12' });
    template.hasResourceProperties('Custom::GatewayKeys', { Retain: 'true', Rotation: '2026-12' });
    const [, fn] = gatewayFunction(template);
    expect(fn.Properties).toMatchObject({ Environment: { Variables: { KEY_ROTATION: '2026-12' } } });
  });

  test('GIVEN a parameterPrefix WHEN synthesized THEN every parameter and permission uses it', () => {
    const { template } = synth({ environment: EXAMPLE_ENV, parameterPrefix: '/gw/prod' });
    template.hasResourceProperties('Custom::GatewayKeys', { OidcProviderKeyParameter: '/gw/prod/oidc-provider-key', SessionTokenKeyParameter: '/gw/prod/session-token-key' });
    const [fnId] = gatewayFunction(template);
    expect(JSON.stringify(statementsOf(template, fnId))).toContain(':parameter/gw/prod/oidc-provider-issuer');
  });

  test.each(['gw/prod', '/gw/prod/', '/gw prod', ''])('GIVEN parameterPrefix %j WHEN synthesized THEN it is refused with the expected shape', (prefix) => {
    expect(() => synth({ environment: EXAMPLE_ENV, parameterPrefix: prefix })).toThrow(/parameterPrefix must look like "\/s3-gateway\/prod"/);
  });

  test('GIVEN memorySize and timeout WHEN synthesized THEN the function uses them', () => {
    const { template } = synth({ environment: EXAMPLE_ENV, memorySize: 2048, timeout: Duration.minutes(5) });
    const [, fn] = gatewayFunction(template);
    expect(fn.Properties).toMatchObject({ MemorySize: 2048, Timeout: 300 });
  });

  test('GIVEN environment values for the configuration secrets WHEN synthesized THEN the function receives them', () => {
    const { template } = synth();
    const [, fn] = gatewayFunction(template);
    expect(fn.Properties).toMatchObject({ Environment: { Variables: EXAMPLE_ENV } });
  });

  test('GIVEN a configuration secret without a value WHEN synthesized THEN a warning names it', () => {
    const { stack } = synth({ environment: { DEPLOY_KEY_SECRET: 'x' } });
    Annotations.fromStack(stack).hasWarning('*', Match.stringLikeRegexp('ASSETS_BACKEND_ACCESS_KEY_ID, ASSETS_BACKEND_SECRET_ACCESS_KEY'));
  });

  test.each(['CONFIG_PATH', 'SESSION_TOKEN_KEY', 'OIDC_PROVIDER_ISSUER_PARAMETER', 'AWS_REGION'])('GIVEN environment setting %s WHEN synthesized THEN it is refused', (name) => {
    expect(() => synth({ environment: { ...EXAMPLE_ENV, [name]: 'x' } })).toThrow(`environment must not set ${name}`);
  });

  describe('configuration file', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gateway-cdk-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    test('GIVEN an invalid configuration WHEN synthesized THEN synth fails with the file and the problem', () => {
      const file = join(dir, 'bad.toml');
      writeFileSync(file, '[[buckets]]\nname = "b"\nbackend_type = "ftp"\n[buckets.backend_options]\n');
      expect(() => synth({ configFile: file })).toThrow(/bad\.toml: Invalid configuration:[\s\S]*"ftp" is not one of/);
    });

    test('GIVEN a missing configuration WHEN synthesized THEN synth fails naming the path and the -c config option', () => {
      expect(() => synth({ configFile: join(dir, 'nope.toml') })).toThrow(/Cannot read the gateway configuration .*nope\.toml.*-c config=PATH/);
    });

    test('GIVEN the local development configuration WHEN synthesized THEN it is accepted as well', () => {
      expect(() => synth({ configFile: join(ROOT, 'local', 'proxy.toml') })).not.toThrow();
    });
  });

  test('GIVEN the defaults WHEN synthesized THEN the stack has this shape', () => {
    const { template } = synth();
    const shape = Object.entries(template.toJSON().Resources as Record<string, { Type: string }>).map(([id, r]) => `${r.Type} ${id}`);
    expect(shape.sort()).toMatchSnapshot();
  });
});

test('GIVEN resources that reference each other WHEN checked for cycles THEN the cycle is found (the check itself works)', () => {
  const resources = {
    Fn: { Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] } }, DependsOn: ['Policy'] },
    Role: { Properties: {} },
    Policy: { Properties: { Resource: { Ref: 'Issuer' } } },
    Url: { Properties: { Target: { 'Fn::GetAtt': ['Fn', 'Arn'] } } },
    Issuer: { Properties: { Value: { 'Fn::Sub': '${Url.FunctionUrl}' } } },
  };
  expect(findCycle(resources)).toEqual(['Fn', 'Policy', 'Issuer', 'Url', 'Fn']);
});
