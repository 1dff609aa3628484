/**
 * The stack's key generator: the onEvent handler of a provider-framework custom resource. It generates the
 * gateway's two keys inside Lambda and writes them straight into SSM SecureString parameters, because
 * CloudFormation cannot create SecureStrings and a key must never appear in the template, its outputs or a
 * custom resource's attributes. Nothing it returns or logs holds a key.
 *
 * Properties: OidcProviderKeyParameter and SessionTokenKeyParameter (parameter names), Rotation (changing it
 * regenerates both keys) and Retain ("true" keeps the parameters when the resource is deleted).
 */
import { DeleteParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { CdkCustomResourceEvent, CdkCustomResourceResponse } from 'aws-lambda';
import { generateKeyPairSync, randomBytes } from 'node:crypto';

export interface KeyResourceProperties {
  readonly oidcProviderKeyParameter: string;
  readonly sessionTokenKeyParameter: string;
  readonly rotation: string;
  readonly retain: boolean;
}

/** The two generated values. */
export interface GatewayKeys {
  /** RSA 2048 private key, PKCS#8 PEM: signs the JWTs the gateway mints as an OIDC provider. */
  readonly oidcProviderKey: string;
  /** 32 random bytes, base64: the AES-256-GCM key sealing STS session tokens. */
  readonly sessionTokenKey: string;
}

/** Sends one SSM command; injected so tests can point the real client at a local SSM. */
export type Ssm = Pick<SSMClient, 'send'>;

export function generateKeys(): GatewayKeys {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { oidcProviderKey: privateKey, sessionTokenKey: randomBytes(32).toString('base64') };
}

export async function onEvent(event: CdkCustomResourceEvent, ssm: Ssm): Promise<CdkCustomResourceResponse> {
  const props = readProperties(event.ResourceProperties);
  const physicalResourceId = `${props.oidcProviderKeyParameter},${props.sessionTokenKeyParameter}`;
  switch (event.RequestType) {
    case 'Create':
      await writeKeys(ssm, props, false);
      return { PhysicalResourceId: physicalResourceId };
    case 'Update': {
      const old = readProperties(event.OldResourceProperties);
      const renamed = old.oidcProviderKeyParameter !== props.oidcProviderKeyParameter || old.sessionTokenKeyParameter !== props.sessionTokenKeyParameter;
      // New names are a new resource (CloudFormation then deletes the old one); a new Rotation replaces the keys.
      if (renamed) await writeKeys(ssm, props, false);
      else if (old.rotation !== props.rotation) await writeKeys(ssm, props, true);
      return { PhysicalResourceId: physicalResourceId };
    }
    case 'Delete':
      if (!props.retain) await deleteKeys(ssm, props);
      else log('kept the key parameters (retainKeys)', props);
      return { PhysicalResourceId: event.PhysicalResourceId };
  }
}

/**
 * Writes fresh keys. Without `overwrite`, a parameter that already exists keeps its value: a retried Create
 * and a stack re-created over retained keys both keep working keys instead of failing.
 */
async function writeKeys(ssm: Ssm, props: KeyResourceProperties, overwrite: boolean): Promise<void> {
  const keys = generateKeys();
  await Promise.all([
    putSecure(ssm, props.oidcProviderKeyParameter, keys.oidcProviderKey, 'S3 gateway OIDC provider signing key (RSA 2048, PKCS#8 PEM)', overwrite),
    putSecure(ssm, props.sessionTokenKeyParameter, keys.sessionTokenKey, 'S3 gateway STS session token key (32 bytes, base64)', overwrite),
  ]);
  log(overwrite ? 'rotated the keys' : 'wrote the keys', props);
}

async function putSecure(ssm: Ssm, name: string, value: string, description: string, overwrite: boolean): Promise<void> {
  try {
    await ssm.send(new PutParameterCommand({ Name: name, Value: value, Type: 'SecureString', Description: description, Overwrite: overwrite, Tier: 'Standard' }));
  } catch (err) {
    if (!overwrite && err instanceof Error && err.name === 'ParameterAlreadyExists') {
      log(`kept the existing value of ${name}`, undefined);
      return;
    }
    // Only the error's name: SSM validation messages can quote the rejected value, which is a key.
    throw new Error(`cannot write SSM parameter ${name}: ${err instanceof Error ? err.name : 'error'}`);
  }
}

async function deleteKeys(ssm: Ssm, props: KeyResourceProperties): Promise<void> {
  for (const name of [props.oidcProviderKeyParameter, props.sessionTokenKeyParameter]) {
    try {
      await ssm.send(new DeleteParameterCommand({ Name: name }));
    } catch (err) {
      if (!(err instanceof Error && err.name === 'ParameterNotFound')) throw new Error(`cannot delete SSM parameter ${name}: ${err instanceof Error ? err.name : 'error'}`);
    }
  }
  log('deleted the key parameters', props);
}

export function readProperties(raw: Record<string, unknown>): KeyResourceProperties {
  const name = (field: string): string => {
    const value = raw[field];
    if (typeof value !== 'string' || !/^\/[A-Za-z0-9_.\-/]+$/.test(value)) throw new TypeError(`${field} must be an SSM parameter name starting with "/", got ${JSON.stringify(value)}`);
    return value;
  };
  return {
    oidcProviderKeyParameter: name('OidcProviderKeyParameter'),
    sessionTokenKeyParameter: name('SessionTokenKeyParameter'),
    rotation: typeof raw.Rotation === 'string' ? raw.Rotation : '',
    retain: raw.Retain === 'true' || raw.Retain === true,
  };
}

/** Logs what was done to which parameter names; never a value. */
function log(message: string, props: KeyResourceProperties | undefined): void {
  const names = props ? { parameters: [props.oidcProviderKeyParameter, props.sessionTokenKeyParameter] } : {};
  console.log(JSON.stringify({ message, ...names }));
}

let client: SSMClient | undefined;

export const handler = (event: CdkCustomResourceEvent): Promise<CdkCustomResourceResponse> => onEvent(event, (client ??= new SSMClient({})));
