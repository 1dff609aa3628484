import { crc32 } from 'node:zlib';
import { useNativeCrc32 } from '../../core/checksums';

/**
 * Hands the core Node's native CRC-32 (zlib, Node 20.15+ and 22): measured, the table-driven one in
 * TypeScript was most of an aws-chunked upload's CPU, and SDKs send CRC-32 trailers by default. Older Node
 * keeps the tables.
 */
export function useNodeChecksums(): void {
  if (typeof crc32 === 'function') useNativeCrc32((data, value) => crc32(data, value));
}
