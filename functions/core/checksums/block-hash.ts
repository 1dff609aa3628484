/**
 * The Merkle-Damgard frame shared by SHA-256, SHA-1 and MD5: 64-byte blocks, a final 0x80 byte, zero padding
 * and the message length in bits. Subclasses only compress blocks.
 *
 * These run in pure TypeScript because Web Crypto's `digest` is one-shot: hashing a body as it streams
 * (a 1 GiB PUT, a trailing checksum) would otherwise mean buffering it whole.
 */
export abstract class BlockHash {
  private readonly block = new Uint8Array(64);
  private readonly blockView = new DataView(this.block.buffer);
  private filled = 0;
  /** Bytes hashed so far; a double is exact up to 2^53, far beyond any S3 object. */
  private length = 0;

  protected abstract compress(view: DataView, offset: number): void;
  protected abstract output(): Uint8Array;
  /** MD5 writes the bit length little-endian, the SHA family big-endian. */
  protected abstract readonly littleEndianLength: boolean;

  update(data: Uint8Array): void {
    this.length += data.length;
    let i = 0;
    if (this.filled > 0) {
      const take = Math.min(64 - this.filled, data.length);
      this.block.set(data.subarray(0, take), this.filled);
      this.filled += take;
      i = take;
      if (this.filled < 64) return;
      this.compress(this.blockView, 0);
      this.filled = 0;
    }
    if (data.length - i >= 64) {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      for (; data.length - i >= 64; i += 64) this.compress(view, i);
    }
    if (i < data.length) {
      this.block.set(data.subarray(i), 0);
      this.filled = data.length - i;
    }
  }

  /** The digest; the hash must not be updated afterwards. */
  digest(): Uint8Array {
    const bits = this.length * 8;
    const pad = new Uint8Array((this.filled < 56 ? 56 : 120) - this.filled + 8);
    pad[0] = 0x80;
    const view = new DataView(pad.buffer);
    const hi = Math.floor(bits / 0x100000000);
    const lo = bits >>> 0;
    if (this.littleEndianLength) {
      view.setUint32(pad.length - 8, lo, true);
      view.setUint32(pad.length - 4, hi, true);
    } else {
      view.setUint32(pad.length - 8, hi);
      view.setUint32(pad.length - 4, lo);
    }
    const length = this.length;
    this.update(pad);
    this.length = length;
    return this.output();
  }
}
