/**
 * RSA keys and certificates from PEM, read with the DER reader of der.ts: PKCS#8 and PKCS#1 private keys,
 * SPKI and PKCS#1 public keys, X.509 certificate chains. Synchronous and strict, so a bad key is refused at
 * start-up with the reason.
 */
import { fromBase64 } from '../bytes';
import {
  DerError,
  RSA_ENCRYPTION_OID,
  TAG,
  children,
  contents,
  encodeElement,
  equalBytes,
  expectTag,
  readTop,
  rsaAlgorithmIdentifier,
  unsignedInteger,
  type DerElement,
} from './der';
import { concat } from '../streams';

/** RS256 with a modulus below this is refused: AWS and most verifiers want at least 2048 bits. */
export const MIN_MODULUS_BITS = 2048;

export interface RsaPublicKey {
  /** Modulus, big-endian, no leading zero octets. */
  readonly n: Uint8Array;
  /** Public exponent, big-endian. */
  readonly e: Uint8Array;
  readonly bits: number;
}

/** A key as read from PEM: its public half, and the private half as PKCS#8 when it was a private key. */
export interface ParsedRsaKey {
  readonly publicKey: RsaPublicKey;
  readonly pkcs8?: Uint8Array;
}

interface PemBlock {
  readonly label: string;
  readonly der: Uint8Array;
}

/** Thrown for a PEM or DER that is not what it should be; `reason` is said to the operator verbatim. */
export class KeyFormatError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'KeyFormatError';
  }
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/**
 * The PEM blocks in `text`, in order. Literal `\n` sequences (how PEMs often survive .env files and
 * parameter stores) count as line breaks.
 */
export function readPemBlocks(text: string): PemBlock[] {
  const normalized = text.replace(/\\n/g, '\n');
  const blocks: PemBlock[] = [];
  for (const match of normalized.matchAll(PEM_BLOCK)) {
    const body = match[2];
    if (/Proc-Type:\s*4,ENCRYPTED/i.test(body)) throw new KeyFormatError('is an encrypted PEM; provide the key unencrypted');
    const der = fromBase64(body.replace(/\s+/g, ''));
    if (der === undefined) throw new KeyFormatError(`has a ${match[1]} block that is not base64`);
    blocks.push({ label: match[1], der });
  }
  if (blocks.length === 0) throw new KeyFormatError('is not PEM (no -----BEGIN ...----- block)');
  return blocks;
}

/**
 * Reads an RSA key from PEM: PKCS#8 (`PRIVATE KEY`) or PKCS#1 (`RSA PRIVATE KEY`, wrapped into PKCS#8 for
 * Web Crypto); with `allowPublic`, also SPKI (`PUBLIC KEY`) and PKCS#1 (`RSA PUBLIC KEY`).
 *
 * @throws KeyFormatError saying what is wrong.
 * @example
 * const key = readRsaKey(process.env.OIDC_PROVIDER_KEY);  // adapters only; the core gets it from Settings
 */
export function readRsaKey(pem: string, options: { readonly allowPublic?: boolean } = {}): ParsedRsaKey {
  const blocks = readPemBlocks(pem);
  if (blocks.length > 1) throw new KeyFormatError('holds more than one PEM block; give exactly one key');
  const { label, der } = blocks[0];
  try {
    switch (label) {
      case 'PRIVATE KEY':
        return readPkcs8(der);
      case 'RSA PRIVATE KEY':
        return { publicKey: readPkcs1Private(der, readTop(der, TAG.SEQUENCE)), pkcs8: wrapPkcs1(der) };
      case 'ENCRYPTED PRIVATE KEY':
        throw new KeyFormatError('is an encrypted PKCS#8 key; provide the key unencrypted');
      case 'PUBLIC KEY':
      case 'RSA PUBLIC KEY':
        if (!options.allowPublic) throw new KeyFormatError(`is a public key (${label}); a private key is needed to sign`);
        return { publicKey: label === 'PUBLIC KEY' ? readSpki(der, readTop(der, TAG.SEQUENCE)) : readPkcs1Public(der, readTop(der, TAG.SEQUENCE)) };
      default:
        throw new KeyFormatError(`is a ${label}, not an RSA key in PEM (PRIVATE KEY or RSA PRIVATE KEY)`);
    }
  } catch (err) {
    if (err instanceof DerError) throw new KeyFormatError(`is not a readable RSA key: ${err.message}`);
    throw err;
  }
}

/**
 * The certificate chain of an X.509 PEM (leaf first) and the leaf's RSA public key.
 *
 * @throws KeyFormatError when a block is not a certificate or the leaf's key is not RSA.
 */
