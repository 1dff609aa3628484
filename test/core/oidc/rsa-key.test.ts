/** Reading RSA keys and certificates from PEM: the forms accepted, the PKCS#1 → PKCS#8 wrap, and refusals. */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { KeyFormatError, readCertificateChain, readRsaKey, wrapPkcs1 } from '../../../functions/core/oidc/rsa-key';
import { generateProviderKey, nodeJwk, type ProviderKeyPem } from '../../support/provider-key';

let key: ProviderKeyPem;
let other: ProviderKeyPem;

beforeAll(() => {
  key = generateProviderKey();
  other = generateProviderKey();
});

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

describe('readRsaKey', () => {
  it('reads a PKCS#8 private key and keeps its DER for Web Crypto', () => {
    const parsed = readRsaKey(key.pkcs8);
    expect({ n: b64url(parsed.publicKey.n), e: b64url(parsed.publicKey.e) }).toEqual(nodeJwk(key.pkcs8));
    expect(parsed.publicKey.bits).toBe(2048);
    expect(Buffer.from(parsed.pkcs8 ?? new Uint8Array())).toEqual(Buffer.from(key.pkcs8.replace(/-----[^-]+-----|\s/g, ''), 'base64'));
  });

  it('reads a PKCS#1 private key and wraps it into exactly the PKCS#8 openssl writes', () => {
    const parsed = readRsaKey(key.pkcs1);
    expect({ n: b64url(parsed.publicKey.n), e: b64url(parsed.publicKey.e) }).toEqual(nodeJwk(key.pkcs8));
    expect(Buffer.from(parsed.pkcs8 ?? new Uint8Array()).toString('base64')).toBe(key.pkcs8.replace(/-----[^-]+-----|\s/g, ''));
  });

  it('wraps PKCS#1 keys of other sizes (long-form DER lengths) so Web Crypto imports them', async () => {
    for (const bits of [2048, 3072]) {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits });
      const pkcs1 = privateKey.export({ format: 'der', type: 'pkcs1' });
      const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
      expect(Buffer.from(wrapPkcs1(new Uint8Array(pkcs1)))).toEqual(pkcs8);
      await expect(
        crypto.subtle.importKey('pkcs8', wrapPkcs1(new Uint8Array(pkcs1)), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']),
      ).resolves.toBeDefined();
    }
  });

  it('accepts PEM whose line breaks arrived as literal \\n (env files, parameter stores)', () => {
    const escaped = key.pkcs1.trim().replace(/\n/g, '\\n');
    expect(b64url(readRsaKey(escaped).publicKey.n)).toBe(nodeJwk(key.pkcs8).n);
  });

  it('reads public keys (SPKI and PKCS#1) only when asked to', () => {
    expect(b64url(readRsaKey(key.publicKey, { allowPublic: true }).publicKey.n)).toBe(nodeJwk(key.pkcs8).n);
    expect(readRsaKey(key.publicKey, { allowPublic: true }).pkcs8).toBeUndefined();
    const pkcs1Public = createPublicKey(key.pkcs8).export({ format: 'pem', type: 'pkcs1' }) as string;
    expect(b64url(readRsaKey(pkcs1Public, { allowPublic: true }).publicKey.n)).toBe(nodeJwk(key.pkcs8).n);
    expect(() => readRsaKey(key.publicKey)).toThrow('is a public key (PUBLIC KEY); a private key is needed to sign');
  });

  it.each([
    ['text that is not PEM', 'not a key', 'is not PEM (no -----BEGIN ...----- block)'],
    ['PEM whose body is not base64', '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----', 'has a PRIVATE KEY block that is not base64'],
    ['PEM whose body is not DER', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----', 'is not a readable RSA key'],
    ['a certificate', undefined, 'is a CERTIFICATE, not an RSA key in PEM (PRIVATE KEY or RSA PRIVATE KEY)'],
    ['an encrypted PKCS#8 key', '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----', 'is an encrypted PKCS#8 key; provide the key unencrypted'],
    [
      'an encrypted PKCS#1 key',
      '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nMIIB\n-----END RSA PRIVATE KEY-----',
      'is an encrypted PEM; provide the key unencrypted',
    ],
  ])('refuses %s', (_, pem, reason) => {
    expect(() => readRsaKey(pem ?? key.cert)).toThrow(KeyFormatError);
    expect(() => readRsaKey(pem ?? key.cert)).toThrow(reason);
  });

  it('refuses an EC key: RS256 needs RSA', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() => readRsaKey(privateKey.export({ format: 'pem', type: 'pkcs8' }) as string)).toThrow('is not an RSA key (RS256 needs RSA)');
  });

  it('refuses two keys in one variable', () => {
    expect(() => readRsaKey(key.pkcs8 + other.pkcs8)).toThrow('holds more than one PEM block; give exactly one key');
  });
});

describe('readCertificateChain', () => {
  it("reads the leaf's public key and keeps every certificate's DER for x5c", () => {
    const { chain, publicKey } = readCertificateChain(key.cert + other.cert);
    expect(chain).toHaveLength(2);
    expect(b64url(publicKey.n)).toBe(nodeJwk(key.pkcs8).n);
  });

  it('refuses a key where a certificate belongs', () => {
    expect(() => readCertificateChain(key.pkcs8)).toThrow('holds a PRIVATE KEY block; only CERTIFICATE blocks belong here');
  });
});
