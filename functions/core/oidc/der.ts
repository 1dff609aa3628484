/**
 * Just enough DER (X.690) to read RSA keys and certificates and to wrap a PKCS#1 key in PKCS#8: Web Crypto
 * imports only PKCS#8, SPKI and JWK, while `openssl genrsa` and many key stores still write PKCS#1.
 * Synchronous and free of outside dependencies, so a bad key is reported while the configuration is read.
 */
import { concat } from '../streams';

/** One DER element: its tag byte and where its contents lie in the buffer. */
export interface DerElement {
  readonly tag: number;
  /** Offset of the contents (after tag and length). */
  readonly start: number;
  /** Offset just past the contents. */
  readonly end: number;
}

export const TAG = {
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  SEQUENCE: 0x30,
  /** `[0]` constructed, context-specific: the X.509 version field. */
  CONTEXT_0: 0xa0,
} as const;

/** rsaEncryption, 1.2.840.113549.1.1.1 (RFC 8017 appendix A.1), as DER contents. */
export const RSA_ENCRYPTION_OID = Uint8Array.of(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01);

export class DerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DerError';
  }
}

/** Reads the element at `offset`; definite lengths only, as DER requires. */
export function readElement(der: Uint8Array, offset: number, limit = der.length): DerElement {
  if (offset + 2 > limit) throw new DerError('truncated DER element');
  const tag = der[offset];
  let length = der[offset + 1];
  let start = offset + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4) throw new DerError('unsupported DER length');
    if (start + octets > limit) throw new DerError('truncated DER length');
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + der[start + i];
    start += octets;
  }
  const end = start + length;
  if (end > limit) throw new DerError('DER element runs past its container');
  return { tag, start, end };
}

/** The children of a constructed element, in order. */
export function children(der: Uint8Array, parent: DerElement): DerElement[] {
  const out: DerElement[] = [];
  for (let offset = parent.start; offset < parent.end; ) {
    const child = readElement(der, offset, parent.end);
    out.push(child);
    offset = child.end;
  }
  return out;
}

/** Reads the single top-level element of `der`, requiring `tag` and nothing after it. */
export function readTop(der: Uint8Array, tag: number): DerElement {
  const top = readElement(der, 0);
  if (top.tag !== tag) throw new DerError(`expected DER tag 0x${tag.toString(16)}, found 0x${top.tag.toString(16)}`);
  if (top.end !== der.length) throw new DerError('trailing bytes after the DER structure');
  return top;
}

export function expectTag(element: DerElement | undefined, tag: number, what: string): DerElement {
  if (element === undefined || element.tag !== tag) throw new DerError(`${what} is missing or malformed`);
  return element;
}

export function contents(der: Uint8Array, element: DerElement): Uint8Array {
  return der.subarray(element.start, element.end);
}

/** An unsigned big-endian INTEGER's magnitude, without the sign octet DER adds before a high bit. */
export function unsignedInteger(der: Uint8Array, element: DerElement): Uint8Array {
  let bytes = contents(der, element);
  while (bytes.length > 1 && bytes[0] === 0) bytes = bytes.subarray(1);
  return bytes;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Encodes one element; `body` is the already-encoded contents. */
export function encodeElement(tag: number, body: Uint8Array): Uint8Array {
  const length = body.length;
  let header: number[];
  if (length < 0x80) header = [tag, length];
  else {
    const octets: number[] = [];
    for (let n = length; n > 0; n = Math.floor(n / 256)) octets.unshift(n % 256);
    header = [tag, 0x80 | octets.length, ...octets];
  }
  const out = new Uint8Array(header.length + length);
  out.set(header, 0);
  out.set(body, header.length);
  return out;
}

/** The AlgorithmIdentifier `SEQUENCE { rsaEncryption, NULL }` used by PKCS#8 and SPKI. */
export function rsaAlgorithmIdentifier(): Uint8Array {
  return encodeElement(TAG.SEQUENCE, concat([encodeElement(TAG.OID, RSA_ENCRYPTION_OID), encodeElement(TAG.NULL, new Uint8Array(0))]));
}
