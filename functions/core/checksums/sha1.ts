import { BlockHash, readBE, writeBE } from '../bytes/block-hash';

/** Incremental SHA-1 (FIPS 180-4), for S3's `x-amz-checksum-sha1`; never used for security here. */
export class Sha1 extends BlockHash {
  private readonly h = new Uint32Array([0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0]);
  private readonly w = new Int32Array(80);
  protected readonly littleEndianLength = false;

  protected compress(bytes: Uint8Array, offset: number): void {
    const w = this.w;
    for (let t = 0; t < 16; t++) w[t] = readBE(bytes, offset + t * 4);
    for (let t = 16; t < 80; t++) {
      const x = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16];
      w[t] = (x << 1) | (x >>> 31);
    }
    const h = this.h;
    let a = h[0] | 0, b = h[1] | 0, c = h[2] | 0, d = h[3] | 0, e = h[4] | 0;
    for (let t = 0; t < 80; t++) {
      let f: number;
      let k: number;
      if (t < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (t < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (t < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6;
      }
      const temp = (((a << 5) | (a >>> 27)) + f + e + k + w[t]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = temp;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e;
  }

  protected output(): Uint8Array {
    const out = new Uint8Array(20);
    for (let i = 0; i < 5; i++) writeBE(out, i * 4, this.h[i]);
    return out;
  }
}
