/**
 * Keys for the gateway as an OIDC identity provider, made the way an operator would: the openssl CLI
 * writes an RSA key and a self-signed certificate for it (Ceph RGW needs the certificate: it trusts an
 * identity provider by the SHA-1 thumbprint of the certificate in the JWKS `x5c`).
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ProviderKeyPem {
  /** PKCS#8 (`BEGIN PRIVATE KEY`), what `openssl req -newkey` writes. */
  readonly pkcs8: string;
  /** The same key as PKCS#1 (`BEGIN RSA PRIVATE KEY`). */
  readonly pkcs1: string;
  /** SPKI public key (`BEGIN PUBLIC KEY`). */
  readonly publicKey: string;
  /** A self-signed certificate for the key. */
  readonly cert: string;
  /** SHA-1 thumbprint of the certificate's DER, lower-case hex without colons (what IAM and RGW register). */
  readonly thumbprint: string;
}

export function generateProviderKey(bits = 2048, commonName = 'gateway'): ProviderKeyPem {
  const dir = mkdtempSync(join(tmpdir(), 'oidc-key-'));
  try {
    const file = (name: string): string => join(dir, name);
    const openssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    openssl('req', '-x509', '-newkey', `rsa:${bits}`, '-nodes', '-keyout', file('key.pem'), '-out', file('cert.pem'), '-days', '2', '-subj', `/CN=${commonName}`);
    openssl('rsa', '-in', file('key.pem'), '-traditional', '-out', file('key1.pem'));
    openssl('rsa', '-in', file('key.pem'), '-pubout', '-out', file('pub.pem'));
    const cert = readFileSync(file('cert.pem'), 'utf8');
    return {
      pkcs8: readFileSync(file('key.pem'), 'utf8'),
      pkcs1: readFileSync(file('key1.pem'), 'utf8'),
      publicKey: readFileSync(file('pub.pem'), 'utf8'),
      cert,
      thumbprint: new X509Certificate(cert).fingerprint.replace(/:/g, '').toLowerCase(),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The modulus and exponent node:crypto reads from `pem`, base64url like a JWK. */
export function nodeJwk(pem: string): { n: string; e: string } {
  const jwk = createPublicKey(pem).export({ format: 'jwk' });
  return { n: jwk.n as string, e: jwk.e as string };
}
