/**
 * The Merkle-Damgard frame shared by SHA-256, SHA-1 and MD5: 64-byte blocks, a final 0x80 byte, zero padding
 * and the message length in bits. Subclasses only compress blocks, reading words straight from the bytes
 * (shifts, not a DataView: measurably faster for the many short hashes SigV4 makes).
 *
 * These run in pure TypeScript because Web Crypto's `digest` is one-shot and asynchronous: hashing a body as
 * it streams (a 1 GiB PUT, a trailing checksum) would otherwise mean buffering it whole.
 */
export abstract class BlockHash {
  private readonly block = new Uint8Array(64);
  private filled = 0;
  /** Bytes hashed so far; a double is exact up to 2^53, far beyond any S3 object. */
  private length = 0;

  protected abstract compress(bytes: Uint8Array, offset: number): void;
  protected abstract output(): Uint8Array;
  /** MD5 writes the bit length little-endian, the SHA family big-endian. */
  protected abstract readonly littleEndianLength: boolean;

  update(data: Uint8Array): this {
    this.length += data.length;
    let i = 0;
    if (this.filled > 0) {
      const take = Math.min(64 - this.filled, data.length);
      this.block.set(data.subarray(0, take), this.filled);
      this.filled += take;
      i = take;
      if (this.filled < 64) return this;
      this.compress(this.block, 0);
      this.filled = 0;
    }
    for (; data.length - i >= 64; i += 64) this.compress(data, i);
    if (i < data.length) {
      this.block.set(data.subarray(i), 0);
      this.filled = data.length - i;
    }
    return this;
  }

  /** The digest; the hash must not be updated afterwards. */
  digest(): Uint8Array {
    const block = this.block;
    block[this.filled] = 0x80;
    block.fill(0, this.filled + 1);
    if (this.filled >= 56) {
      this.compress(block, 0);
      block.fill(0);
    }
    const bits = this.length * 8;
    const hi = Math.floor(bits / 0x100000000);
    const lo = bits >>> 0;
    if (this.littleEndianLength) {
      writeLE(block, 56, lo);
      writeLE(block, 60, hi);
    } else {
      writeBE(block, 56, hi);
      writeBE(block, 60, lo);
    }
    this.compress(block, 0);
    return this.output();
  }

  /** Copies the buffered bytes and length into `into`, which has the same state words (clones). */
  protected copyFrameTo(into: BlockHash): void {
    into.block.set(this.block);
    into.filled = this.filled;
    into.length = this.length;
  }
}

export function readBE(bytes: Uint8Array, i: number): number {
  return (bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3];
}

export function readLE(bytes: Uint8Array, i: number): number {
  return bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
}

export function writeBE(bytes: Uint8Array, i: number, word: number): void {
  bytes[i] = word >>> 24;
  bytes[i + 1] = word >>> 16;
  bytes[i + 2] = word >>> 8;
  bytes[i + 3] = word;
}

export function writeLE(bytes: Uint8Array, i: number, word: number): void {
  bytes[i] = word;
  bytes[i + 1] = word >>> 8;
  bytes[i + 2] = word >>> 16;
  bytes[i + 3] = word >>> 24;
}
