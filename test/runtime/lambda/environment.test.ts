import type { Environment } from '../../../functions/core/config/parse';
import { resolveEnvironment, ssmParameterReader, type ParameterReader } from '../../../functions/runtime/lambda/environment';
import { ssmEndpoint, type SsmEndpoint } from '../../../functions/runtime/lambda/ssm';
import { nodeBackend } from '../../../functions/runtime/node/backend';
import { readLambdaSettings } from '../../../functions/runtime/shared/settings';
import { startFakeSsm, type FakeSsm } from '../../support/fake-ssm';

/** The environment record a cold start assembles before parseConfig sees it. */

/** As the cold start resolves it: the parameter names the settings reader found, then their values. */
function resolve(env: Environment, read: ParameterReader): Promise<Environment> {
  return resolveEnvironment(env, readLambdaSettings(env).parameters, read);
}

const PEM = '-----BEGIN PRIVATE KEY-----\nMIIE...\n-----END PRIVATE KEY-----\n';
const SESSION_KEY = Buffer.alloc(32, 7).toString('base64');

describe('resolveEnvironment', () => {
  test('GIVEN *_PARAMETER names WHEN resolved THEN each value is read from its parameter', async () => {
    const read = jest.fn(async (name: string) => ({ '/gw/oidc': PEM, '/gw/session': SESSION_KEY, '/gw/issuer': 'https://abc.lambda-url.eu-west-1.on.aws/' })[name] ?? '');
    const env = await resolve(
      { CONFIG_PATH: 'proxy.toml', OIDC_PROVIDER_KEY_PARAMETER: '/gw/oidc', SESSION_TOKEN_KEY_PARAMETER: '/gw/session', OIDC_PROVIDER_ISSUER_PARAMETER: '/gw/issuer' },
      read,
    );
    expect(env).toMatchObject({ CONFIG_PATH: 'proxy.toml', OIDC_PROVIDER_KEY: PEM, SESSION_TOKEN_KEY: SESSION_KEY, OIDC_PROVIDER_ISSUER: 'https://abc.lambda-url.eu-west-1.on.aws/' });
    expect(read).toHaveBeenCalledTimes(3);
  });

  test('GIVEN a variable set directly WHEN resolved THEN it wins and its parameter is not read', async () => {
    const read = jest.fn(async () => 'from-ssm');
    const env = await resolve({ SESSION_TOKEN_KEY: SESSION_KEY, SESSION_TOKEN_KEY_PARAMETER: '/gw/session' }, read);
    expect(env.SESSION_TOKEN_KEY).toBe(SESSION_KEY);
    expect(read).not.toHaveBeenCalled();
  });

  test('GIVEN no parameters WHEN resolved THEN nothing is read and the record is unchanged', async () => {
    const read = jest.fn(async () => 'x');
    expect(await resolve({ PORT: '1' }, read)).toEqual({ PORT: '1' });
    expect(read).not.toHaveBeenCalled();
  });

  test('GIVEN a parameter that cannot be read WHEN resolved THEN the cold start fails', async () => {
    await expect(resolve({ SESSION_TOKEN_KEY_PARAMETER: '/gw/session' }, async () => Promise.reject(new Error('nope')))).rejects.toThrow('nope');
  });
});

