/**
 * Ceph RGW's IAM API (OpenID Connect providers and roles), called as aws-cli would: a SigV4-signed form POST
 * with the RGW user's keys. The user needs the caps `oidc-provider=*;roles=*` (startRgw({ sts: true })).
 * RGW (Pacific) wants policy JSON without spaces (backends.md), so policies are passed as objects and
 * serialized compactly here.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import type { Rgw } from './rgw';
import { Sha256 } from './raw-request';

export interface IamAnswer {
  readonly status: number;
  readonly body: string;
}

/** One IAM action; resolves with the answer, rejects on a non-2xx status with the body. */
export async function rgwIam(rgw: Rgw, params: Record<string, string>): Promise<IamAnswer> {
  const url = new URL(rgw.endpoint);
  const body = new URLSearchParams({ Version: '2010-05-08', ...params }).toString();
  const signer = new SignatureV4({
    credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
    region: rgw.region,
    service: 'iam',
    sha256: Sha256,
  });
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: '/',
    headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body,
  });
  const response = await fetch(`${rgw.endpoint}/`, { method: 'POST', headers: signed.headers, body });
  const text = await response.text();
  if (!response.ok) throw new Error(`RGW IAM ${params.Action} answered ${response.status}: ${text}`);
  return { status: response.status, body: text };
}

/**
 * Registers an OpenID Connect provider: RGW then trusts tokens whose `iss` is `url`, whose `aud` is one of
 * `clientIds`, and whose signing certificate (JWKS `x5c`) has one of the SHA-1 `thumbprints` (hex).
 */
export async function createOpenIdConnectProvider(rgw: Rgw, url: string, clientIds: readonly string[], thumbprints: readonly string[]): Promise<string> {
  const params: Record<string, string> = { Action: 'CreateOpenIDConnectProvider', Url: url };
  clientIds.forEach((id, i) => (params[`ClientIDList.member.${i + 1}`] = id));
  thumbprints.forEach((t, i) => (params[`ThumbprintList.member.${i + 1}`] = t));
  const answer = await rgwIam(rgw, params);
  return xmlText(answer.body, 'OpenIDConnectProviderArn');
}

export type PolicyDocument = Readonly<Record<string, unknown>>;

/** Creates a role with a trust policy; resolves with its ARN. */
export async function createRole(rgw: Rgw, name: string, trustPolicy: PolicyDocument): Promise<string> {
  const answer = await rgwIam(rgw, { Action: 'CreateRole', RoleName: name, Path: '/', AssumeRolePolicyDocument: JSON.stringify(trustPolicy) });
  return xmlText(answer.body, 'Arn');
}

export async function putRolePolicy(rgw: Rgw, role: string, policyName: string, policy: PolicyDocument): Promise<void> {
  await rgwIam(rgw, { Action: 'PutRolePolicy', RoleName: role, PolicyName: policyName, PolicyDocument: JSON.stringify(policy) });
}

export async function updateAssumeRolePolicy(rgw: Rgw, role: string, trustPolicy: PolicyDocument): Promise<void> {
  await rgwIam(rgw, { Action: 'UpdateAssumeRolePolicy', RoleName: role, PolicyDocument: JSON.stringify(trustPolicy) });
}

/**
 * A trust policy admitting web identities from `issuer` (RGW keys conditions on the issuer without its
 * scheme: `<host[:port][/path]>:sub`, and `:app_id` for the audience) for the given subjects and audience.
 */
export function webIdentityTrustPolicy(issuer: string, subjects: readonly string[], audience: string): PolicyDocument {
  const idp = issuer.replace(/^https?:\/\//, '');
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { Federated: [`arn:aws:iam:::oidc-provider/${idp}`] },
        Action: ['sts:AssumeRoleWithWebIdentity'],
        Condition: { StringEquals: { [`${idp}:sub`]: subjects, [`${idp}:app_id`]: audience } },
      },
    ],
  };
}

function xmlText(xml: string, element: string): string {
  const match = new RegExp(`<${element}>([^<]*)</${element}>`).exec(xml);
  if (!match) throw new Error(`no <${element}> in RGW's answer: ${xml}`);
  return match[1];
}
