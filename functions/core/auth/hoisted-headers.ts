import { S3Error } from '../errors';
import type { ProxyRequest, ReadonlyHeaders } from '../http';
import { decodeQueryComponent, splitQuery } from '../sigv4/query';
import type { SignedRequestInfo } from '../sigv4';

/**
 * Presigners move a request's `x-amz-*` headers into the query (the JS SDK's does so for every one but the
 * SSE headers: a presigned CopyObject carries `x-amz-copy-source=…`, metadata `x-amz-meta-*=…`), and S3 reads
 * such signed query parameters as the headers they stand for. So does the gateway: after the signature is
 * verified, which covers the whole query, they become headers for routing and the operations, so a presigned
 * copy is a copy and not an empty PutObject over its destination.
 *
 * The presigned request's own parameters (`X-Amz-Algorithm`, `-Credential`, `-Date`, `-Expires`,
 * `-SignedHeaders`, `-Signature`, `-Security-Token`, `-Content-Sha256`) are not headers and stay where the
 * signature check and the upload read them. A parameter that is also sent as a header, or twice, is refused
 * (400 InvalidArgument): nothing decides which one the signer meant.
 */
const PRESIGN_PARAMETERS: ReadonlySet<string> = new Set([
  'x-amz-algorithm', 'x-amz-credential', 'x-amz-date', 'x-amz-expires', 'x-amz-signedheaders', 'x-amz-signature',
  'x-amz-security-token', 'x-amz-content-sha256',
]);

/**
 * `request` with its hoisted `x-amz-*` query parameters as headers, when it is presigned and has any; else
 * `request` itself.
 *
 * @throws S3Error InvalidArgument when a parameter repeats, or is sent as a header too.
 */
export function withHoistedHeaders(request: ProxyRequest, info: SignedRequestInfo | undefined): ProxyRequest {
  if (info?.presigned !== true) return request;
  const hoisted = new Map<string, string>();
  for (const { rawName, rawValue } of splitQuery(request.rawQuery)) {
    const name = decodeQueryComponent(rawName).toLowerCase();
    if (!name.startsWith('x-amz-') || PRESIGN_PARAMETERS.has(name)) continue;
    if (hoisted.has(name) || request.headers.has(name)) {
      throw new S3Error('InvalidArgument', `${name} is sent more than once (as a query parameter and a header, or twice)`, { ArgumentName: name });
    }
    hoisted.set(name, decodeQueryComponent(rawValue));
  }
  if (hoisted.size === 0) return request;
  return new WithHoistedHeaders(request, new HoistedHeaders(request.headers, hoisted));
}

/** The request with other headers; everything else read from it (a spread would lose an adapter's getters). */
class WithHoistedHeaders implements ProxyRequest {
  constructor(
    private readonly original: ProxyRequest,
    readonly headers: ReadonlyHeaders,
  ) {}

  get method(): string {
    return this.original.method;
  }

  get requestId(): string {
    return this.original.requestId;
  }

  get rawPath(): string {
    return this.original.rawPath;
  }

  get rawQuery(): string {
    return this.original.rawQuery;
  }

  get signal(): AbortSignal | undefined {
    return this.original.signal;
  }

  body(): ReadableStream<Uint8Array> {
    return this.original.body();
  }
}

/** The request's headers and the hoisted parameters, read as one set of headers. */
class HoistedHeaders implements ReadonlyHeaders {
  constructor(
    private readonly sent: ReadonlyHeaders,
    private readonly hoisted: ReadonlyMap<string, string>,
  ) {}

  get(name: string): string | null {
    return this.hoisted.get(name.toLowerCase()) ?? this.sent.get(name);
  }

  has(name: string): boolean {
    return this.hoisted.has(name.toLowerCase()) || this.sent.has(name);
  }

  forEach(callback: (value: string, name: string) => void): void {
    this.sent.forEach(callback);
    this.hoisted.forEach(callback);
  }
}
