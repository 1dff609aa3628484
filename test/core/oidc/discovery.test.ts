/** The discovery documents: the spec's fields, cacheable, and only for GET or HEAD of the two paths. */
import { JWKS_PATH, OPENID_CONFIGURATION_PATH, discoveryResponse } from '../../../functions/core/oidc/discovery';
import { readIdentityProvider, type IdentityProvider } from '../../../functions/core/oidc/provider-key';
import type { ProxyRequest, ProxyResponse } from '../../../functions/core/http';
import { generateProviderKey, type ProviderKeyPem } from '../../support/provider-key';

const ISSUER = 'https://gateway.example.com';
let key: ProviderKeyPem;
let previous: ProviderKeyPem;
let provider: IdentityProvider;

beforeAll(() => {
  key = generateProviderKey();
  previous = generateProviderKey();
  const p = readIdentityProvider({
    oidcProviderKey: key.pkcs8,
    oidcProviderIssuer: ISSUER,
    oidcProviderCert: key.cert,
    oidcProviderPreviousKey: previous.publicKey,
  });
  if (!p) throw new Error('no provider');
  provider = p;
});

function request(method: string, rawPath: string, rawQuery = ''): ProxyRequest {
  return { method, rawPath, rawQuery, requestId: 'REQ1', headers: new Headers(), body: () => new ReadableStream() };
}

function json(response: ProxyResponse | undefined): unknown {
  if (!(response?.body instanceof Uint8Array)) throw new Error('expected a byte body');
  return JSON.parse(new TextDecoder().decode(response.body));
}

describe('GET /.well-known/openid-configuration', () => {
  it('names the issuer and its JWKS and says RS256 id_tokens with public subjects', async () => {
    const response = await discoveryResponse(provider, request('GET', OPENID_CONFIGURATION_PATH));
    expect(response?.status).toBe(200);
    expect(response?.headers).toMatchObject({ 'content-type': 'application/json', 'cache-control': 'public, max-age=3600', 'x-amz-request-id': 'REQ1' });
    expect(json(response)).toEqual({
      issuer: ISSUER,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti'],
    });
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('lists the current key (with x5c) first and the previous key second, cacheable for one token lifetime', async () => {
    const response = await discoveryResponse(provider, request('GET', JWKS_PATH, 'x=1'));
    expect(response?.headers['cache-control']).toBe('public, max-age=300');
    const { keys } = json(response) as { keys: Array<Record<string, unknown>> };
    expect(keys).toHaveLength(2);
    expect(keys[0]).toEqual({ ...(await provider.current.jwk()), x5c: [key.cert.replace(/-----[^-]+-----|\s/g, '')] });
    expect(keys[1]).toEqual(await provider.previous?.jwk());
    for (const k of keys) expect(k).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String), n: expect.any(String), e: 'AQAB' });
  });

  it('answers HEAD with the length and no body', async () => {
    const get = await discoveryResponse(provider, request('GET', JWKS_PATH));
    const head = await discoveryResponse(provider, request('HEAD', JWKS_PATH));
    expect(head?.body).toBeNull();
    expect(head?.headers['content-length']).toBe(String((get?.body as Uint8Array).length));
  });
});

describe('other requests', () => {
  it.each([
    ['POST', JWKS_PATH],
    ['PUT', OPENID_CONFIGURATION_PATH],
    ['GET', '/.well-known/'],
    ['GET', '/.well-known/jwks.json/'],
    ['GET', '/.well-known/openid%2Dconfiguration'],
    ['GET', '/bucket/.well-known/jwks.json'],
  ])('%s %s is left to S3 routing', async (method, path) => {
    expect(await discoveryResponse(provider, request(method, path))).toBeUndefined();
  });
});
