import { createHash, createHmac } from 'node:crypto';
import type { Keys } from './clients';

/**
 * A SigV4 header signer that hashes the canonical request over the bytes that will be on the wire: header
 * values are written as Latin-1, one byte per character, as Node's http module sends them. The SDKs hash the
 * UTF-8 of the same text instead, so a value such as `café` is signed as bytes they never send (S3 refuses
 * that; aws-sdk-js#820); this signer is the client that does it right, for requests no SDK would send.
 */
export interface WireSignedRequest {
  readonly method: string;
  /** Path exactly as sent, without a query. */
  readonly path: string;
  /** Headers to send and sign (all of them), names in any case; `host` is added from the endpoint. */
  readonly headers: Readonly<Record<string, string>>;
  readonly region?: string;
  readonly service?: string;
}

/**
 * The headers to send: the given ones, `host`, `x-amz-date`, `x-amz-content-sha256: UNSIGNED-PAYLOAD` and
 * `authorization`, all signed.
 */
export function signOverWireBytes(endpoint: string, request: WireSignedRequest, keys: Keys, now = Date.now()): Record<string, string> {
  const region = request.region ?? 'us-east-1';
  const service = request.service ?? 's3';
  const amzDate = new Date(now).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const date = amzDate.slice(0, 8);
  const headers: Record<string, string> = { host: new URL(endpoint).host, 'x-amz-date': amzDate, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  const names = Object.keys(headers).sort();
  const canonical = [request.method, request.path, '', ...names.map((n) => `${n}:${headers[n]!.trim()}`), '', names.join(';'), 'UNSIGNED-PAYLOAD'].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(Buffer.from(canonical, 'latin1')).digest('hex')].join('\n');
  const key = [date, region, service, 'aws4_request'].reduce<Buffer>((k, part) => createHmac('sha256', k).update(part).digest(), Buffer.from(`AWS4${keys.secretAccessKey}`));
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${keys.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
  return headers;
}
