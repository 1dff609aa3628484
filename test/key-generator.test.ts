import { SSMClient } from '@aws-sdk/client-ssm';
import type { CdkCustomResourceEvent } from 'aws-lambda';
import { createPrivateKey } from 'node:crypto';
import { generateKeys, onEvent } from '../functions/key-generator';
import { startFakeSsm, type FakeSsm } from './support/fake-ssm';

/** The key generator writes the keys into SSM SecureStrings and never lets one out of Lambda. */

const OIDC = '/S3Gateway/Gateway/oidc-provider-key';
const SESSION = '/S3Gateway/Gateway/session-token-key';

function properties(overrides: Record<string, string> = {}): Record<string, string> {
  return { ServiceToken: 'arn:aws:lambda:us-east-1:000000000000:function:provider', OidcProviderKeyParameter: OIDC, SessionTokenKeyParameter: SESSION, Rotation: '', Retain: 'false', ...overrides };
}

function event(type: 'Create' | 'Update' | 'Delete', props = properties(), old = properties()): CdkCustomResourceEvent {
  const common = {
    ServiceToken: props.ServiceToken,
    ResponseURL: 'https://example.invalid/response',
    StackId: 'arn:aws:cloudformation:us-east-1:000000000000:stack/S3Gateway/1',
    RequestId: 'r1',
    LogicalResourceId: 'Keys',
    ResourceType: 'Custom::GatewayKeys',
    ResourceProperties: props as never,
  };
  if (type === 'Create') return { ...common, RequestType: 'Create' };
  if (type === 'Update') return { ...common, RequestType: 'Update', PhysicalResourceId: `${OIDC},${SESSION}`, OldResourceProperties: old as never };
  return { ...common, RequestType: 'Delete', PhysicalResourceId: `${OIDC},${SESSION}` };
}

let ssm: FakeSsm;
let client: SSMClient;

beforeEach(async () => {
  ssm = await startFakeSsm();
  client = new SSMClient({ endpoint: ssm.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' }, maxAttempts: 1 });
});
afterEach(async () => {
  client.destroy();
  await ssm.stop();
});

describe('generateKeys', () => {
  test('WHEN called THEN an RSA 2048 PKCS#8 PEM and 32 random bytes in base64', () => {
    const keys = generateKeys();
    const key = createPrivateKey(keys.oidcProviderKey);
    expect(keys.oidcProviderKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(Buffer.from(keys.sessionTokenKey, 'base64')).toHaveLength(32);
    expect(generateKeys().sessionTokenKey).not.toBe(keys.sessionTokenKey);
  });
});

describe('key generator custom resource', () => {
  test('GIVEN Create WHEN handled THEN both keys are SecureStrings in SSM and the response carries only the names', async () => {
    const response = await onEvent(event('Create'), client);
    expect(response).toEqual({ PhysicalResourceId: `${OIDC},${SESSION}` });
    expect(ssm.parameters.get(OIDC)?.type).toBe('SecureString');
    expect(ssm.parameters.get(SESSION)?.type).toBe('SecureString');
    expect(createPrivateKey(ssm.parameters.get(OIDC)?.value ?? '').asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(Buffer.from(ssm.parameters.get(SESSION)?.value ?? '', 'base64')).toHaveLength(32);
  });

  test('GIVEN parameters that already exist (a retried Create, retained keys) WHEN Create is handled THEN their values are kept', async () => {
    ssm.parameters.set(SESSION, { value: 'kept', type: 'SecureString', version: 3 });
    await onEvent(event('Create'), client);
    expect(ssm.parameters.get(SESSION)?.value).toBe('kept');
    expect(ssm.parameters.has(OIDC)).toBe(true);
  });

  test('GIVEN an Update with the same rotation WHEN handled THEN the keys are untouched', async () => {
    await onEvent(event('Create'), client);
    const before = ssm.parameters.get(SESSION);
    await onEvent(event('Update', properties({ Retain: 'true' })), client);
    expect(ssm.parameters.get(SESSION)).toBe(before);
  });

  test('GIVEN an Update with a new rotation WHEN handled THEN both keys are replaced in place', async () => {
    await onEvent(event('Create'), client);
    const before = { oidc: ssm.parameters.get(OIDC)?.value, session: ssm.parameters.get(SESSION)?.value };
    const response = await onEvent(event('Update', properties({ Rotation: '2026-12' })), client);
    expect(response.PhysicalResourceId).toBe(`${OIDC},${SESSION}`);
    expect(ssm.parameters.get(OIDC)?.value).not.toBe(before.oidc);
    expect(ssm.parameters.get(SESSION)?.value).not.toBe(before.session);
    expect(ssm.parameters.get(SESSION)?.version).toBe(2);
  });

  test('GIVEN Delete WHEN handled THEN both parameters are deleted, and missing ones are not an error', async () => {
    await onEvent(event('Create'), client);
    ssm.parameters.delete(OIDC);
    await onEvent(event('Delete'), client);
    expect(ssm.parameters.size).toBe(0);
  });

  test('GIVEN Delete with Retain WHEN handled THEN the parameters stay', async () => {
    await onEvent(event('Create'), client);
    await onEvent(event('Delete', properties({ Retain: 'true' })), client);
    expect([...ssm.parameters.keys()].sort()).toEqual([OIDC, SESSION]);
  });

  test('GIVEN a parameter name that is not an SSM path WHEN handled THEN it fails naming the field', async () => {
    await expect(onEvent(event('Create', properties({ SessionTokenKeyParameter: 'no-slash' })), client)).rejects.toThrow('SessionTokenKeyParameter');
  });

  test('GIVEN any event WHEN logged THEN no key value appears in the logs', async () => {
    const lines: string[] = [];
    const spy = jest.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    try {
      await onEvent(event('Create'), client);
      await onEvent(event('Update', properties({ Rotation: 'x' })), client);
    } finally {
      spy.mockRestore();
    }
    const logs = lines.join('\n');
    expect(logs).toContain(SESSION);
    expect(logs).not.toContain('PRIVATE KEY');
    expect(logs).not.toContain(ssm.parameters.get(SESSION)?.value ?? '<none>');
  });
});
