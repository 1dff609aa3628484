import { crc32 } from 'node:zlib';
import type { NativeCrc32 } from '../../core/checksums';

/**
 * Node's native CRC-32 (zlib, Node 20.15+ and 22), for the gateway's `crc32` dependency: measured, the
 * table-driven one in TypeScript was most of an aws-chunked upload's CPU, and SDKs send CRC-32 trailers by
 * default. Undefined on older Node, which keeps the tables.
 */
export function nodeCrc32(): NativeCrc32 | undefined {
  return typeof crc32 === 'function' ? (data, value) => crc32(data, value) : undefined;
}
