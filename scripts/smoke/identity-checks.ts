import { describe, element } from './answers';
import type { Outcome, SmokeOptions } from './types';
import type { Reply, SmokeClient } from './client';

/**
 * The smoke checks of the gateway's identity endpoints: the OIDC discovery documents it publishes as an
 * identity provider, and an STS round trip (AssumeRoleWithWebIdentity, then GetCallerIdentity signed with
 * the temporary credentials).
 */

/** The OIDC discovery document and the JWKS it names; not checked when the gateway publishes none. */
export async function discovery(client: SmokeClient, seen: (reply: Reply) => Reply): Promise<[Outcome, string]> {
  const config = seen(await client.send({ method: 'GET', target: '/.well-known/openid-configuration' }));
  if (config.status === 404) return ['not checked', '404: this gateway has no OIDC provider configured'];
  if (config.status !== 200) return ['broken', `openid-configuration answered ${describe(config)}`];
  let document: { issuer?: unknown; jwks_uri?: unknown };
  try {
    document = JSON.parse(config.body.toString('utf8')) as typeof document;
  } catch {
    return ['broken', 'openid-configuration is not JSON'];
  }
  if (typeof document.issuer !== 'string' || typeof document.jwks_uri !== 'string') return ['broken', 'openid-configuration has no issuer or jwks_uri'];
  const jwks = seen(await client.send({ method: 'GET', target: new URL(document.jwks_uri).pathname }));
  let keys = 0;
  try {
    keys = (JSON.parse(jwks.body.toString('utf8')) as { keys?: unknown[] }).keys?.length ?? 0;
  } catch {
    // counted as none
  }
  if (jwks.status !== 200 || keys === 0) return ['broken', `JWKS at ${new URL(document.jwks_uri).pathname} answered ${describe(jwks)} with ${keys} keys`];
  const same = document.issuer.replace(/\/+$/, '') === client.base;
  return ['works', `issuer ${document.issuer}${same ? '' : ` (not this endpoint, ${client.base}: tokens name that issuer)`}, JWKS with ${keys} key${keys === 1 ? '' : 's'}`];
}

/** AssumeRoleWithWebIdentity with the given role and token, then GetCallerIdentity with what it returned. */
export async function sts(client: SmokeClient, options: SmokeOptions, seen: (reply: Reply) => Reply): Promise<[Outcome, string]> {
  if (options.roleArn === undefined || options.webIdentityToken === undefined) return ['not checked', 'no role and token given (--role-arn, --web-identity-token)'];
  const form = (params: Record<string, string>): Buffer => Buffer.from(new URLSearchParams(params).toString());
  const assume = seen(
    await client.send({
      method: 'POST',
      target: '/',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: form({ Action: 'AssumeRoleWithWebIdentity', Version: '2011-06-15', RoleArn: options.roleArn, RoleSessionName: 'smoke', WebIdentityToken: options.webIdentityToken, DurationSeconds: '900' }),
    }),
  );
  const xml = assume.body.toString('utf8');
  if (assume.status !== 200) return ['broken', `AssumeRoleWithWebIdentity answered ${describe(assume)}`];
  const accessKeyId = element(xml, 'AccessKeyId');
  const secretAccessKey = element(xml, 'SecretAccessKey');
  const sessionToken = element(xml, 'SessionToken');
  if (!accessKeyId || !secretAccessKey || !sessionToken) return ['broken', 'AssumeRoleWithWebIdentity answered 200 without credentials'];
  const who = seen(
    await client.send({
      method: 'POST',
      target: '/',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: form({ Action: 'GetCallerIdentity', Version: '2011-06-15' }),
      sign: { credentials: { accessKeyId, secretAccessKey, sessionToken }, region: options.region, service: 'sts' },
    }),
  );
  const arn = element(who.body.toString('utf8'), 'Arn');
  if (who.status !== 200 || arn === undefined) return ['broken', `GetCallerIdentity with the temporary credentials answered ${describe(who)}`];
  return ['works', `AssumeRoleWithWebIdentity gave ${accessKeyId.slice(0, 4)}… credentials; GetCallerIdentity: ${arn}`];
}
