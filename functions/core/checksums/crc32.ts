/**
 * CRC32 (ISO-HDLC, the zlib/PNG one) and CRC32C (Castagnoli), reflected, table-driven slice-by-8: eight
 * 256-entry tables let the loop consume eight bytes per step, about five times faster than one table.
 * Pure TypeScript because Web Crypto has no CRCs.
 */

/** Reflected polynomials (https://reveng.sourceforge.io/crc-catalogue/17plus.htm). */
export const CRC32_POLYNOMIAL = 0xedb88320;
export const CRC32C_POLYNOMIAL = 0x82f63b78;

/** `tables[s][b]`: the CRC of byte `b` followed by `s` zero bytes. */
function sliceTables(polynomial: number): readonly Uint32Array[] {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  const t0 = tables[0];
  for (let b = 0; b < 256; b++) {
    let c = b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ polynomial : c >>> 1;
    t0[b] = c >>> 0;
  }
  for (let b = 0; b < 256; b++) {
    for (let s = 1; s < 8; s++) tables[s][b] = (tables[s - 1][b] >>> 8) ^ t0[tables[s - 1][b] & 0xff];
  }
  return tables;
}

/**
 * An incremental reflected 32-bit CRC with init and final XOR of all ones.
 *
 * @example const c = new Crc32(); c.update(utf8('123456789')); c.value() // 0xcbf43926
 */
export class Crc32Family {
  protected crc = 0xffffffff;

  constructor(private readonly tables: readonly Uint32Array[]) {}

  update(data: Uint8Array): void {
    const [t0, t1, t2, t3, t4, t5, t6, t7] = this.tables;
    let c = this.crc;
    let i = 0;
    const end8 = data.length - (data.length % 8);
    for (; i < end8; i += 8) {
      const a = c ^ (data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24));
      c =
        t7[a & 0xff] ^
        t6[(a >>> 8) & 0xff] ^
        t5[(a >>> 16) & 0xff] ^
        t4[a >>> 24] ^
        t3[data[i + 4]] ^
        t2[data[i + 5]] ^
        t1[data[i + 6]] ^
        t0[data[i + 7]];
    }
    for (; i < data.length; i++) c = t0[(c ^ data[i]) & 0xff] ^ (c >>> 8);
    this.crc = c;
  }

  /** The CRC of everything so far, as an unsigned 32-bit number. */
  value(): number {
    return (this.crc ^ 0xffffffff) >>> 0;
  }

  /** Big-endian bytes of the CRC: what S3 base64-encodes into `x-amz-checksum-crc32[c]`. */
  digest(): Uint8Array {
    const v = this.value();
    return new Uint8Array([v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff]);
  }
}

let crc32Tables: readonly Uint32Array[] | undefined;
let crc32cTables: readonly Uint32Array[] | undefined;

/**
 * A platform's CRC-32/ISO-HDLC, continuing from the finished CRC of what came before (0 at the start): the
 * contract of Node's `zlib.crc32(data, value)`.
 */
export type NativeCrc32 = (data: Uint8Array, value: number) => number;

let nativeCrc32: NativeCrc32 | undefined;

/**
 * Lets a runtime with a native CRC-32 stand in for the tables (Node's zlib one runs several times faster: the
 * CRC was most of an aws-chunked upload's CPU). Undefined restores the tables. Process-wide, because digests
 * are made deep in the payload readers: the one caller is the Gateway, with its `crc32` dependency, so a
 * runtime hands it over like its other abilities.
 */
export function useNativeCrc32(crc: NativeCrc32 | undefined): void {
  nativeCrc32 = crc;
}

/** CRC-32/ISO-HDLC; check value of "123456789" is 0xCBF43926. */
export class Crc32 extends Crc32Family {
  private readonly native = nativeCrc32;

  constructor() {
    super((crc32Tables ??= sliceTables(CRC32_POLYNOMIAL)));
  }

  override update(data: Uint8Array): void {
    if (this.native === undefined) return super.update(data);
    this.crc = (this.native(data, (this.crc ^ 0xffffffff) >>> 0) ^ 0xffffffff) >>> 0;
  }
}

/** CRC-32/ISCSI (Castagnoli); check value of "123456789" is 0xE3069283. */
export class Crc32c extends Crc32Family {
  constructor() {
    super((crc32cTables ??= sliceTables(CRC32C_POLYNOMIAL)));
  }
}
