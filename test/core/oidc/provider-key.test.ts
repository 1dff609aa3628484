/** The identity provider's keys from the settings: current and previous keys, certificates, the JWKS, and refusals. */
import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import { ConfigError } from '../../../functions/core/config/parse';
import type { Settings } from '../../../functions/core/config/types';
import { readIdentityProvider } from '../../../functions/core/oidc/provider-key';
import { generateProviderKey, nodeJwk, type ProviderKeyPem } from '../../support/provider-key';

let key: ProviderKeyPem;
let other: ProviderKeyPem;

beforeAll(() => {
  key = generateProviderKey();
  other = generateProviderKey();
});

function problemsOf(settings: Settings): readonly string[] {
  try {
    readIdentityProvider(settings);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('the settings were accepted');
}

const ISSUER = 'https://gateway.example.com';

describe('readIdentityProvider', () => {
  it('is absent unless both OIDC_PROVIDER_KEY and OIDC_PROVIDER_ISSUER are set', () => {
    expect(readIdentityProvider({})).toBeUndefined();
    expect(readIdentityProvider({ oidcProviderKey: key.pkcs8 })).toBeUndefined();
    expect(readIdentityProvider({ oidcProviderIssuer: ISSUER })).toBeUndefined();
  });

  it('publishes the key with kid = its RFC 7638 thumbprint, identical for the PKCS#1 and PKCS#8 forms', async () => {
    const expectedKid = await calculateJwkThumbprint({ kty: 'RSA', ...nodeJwk(key.pkcs8) }, 'sha256');
    const fromPkcs8 = readIdentityProvider({ oidcProviderKey: key.pkcs8, oidcProviderIssuer: ISSUER });
    const fromPkcs1 = readIdentityProvider({ oidcProviderKey: key.pkcs1, oidcProviderIssuer: ISSUER });
    expect(await fromPkcs8?.current.jwk()).toEqual({ kty: 'RSA', ...nodeJwk(key.pkcs8), alg: 'RS256', use: 'sig', kid: expectedKid });
    expect(await fromPkcs1?.current.jwk()).toEqual(await fromPkcs8?.current.jwk());
  });

  it('adds the certificate chain as x5c when OIDC_PROVIDER_CERT is set', async () => {
    const provider = readIdentityProvider({ oidcProviderKey: key.pkcs1, oidcProviderIssuer: ISSUER, oidcProviderCert: key.cert });
    const x5c = (await provider?.current.jwk())?.x5c;
    expect(x5c).toEqual([key.cert.replace(/-----[^-]+-----|\s/g, '')]);
  });

  it('publishes a previous key, private or public, that never signs', async () => {
    const provider = readIdentityProvider({
      oidcProviderKey: key.pkcs8,
      oidcProviderIssuer: ISSUER,
      oidcProviderPreviousKey: other.publicKey,
      oidcProviderPreviousCert: other.cert,
    });
    expect(provider?.previous?.canSign).toBe(false);
    expect((await provider?.previous?.jwk())?.n).toBe(nodeJwk(other.pkcs8).n);
    expect((await provider?.previous?.jwk())?.x5c).toHaveLength(1);
    await expect(provider?.previous?.signingKey()).rejects.toThrow(TypeError);
  });

  it('refuses every unusable setting at once, naming its environment variable', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(
      problemsOf({
        oidcProviderKey: key.pkcs8,
        oidcProviderIssuer: ISSUER,
        oidcProviderCert: other.cert,
        oidcProviderPreviousKey: privateKey.export({ format: 'pem', type: 'pkcs1' }) as string,
      }),
    ).toEqual([
      'environment OIDC_PROVIDER_CERT: the certificate is for a different key than OIDC_PROVIDER_KEY',
      'environment OIDC_PROVIDER_PREVIOUS_KEY: is a 1024-bit RSA key; RS256 needs at least 2048 bits',
    ]);
    expect(problemsOf({ oidcProviderKey: 'garbage', oidcProviderIssuer: ISSUER, oidcProviderPreviousCert: other.cert })).toEqual([
      'environment OIDC_PROVIDER_KEY: is not PEM (no -----BEGIN ...----- block)',
      'environment OIDC_PROVIDER_PREVIOUS_CERT: is set without OIDC_PROVIDER_PREVIOUS_KEY',
    ]);
    expect(problemsOf({ oidcProviderKey: key.publicKey, oidcProviderIssuer: ISSUER, oidcProviderCert: 'garbage' })).toEqual([
      'environment OIDC_PROVIDER_KEY: is a public key (PUBLIC KEY); a private key is needed to sign',
    ]);
    expect(problemsOf({ oidcProviderKey: key.pkcs8, oidcProviderIssuer: ISSUER, oidcProviderCert: key.pkcs8 })).toEqual([
      'environment OIDC_PROVIDER_CERT: holds a PRIVATE KEY block; only CERTIFICATE blocks belong here',
    ]);
  });
});
