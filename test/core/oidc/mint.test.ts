/** The minted web-identity token verifies against the published JWKS, with exactly the decided claims. */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { jwks } from '../../../functions/core/oidc/discovery';
import { TOKEN_LIFETIME_SECONDS, mintToken } from '../../../functions/core/oidc/mint';
import { readIdentityProvider, type IdentityProvider } from '../../../functions/core/oidc/provider-key';
import { generateProviderKey, type ProviderKeyPem } from '../../support/provider-key';

const ISSUER = 'https://gateway.example.com';
const NOW = Date.UTC(2030, 0, 2, 3, 4, 5, 678);

let key: ProviderKeyPem;
let previous: ProviderKeyPem;

beforeAll(() => {
  key = generateProviderKey();
  previous = generateProviderKey();
});

function provider(extra: { previous?: string } = {}): IdentityProvider {
  const p = readIdentityProvider({ oidcProviderKey: key.pkcs1, oidcProviderIssuer: ISSUER, oidcProviderPreviousKey: extra.previous });
  if (p === undefined) throw new Error('no provider');
  return p;
}

async function verify(p: IdentityProvider, token: string, audience = 'sts.amazonaws.com') {
  const set = createLocalJWKSet((await jwks(p)) as unknown as JSONWebKeySet);
  return jwtVerify(token, set, { issuer: ISSUER, audience, algorithms: ['RS256'], currentDate: new Date(NOW) });
}

describe('mintToken', () => {
  it('signs RS256 with kid = the key thumbprint, verifiable with the JWKS', async () => {
    const p = provider();
    const token = await mintToken(p, { subject: 's3-proxy', audience: 'sts.amazonaws.com', now: NOW });
    const { protectedHeader } = await verify(p, token);
    expect(protectedHeader).toEqual({ alg: 'RS256', typ: 'JWT', kid: await p.current.kid() });
  });

  it('carries iss, sub, aud, iat = nbf = now, exp 300 s later and a unique jti', async () => {
    const p = provider();
    const first = await verify(p, await mintToken(p, { subject: 'repo:org/app', audience: 'rgw', now: NOW }), 'rgw');
    const second = await verify(p, await mintToken(p, { subject: 'repo:org/app', audience: 'rgw', now: NOW }), 'rgw');
    const iat = Math.floor(NOW / 1000);
    expect(first.payload).toEqual({
      iss: ISSUER,
      sub: 'repo:org/app',
      aud: 'rgw',
      iat,
      nbf: iat,
      exp: iat + TOKEN_LIFETIME_SECONDS,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(TOKEN_LIFETIME_SECONDS).toBe(300);
    expect(second.payload.jti).not.toBe(first.payload.jti);
  });

  it('is refused by a verifier once 300 s have passed', async () => {
    const p = provider();
    const token = await mintToken(p, { subject: 's3-proxy', audience: 'sts.amazonaws.com', now: NOW });
    const set = createLocalJWKSet((await jwks(p)) as unknown as JSONWebKeySet);
    await expect(jwtVerify(token, set, { currentDate: new Date(NOW + 301_000) })).rejects.toMatchObject({ code: 'ERR_JWT_EXPIRED' });
  });

  it('signs with the current key during a rotation; the previous key is published after it', async () => {
    const p = provider({ previous: previous.pkcs8 });
    const token = await mintToken(p, { subject: 's3-proxy', audience: 'sts.amazonaws.com', now: NOW });
    expect(decodeProtectedHeader(token).kid).toBe(await p.current.kid());
    expect((await jwks(p)).keys.map((k) => k.kid)).toEqual([await p.current.kid(), await p.previous?.kid()]);
    await expect(verify(p, token)).resolves.toBeDefined();
  });
});