export function readCertificateChain(pem: string): { readonly chain: readonly Uint8Array[]; readonly publicKey: RsaPublicKey } {
  const blocks = readPemBlocks(pem);
  for (const block of blocks) {
    if (block.label !== 'CERTIFICATE') throw new KeyFormatError(`holds a ${block.label} block; only CERTIFICATE blocks belong here`);
  }
  try {
    return { chain: blocks.map((b) => b.der), publicKey: certificatePublicKey(blocks[0].der) };
  } catch (err) {
    if (err instanceof DerError) throw new KeyFormatError(`is not a readable X.509 certificate: ${err.message}`);
    throw err;
  }
}

/** PrivateKeyInfo ::= SEQUENCE { version, AlgorithmIdentifier, OCTET STRING privateKey, ... } (RFC 5208). */
function readPkcs8(der: Uint8Array): ParsedRsaKey {
  const [version, algorithm, privateKey] = children(der, readTop(der, TAG.SEQUENCE));
  expectTag(version, TAG.INTEGER, 'PKCS#8 version');
  assertRsaAlgorithm(der, expectTag(algorithm, TAG.SEQUENCE, 'PKCS#8 algorithm'));
  const inner = contents(der, expectTag(privateKey, TAG.OCTET_STRING, 'PKCS#8 private key'));
  return { publicKey: readPkcs1Private(inner, readTop(inner, TAG.SEQUENCE)), pkcs8: der };
}

/** RSAPrivateKey ::= SEQUENCE { version, n, e, d, p, q, dp, dq, qinv } (RFC 8017 appendix A.1.2). */
function readPkcs1Private(der: Uint8Array, top: DerElement): RsaPublicKey {
  const fields = children(der, top);
  if (fields.length < 9 || fields.some((f) => f.tag !== TAG.INTEGER)) throw new DerError('RSAPrivateKey must be nine INTEGERs');
  return publicKeyOf(unsignedInteger(der, fields[1]), unsignedInteger(der, fields[2]));
}

/** RSAPublicKey ::= SEQUENCE { n, e } (RFC 8017 appendix A.1.1). */
function readPkcs1Public(der: Uint8Array, top: DerElement): RsaPublicKey {
  const [n, e] = children(der, top);
  return publicKeyOf(unsignedInteger(der, expectTag(n, TAG.INTEGER, 'modulus')), unsignedInteger(der, expectTag(e, TAG.INTEGER, 'exponent')));
}

/** SubjectPublicKeyInfo ::= SEQUENCE { AlgorithmIdentifier, BIT STRING subjectPublicKey } (RFC 5280 4.1). */
function readSpki(der: Uint8Array, spki: DerElement): RsaPublicKey {
  const [algorithm, bits] = children(der, spki);
  assertRsaAlgorithm(der, expectTag(algorithm, TAG.SEQUENCE, 'SPKI algorithm'));
  const bitString = contents(der, expectTag(bits, TAG.BIT_STRING, 'SPKI public key'));
  if (bitString[0] !== 0) throw new DerError('SPKI public key has unused bits');
  const key = bitString.subarray(1);
  return readPkcs1Public(key, readTop(key, TAG.SEQUENCE));
}

/** Certificate ::= SEQUENCE { tbsCertificate, ... }; the key is the 7th field of tbs (6th without a version). */
function certificatePublicKey(der: Uint8Array): RsaPublicKey {
  const [tbs] = children(der, readTop(der, TAG.SEQUENCE));
  const fields = children(der, expectTag(tbs, TAG.SEQUENCE, 'tbsCertificate'));
  const offset = fields[0]?.tag === TAG.CONTEXT_0 ? 1 : 0;
  return readSpki(der, expectTag(fields[offset + 5], TAG.SEQUENCE, 'subjectPublicKeyInfo'));
}

function assertRsaAlgorithm(der: Uint8Array, algorithm: DerElement): void {
  const oid = expectTag(children(der, algorithm)[0], TAG.OID, 'algorithm OID');
  if (!equalBytes(contents(der, oid), RSA_ENCRYPTION_OID)) throw new KeyFormatError('is not an RSA key (RS256 needs RSA)');
}

function publicKeyOf(n: Uint8Array, e: Uint8Array): RsaPublicKey {
  const bits = n.length === 0 ? 0 : (n.length - 1) * 8 + (32 - Math.clz32(n[0]));
  return { n, e, bits };
}

/** PKCS#1 → PKCS#8: `SEQUENCE { INTEGER 0, SEQUENCE { rsaEncryption, NULL }, OCTET STRING pkcs1 }`. */
export function wrapPkcs1(pkcs1: Uint8Array): Uint8Array {
  const version = encodeElement(TAG.INTEGER, Uint8Array.of(0));
  return encodeElement(TAG.SEQUENCE, concat([version, rsaAlgorithmIdentifier(), encodeElement(TAG.OCTET_STRING, pkcs1)]));
}

