import type { Forward, HeaderMap } from '../http';
import type { BucketContext } from './context';

/** Request headers a read passes to the backend: ranges, preconditions, checksum mode and SSE-C keys. */
const READ_HEADERS = [
  'range', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since', 'x-amz-checksum-mode',
  'x-amz-server-side-encryption-customer-algorithm', 'x-amz-server-side-encryption-customer-key',
  'x-amz-server-side-encryption-customer-key-md5', 'x-amz-request-payer', 'x-amz-expected-bucket-owner',
];

/** Query parameters a read passes on: the version, a part, and S3's response header overrides. */
const READ_QUERY = [
  'versionId', 'partNumber', 'response-cache-control', 'response-content-disposition', 'response-content-encoding',
  'response-content-language', 'response-content-type', 'response-expires',
];

/** GetObject and HeadObject: a Forward whose status (200, 206, 304, 412, errors) and body pass through. */
export function getObject(ctx: BucketContext, method: 'GET' | 'HEAD', key: string): Promise<Forward> {
  return ctx.store.forwardObject({
    method,
    key,
    query: pick(READ_QUERY, (name) => ctx.query.get(name) || undefined),
    headers: pick(READ_HEADERS, (name) => ctx.request.headers.get(name) ?? undefined),
    requestId: ctx.requestId,
  });
}

export function pick(names: readonly string[], read: (name: string) => string | undefined): HeaderMap {
  const out: HeaderMap = {};
  for (const name of names) {
    const value = read(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}