describe('ssmParameterReader against an SSM endpoint', () => {
  let ssm: FakeSsm;
  const backend = nodeBackend();
  const endpoint = (): SsmEndpoint => ssmEndpoint({ AWS_REGION: 'eu-west-1', AWS_ENDPOINT_URL_SSM: ssm.endpoint, AWS_ACCESS_KEY_ID: 'AKIDLOCAL', AWS_SECRET_ACCESS_KEY: 'local', AWS_SESSION_TOKEN: 'session' });

  beforeEach(async () => {
    ssm = await startFakeSsm({ '/gw/session': { value: SESSION_KEY, type: 'SecureString', version: 1 } }, { keys: { AKIDLOCAL: 'local' } });
  });
  afterEach(() => ssm.stop());

  test('GIVEN a SecureString WHEN read THEN GetParameter, signed for ssm in the Region, asks for decryption and the plain value comes back', async () => {
    const read = ssmParameterReader(backend.client, endpoint);
    expect(await read('/gw/session')).toBe(SESSION_KEY);
    expect(ssm.calls).toEqual([{ operation: 'GetParameter', input: { Name: '/gw/session', WithDecryption: true } }]);
    expect(ssm.regions).toEqual(['eu-west-1']);
  });

  test('GIVEN a missing parameter WHEN read THEN the error names the parameter and the SSM error, and it is asked once', async () => {
    const read = ssmParameterReader(backend.client, endpoint);
    await expect(read('/gw/missing')).rejects.toThrow(/cannot read SSM parameter \/gw\/missing: ParameterNotFound: Parameter \/gw\/missing not found/);
    expect(ssm.calls).toHaveLength(1);
  });

  test('GIVEN the wrong secret WHEN read THEN SSM refuses the signature and the error says so', async () => {
    const read = ssmParameterReader(backend.client, () => ({ ...endpoint(), credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'wrong' } }));
    await expect(read('/gw/session')).rejects.toThrow(/cannot read SSM parameter \/gw\/session: InvalidSignatureException/);
    expect(ssm.calls).toHaveLength(1);
  });

  test.each([
    ['throttled twice (400 ThrottlingException)', 400, 'ThrottlingException'],
    ['failing twice with 500', 500, 'InternalServerError'],
  ])('GIVEN SSM %s WHEN read THEN the third attempt reads the value', async (_, status, type) => {
    ssm.failNext(2, status, type);
    expect(await ssmParameterReader(backend.client, endpoint)('/gw/session')).toBe(SESSION_KEY);
    expect(ssm.calls).toHaveLength(3);
  });

  test('GIVEN a 200 answer without a parameter value WHEN read THEN it is asked again', async () => {
    ssm.failNext(1, 200, 'NotAParameter');
    expect(await ssmParameterReader(backend.client, endpoint)('/gw/session')).toBe(SESSION_KEY);
    expect(ssm.calls).toHaveLength(2);
  });

  test('GIVEN SSM throttling every attempt WHEN read THEN it gives up after three, naming the throttle', async () => {
    ssm.failNext(5, 400, 'ThrottlingException');
    await expect(ssmParameterReader(backend.client, endpoint)('/gw/session')).rejects.toThrow(/cannot read SSM parameter \/gw\/session: ThrottlingException/);
    expect(ssm.calls).toHaveLength(3);
  });

  test('GIVEN a reader WHEN nothing is read THEN no endpoint is worked out (no Region or credentials needed)', () => {
    const create = jest.fn(endpoint);
    ssmParameterReader(backend.client, create);
    expect(create).not.toHaveBeenCalled();
  });

  test('GIVEN no credentials in the environment WHEN a parameter is read THEN the error says which variables are missing', async () => {
    const read = ssmParameterReader(backend.client, () => ssmEndpoint({ AWS_REGION: 'eu-west-1' }));
    await expect(read('/gw/session')).rejects.toThrow(/cannot read SSM parameter \/gw\/session: .*AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set/);
  });
});

describe('ssmEndpoint: where the SDK would send GetParameter', () => {
  const keys = { AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret' };

  test.each([
    ['the Region\'s endpoint', { AWS_REGION: 'eu-west-1' }, undefined, 'https://ssm.eu-west-1.amazonaws.com/', 'eu-west-1'],
    ['a China Region\'s', { AWS_REGION: 'cn-north-1' }, undefined, 'https://ssm.cn-north-1.amazonaws.com.cn/', 'cn-north-1'],
    ['PARAMETER_REGION over AWS_REGION', { AWS_REGION: 'eu-west-1' }, 'us-east-1', 'https://ssm.us-east-1.amazonaws.com/', 'us-east-1'],
    ['AWS_ENDPOINT_URL_SSM first', { AWS_REGION: 'eu-west-1', AWS_ENDPOINT_URL_SSM: 'http://127.0.0.1:9', AWS_ENDPOINT_URL: 'http://127.0.0.1:8' }, undefined, 'http://127.0.0.1:9/', 'eu-west-1'],
    ['then AWS_ENDPOINT_URL', { AWS_REGION: 'eu-west-1', AWS_ENDPOINT_URL: 'http://127.0.0.1:8/' }, undefined, 'http://127.0.0.1:8/', 'eu-west-1'],
  ])('GIVEN %s THEN that is the URL and the signing Region', (_, env, region, url, signingRegion) => {
    expect(ssmEndpoint({ ...keys, ...env }, region)).toMatchObject({ url, region: signingRegion });
  });

  test('GIVEN Lambda\'s credential variables THEN all three sign the call', () => {
    expect(ssmEndpoint({ ...keys, AWS_SESSION_TOKEN: 'token', AWS_REGION: 'eu-west-1' }).credentials).toEqual({ accessKeyId: 'AKID', secretAccessKey: 'secret', sessionToken: 'token' });
  });

  test('GIVEN no Region THEN it says AWS_REGION is missing', () => {
    expect(() => ssmEndpoint(keys)).toThrow('AWS_REGION is not set');
  });
});
