/**
 * The gateway's own identity-provider keys: read once from PEM at start-up, validated synchronously (so a
 * bad key stops start-up with a ConfigError naming the variable), and imported into Web Crypto on first use.
 */
import { calculateJwkThumbprint } from 'jose';
import { ConfigError } from '../config/parse';
import type { Settings } from '../config/types';
import { toBase64, toBase64Url, type CryptoKey } from '../bytes';
import { equalBytes } from './der';
import { KeyFormatError, MIN_MODULUS_BITS, readCertificateChain, readRsaKey, type ParsedRsaKey } from './rsa-key';

/** A public key in JWK form (RFC 7517), with the fields the spec's JWKS lists. */
export interface PublicJwk {
  readonly kty: 'RSA';
  readonly n: string;
  readonly e: string;
  readonly alg: 'RS256';
  readonly use: 'sig';
  readonly kid: string;
  /** The certificate chain (base64 DER, leaf first) when one is configured; Ceph RGW requires it. */
  readonly x5c?: readonly string[];
}

/**
 * One signing or verification key of the identity provider. The public JWK and `kid` (RFC 7638 thumbprint)
 * are computed once; the Web Crypto signing key is imported non-extractable on first use.
 */
export class ProviderKey {
  private material?: Promise<{ readonly jwk: PublicJwk; readonly signingKey?: CryptoKey }>;

  constructor(
    private readonly key: ParsedRsaKey,
    private readonly chain: readonly Uint8Array[] = [],
  ) {}

  get canSign(): boolean {
    return this.key.pkcs8 !== undefined;
  }

  /** The JWKS entry for this key. */
  async jwk(): Promise<PublicJwk> {
    return (await this.load()).jwk;
  }

  async kid(): Promise<string> {
    return (await this.load()).jwk.kid;
  }

  /** The RS256 signing key. @throws TypeError for a key configured as public only. */
  async signingKey(): Promise<CryptoKey> {
    const { signingKey } = await this.load();
    if (signingKey === undefined) throw new TypeError('This provider key has no private half');
    return signingKey;
  }

  private load(): Promise<{ readonly jwk: PublicJwk; readonly signingKey?: CryptoKey }> {
    // A failed import is not cached: the next call tries again (and reports the same error).
    this.material ??= this.build().catch((err: unknown) => {
      this.material = undefined;
      throw err;
    });
    return this.material;
  }

  private async build(): Promise<{ readonly jwk: PublicJwk; readonly signingKey?: CryptoKey }> {
    const n = toBase64Url(this.key.publicKey.n);
    const e = toBase64Url(this.key.publicKey.e);
    const kid = await calculateJwkThumbprint({ kty: 'RSA', n, e }, 'sha256');
    const x5c = this.chain.length > 0 ? this.chain.map(toBase64) : undefined;
    const jwk: PublicJwk = { kty: 'RSA', n, e, alg: 'RS256', use: 'sig', kid, ...(x5c ? { x5c } : {}) };
    const pkcs8 = this.key.pkcs8;
    const signingKey =
      pkcs8 === undefined
        ? undefined
        : await globalThis.crypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
    return { jwk, signingKey };
  }
}

/** The gateway as an OIDC identity provider: its issuer URL, the signing key, and the previous key if rotating. */
export interface IdentityProvider {
  readonly issuer: string;
  /** Signs every token; listed first in the JWKS (Ceph RGW reads only the first key). */
  readonly current: ProviderKey;
  /** Still published so tokens signed before a rotation keep verifying; never signs. */
  readonly previous?: ProviderKey;
}

/**
 * The identity provider described by the settings, or undefined when OIDC_PROVIDER_KEY and
 * OIDC_PROVIDER_ISSUER are not both set (then the discovery endpoints are not served).
 *
 * @throws ConfigError listing every problem with the keys and certificates, each naming its variable.
 */
export function readIdentityProvider(settings: Settings): IdentityProvider | undefined {
  const { oidcProviderKey, oidcProviderIssuer } = settings;
  if (!oidcProviderKey || !oidcProviderIssuer) return undefined;
  const problems: string[] = [];
  const current = readProviderKey(oidcProviderKey, settings.oidcProviderCert, 'OIDC_PROVIDER_KEY', 'OIDC_PROVIDER_CERT', false, problems);
  const previous =
    settings.oidcProviderPreviousKey === undefined
      ? undefined
      : readProviderKey(settings.oidcProviderPreviousKey, settings.oidcProviderPreviousCert, 'OIDC_PROVIDER_PREVIOUS_KEY', 'OIDC_PROVIDER_PREVIOUS_CERT', true, problems);
  if (settings.oidcProviderPreviousKey === undefined && settings.oidcProviderPreviousCert !== undefined) {
    problems.push('environment OIDC_PROVIDER_PREVIOUS_CERT: is set without OIDC_PROVIDER_PREVIOUS_KEY');
  }
  if (problems.length > 0 || current === undefined) throw new ConfigError(problems);
  return { issuer: oidcProviderIssuer, current, previous };
}

function readProviderKey(
  pem: string,
  certPem: string | undefined,
  keyName: string,
  certName: string,
  allowPublic: boolean,
  problems: string[],
): ProviderKey | undefined {
  let key: ParsedRsaKey;
  try {
    key = readRsaKey(pem, { allowPublic });
  } catch (err) {
    if (!(err instanceof KeyFormatError)) throw err;
    problems.push(`environment ${keyName}: ${err.reason}`);
    return undefined;
  }
  if (key.publicKey.bits < MIN_MODULUS_BITS) {
    problems.push(`environment ${keyName}: is a ${key.publicKey.bits}-bit RSA key; RS256 needs at least ${MIN_MODULUS_BITS} bits`);
    return undefined;
  }
  if (certPem === undefined) return new ProviderKey(key);
  try {
    const cert = readCertificateChain(certPem);
    if (!equalBytes(cert.publicKey.n, key.publicKey.n) || !equalBytes(cert.publicKey.e, key.publicKey.e)) {
      problems.push(`environment ${certName}: the certificate is for a different key than ${keyName}`);
      return undefined;
    }
    return new ProviderKey(key, cert.chain);
  } catch (err) {
    if (!(err instanceof KeyFormatError)) throw err;
    problems.push(`environment ${certName}: ${err.reason}`);
    return undefined;
  }
}
