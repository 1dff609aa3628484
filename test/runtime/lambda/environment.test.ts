import { SSMClient } from '@aws-sdk/client-ssm';
import type { Environment } from '../../../functions/core/config/parse';
import { resolveEnvironment, ssmParameterReader, type ParameterReader } from '../../../functions/runtime/lambda/environment';
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
  const client = (): SSMClient => new SSMClient({ endpoint: ssm.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' }, maxAttempts: 1 });

  beforeEach(async () => {
    ssm = await startFakeSsm({ '/gw/session': { value: SESSION_KEY, type: 'SecureString', version: 1 } });
  });
  afterEach(() => ssm.stop());

  test('GIVEN a SecureString WHEN read THEN GetParameter asks for decryption and the plain value comes back', async () => {
    const read = ssmParameterReader(client);
    expect(await read('/gw/session')).toBe(SESSION_KEY);
    expect(ssm.calls).toEqual([{ operation: 'GetParameter', input: { Name: '/gw/session', WithDecryption: true } }]);
  });

  test('GIVEN a missing parameter WHEN read THEN the error names the parameter and the SSM error', async () => {
    const read = ssmParameterReader(client);
    await expect(read('/gw/missing')).rejects.toThrow(/cannot read SSM parameter \/gw\/missing: ParameterNotFound/);
  });

  test('GIVEN a reader WHEN nothing is read THEN no client is created (no region or credentials needed)', () => {
    const create = jest.fn(client);
    ssmParameterReader(create);
    expect(create).not.toHaveBeenCalled();
  });
});
