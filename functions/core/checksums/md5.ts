import { BlockHash, readLE, writeLE } from '../bytes/block-hash';

/** Per-round shift amounts and the sine-derived constants of RFC 1321. */
const S = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
const T = new Uint32Array(64);
for (let i = 0; i < 64; i++) T[i] = Math.floor(Math.abs(Math.sin(i + 1)) * 0x100000000) >>> 0;

/**
 * MD5 (RFC 1321), for the `Content-MD5` S3 requires on bodies the gateway rewrites (DeleteObjects). Not
 * in Web Crypto, and never used for security.
 */
export class Md5 extends BlockHash {
  private readonly h = new Uint32Array([0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476]);
  private readonly x = new Uint32Array(16);
  protected readonly littleEndianLength = true;

  protected compress(bytes: Uint8Array, offset: number): void {
    const x = this.x;
    for (let i = 0; i < 16; i++) x[i] = readLE(bytes, offset + i * 4);
    const h = this.h;
    let a = h[0] | 0, b = h[1] | 0, c = h[2] | 0, d = h[3] | 0;
    for (let i = 0; i < 64; i++) {
      const round = i >> 4;
      let f: number;
      let g: number;
      if (round === 0) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (round === 1) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) & 15;
      } else if (round === 2) {
        f = b ^ c ^ d;
        g = (3 * i + 5) & 15;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) & 15;
      }
      const s = S[(round << 2) | (i & 3)];
      const sum = (a + f + T[i] + x[g]) | 0;
      a = d;
      d = c;
      c = b;
      b = (b + ((sum << s) | (sum >>> (32 - s)))) | 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d;
  }

  protected output(): Uint8Array {
    const out = new Uint8Array(16);
    for (let i = 0; i < 4; i++) writeLE(out, i * 4, this.h[i]);
    return out;
  }
}
