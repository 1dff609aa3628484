/**
 * The reference signer, `@smithy/signature-v4`, set up as the AWS SDK for S3 uses it: paths signed as given,
 * and a SHA-256 built on node:crypto (tests may use Node; the code under test may not).
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Checksum, SourceData } from '@smithy/types';

function toBuffer(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

export class NodeSha256 implements Checksum {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }

  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(this.secret));
  }

  update(data: Uint8Array): void {
    this.hash.update(data);
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }

  reset(): void {
    this.hash = this.fresh();
  }
}

export interface TestCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export function smithySigner(credentials: TestCredentials, region: string): SignatureV4 {
  return new SignatureV4({ credentials, region, service: 's3', sha256: NodeSha256, uriEscapePath: false, applyChecksum: false });
}

/** How AWS SDKs write a query value: RFC 3986 (encodeURIComponent plus `!'()*`). */
export function escapeUri(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A raw query string as an SDK sends it, from the decoded parameters smithy signs. */
export function buildQuery(query: Readonly<Record<string, string | readonly string[]>>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    for (const v of typeof value === 'string' ? [value] : value) parts.push(`${escapeUri(name)}=${escapeUri(v)}`);
  }
  return parts.join('&');
}
