import { BlockHash, readBE, writeBE } from './block-hash';

/**
 * Incremental SHA-256 (FIPS 180-4) in plain TypeScript. Besides streamed bodies, it serves SigV4's many short
 * hashes: Web Crypto's asynchronous round trip through the thread pool costs more than hashing a canonical
 * request. The schedule buffer is shared, because hashing is synchronous.
 *
 * @example const h = new Sha256(); h.update(bytes); toHex(h.digest())
 */

/** FIPS 180-4 round constants. */
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** The message schedule, shared by every instance: a compression never yields. */
const W = new Int32Array(64);

function compress(h: Int32Array, bytes: Uint8Array, offset: number): void {
  for (let t = 0; t < 16; t++) W[t] = readBE(bytes, offset + t * 4);
  for (let t = 16; t < 64; t++) {
    const x = W[t - 15];
    const y = W[t - 2];
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    W[t] = (W[t - 16] + s0 + W[t - 7] + s1) | 0;
  }
  let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (hh + S1 + ((e & f) ^ (~e & g)) + K[t] + W[t]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = (h[0] + a) | 0;
  h[1] = (h[1] + b) | 0;
  h[2] = (h[2] + c) | 0;
  h[3] = (h[3] + d) | 0;
  h[4] = (h[4] + e) | 0;
  h[5] = (h[5] + f) | 0;
  h[6] = (h[6] + g) | 0;
  h[7] = (h[7] + hh) | 0;
}

export class Sha256 extends BlockHash {
  private readonly h = Int32Array.from(INITIAL);
  protected readonly littleEndianLength = false;

  /** An independent copy of the running state (HMAC keeps its padded key states this way). */
  clone(): Sha256 {
    const copy = new Sha256();
    copy.h.set(this.h);
    this.copyFrameTo(copy);
    return copy;
  }

  protected compress(bytes: Uint8Array, offset: number): void {
    compress(this.h, bytes, offset);
  }

  protected output(): Uint8Array {
    const out = new Uint8Array(32);
    for (let i = 0; i < 8; i++) writeBE(out, i * 4, this.h[i]);
    return out;
  }
}

/** HMAC-SHA256 (RFC 2104) with the padded key states computed once, so each signature costs two short hashes. */
export class HmacSha256 {
  private readonly inner: Sha256;
  private readonly outer: Sha256;

  constructor(key: Uint8Array) {
    const k = new Uint8Array(64);
    k.set(key.length > 64 ? new Sha256().update(key).digest() : key);
    const pad = new Uint8Array(64);
    for (let i = 0; i < 64; i++) pad[i] = k[i] ^ 0x36;
    this.inner = new Sha256().update(pad);
    for (let i = 0; i < 64; i++) pad[i] = k[i] ^ 0x5c;
    this.outer = new Sha256().update(pad);
  }

  sign(data: Uint8Array): Uint8Array {
    const inner = this.inner.clone().update(data).digest();
    return this.outer.clone().update(inner).digest();
  }
}
