import type { LambdaFunctionURLEvent } from 'aws-lambda';
import type { ProxyRequest } from '../../core/http';
import { newRequestId } from '../../core/responses';
import { FUNCTION_URL_HEADERS } from './platform-headers';

/**
 * The Function URL translator: a payload-2.0 event becomes the core's ProxyRequest. Only the raw fields are
 * used (`rawPath`, `rawQueryString`): the decoded ones (`requestContext.http.path`, `queryStringParameters`)
 * have lost what SigV4 signs (platform.md).
 *
 * @param requestId The invocation's `awsRequestId`, which the Function URL also sends as `x-amzn-RequestId`:
 *   as the gateway's request id it is the one id a client sees, in every header and error body.
 */
export function toProxyRequest(event: LambdaFunctionURLEvent, body: Uint8Array, signal?: AbortSignal, requestId = newRequestId()): ProxyRequest {
  return {
    requestId,
    method: event.requestContext.http.method.toUpperCase(),
    rawPath: event.rawPath || '/',
    rawQuery: event.rawQueryString ?? '',
    headers: eventHeaders(event),
    body: () => bytesStream(body),
    signal,
    platformHeaders: FUNCTION_URL_HEADERS,
  };
}

/** The body bytes. Function URLs deliver the whole body in the event, base64-encoded unless it is text. */
export function eventBody(event: LambdaFunctionURLEvent): Buffer {
  if (event.body === undefined || event.body === null || event.body === '') return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

/**
 * Header names arrive lowercase with repeated headers already joined with `,`. Function URLs move `Cookie`
 * out of the headers into `cookies`; it is put back because a client may have signed it. Throws a
 * TypeError for values no HTTP header may carry (control characters).
 */
export function eventHeaders(event: LambdaFunctionURLEvent): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers.set(name, asByteString(value));
  }
  if (event.cookies && event.cookies.length > 0 && !headers.has('cookie')) headers.set('cookie', event.cookies.join('; '));
  return headers;
}

/**
 * The Node server hands header values to the core as one character per received byte; an event carries
 * them as decoded text. Characters beyond Latin-1 go back to their UTF-8 bytes so the same request reaches
 * the core identically on every runtime (and `Headers` accepts it).
 */
function asByteString(value: string): string {
  return /[^\u0000-\u00ff]/.test(value) ? Buffer.from(value, 'utf8').toString('latin1') : value;
}

function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.length > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}
