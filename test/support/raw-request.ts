import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import type { Keys } from './clients';

/**
 * Raw HTTP requests with the path exactly as written (no URL normalization), optionally SigV4-signed by
 * the reference signer (@smithy/signature-v4): for requests no SDK would send.
 */
export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  /** The body's bytes as they arrived (nothing decoded). */
  readonly bytes: Buffer;
}

export interface RawRequest {
  readonly method: string;
  /** Path and query exactly as sent, e.g. `/b/a/%2e%2e/k?acl`. */
  readonly target: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
}

type SourceData = string | ArrayBuffer | ArrayBufferView;

/** The hash constructor smithy's signer wants, on node:crypto. */
export class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(secret));
  }
  update(data: SourceData): void {
    this.hash.update(toBuffer(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
}

function toBuffer(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data);
  if (data instanceof ArrayBuffer) return Buffer.from(new Uint8Array(data));
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * The headers `rawRequest` sends for `req`: the request's own with `host`, signed for `keys` (with
 * `x-amz-content-sha256: UNSIGNED-PAYLOAD` unless the request has its own), or as they are without keys.
 * For requests sent by other means (a raw socket), or changed after signing.
 */
export async function requestHeaders(endpoint: string, req: RawRequest, keys?: Keys, signingDate?: Date): Promise<Record<string, string>> {
  const url = new URL(endpoint);
  const headers: Record<string, string> = { host: url.host, ...req.headers };
  if (!keys) return headers;
  const q = req.target.indexOf('?');
  const path = q < 0 ? req.target : req.target.slice(0, q);
  const rawQuery = q < 0 ? '' : req.target.slice(q + 1);
  const signer = new SignatureV4({ credentials: keys, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false, applyChecksum: false });
  const signed = await signer.sign(
    {
      method: req.method,
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path,
      query: parseQuery(rawQuery),
      headers: { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...headers },
      body: req.body,
    },
    { signingDate },
  );
  return signed.headers;
}

export async function rawRequest(endpoint: string, req: RawRequest, keys?: Keys, signingDate?: Date): Promise<RawResponse> {
  const url = new URL(endpoint);
  const headers = await requestHeaders(endpoint, req, keys, signingDate);
  return new Promise((resolve, reject) => {
    const r = http.request({ host: url.hostname, port: url.port, method: req.method, path: req.target, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString(), bytes });
      });
      // A response cut before its end (the server died) fails the spec at once rather than at its timeout.
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(req.body);
  });
}

function parseQuery(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of raw.split('&').filter(Boolean)) {
    const eq = part.indexOf('=');
    out[decodeURIComponent(eq < 0 ? part : part.slice(0, eq))] = eq < 0 ? '' : decodeURIComponent(part.slice(eq + 1));
  }
  return out;
}

/** The `<Code>` of an S3/STS XML error body. */
export function errorCode(body: string): string | undefined {
  return /<Code>([^<]*)<\/Code>/.exec(body)?.[1];
}
