/**
 * The OIDC discovery endpoints (spec: "OIDC discovery endpoints", "Discovery documents"). Token services
 * fetch them to verify the gateway's JWTs, so they are public and answer without authentication.
 */
import type { ProxyRequest, ProxyResponse } from '../http';
import type { IdentityProvider, PublicJwk } from './provider-key';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/.well-known/jwks.json';

/**
 * How long verifiers may cache the documents. The JWKS stays short (one token lifetime), so a rotated key
 * is picked up quickly; the configuration document only changes with the issuer.
 */
const CONFIGURATION_MAX_AGE = 3600;
const JWKS_MAX_AGE = 300;

export interface OpenIdConfiguration {
  readonly issuer: string;
  readonly jwks_uri: string;
  readonly response_types_supported: readonly string[];
  readonly subject_types_supported: readonly string[];
  readonly id_token_signing_alg_values_supported: readonly string[];
  readonly claims_supported: readonly string[];
}

export function openIdConfiguration(provider: IdentityProvider): OpenIdConfiguration {
  return {
    issuer: provider.issuer,
    jwks_uri: `${provider.issuer}${JWKS_PATH}`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti'],
  };
}

/** The JWKS: the current key first (Ceph RGW reads only the first), then the previous one during a rotation. */
export async function jwks(provider: IdentityProvider): Promise<{ readonly keys: readonly PublicJwk[] }> {
  const keys = [await provider.current.jwk()];
  if (provider.previous) keys.push(await provider.previous.jwk());
  return { keys };
}

/**
 * The discovery response for `request`, or undefined when it is not a GET or HEAD of one of the two
 * documents (it is then routed as an S3 request). The query string is ignored.
 */
export async function discoveryResponse(provider: IdentityProvider, request: ProxyRequest): Promise<ProxyResponse | undefined> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  let document: unknown;
  let maxAge: number;
  if (request.rawPath === OPENID_CONFIGURATION_PATH) {
    document = openIdConfiguration(provider);
    maxAge = CONFIGURATION_MAX_AGE;
  } else if (request.rawPath === JWKS_PATH) {
    document = await jwks(provider);
    maxAge = JWKS_MAX_AGE;
  } else {
    return undefined;
  }
  const body = new TextEncoder().encode(JSON.stringify(document));
  const headers = {
    'content-type': 'application/json',
    'cache-control': `public, max-age=${maxAge}`,
    'access-control-allow-origin': '*',
    'x-amz-request-id': request.requestId,
  };
  if (request.method === 'HEAD') return { status: 200, headers: Object.assign({}, headers, { 'content-length': String(body.length) }), body: null };
  return { status: 200, headers, body };
}
