import type { LambdaFunctionURLEvent, StreamifyHandler } from 'aws-lambda';
import { Readable, type Writable } from 'node:stream';
import { S3Error } from '../core/errors';
import type { Gateway } from '../core/gateway';
import type { ProxyRequest } from '../core/http';
import { errorResponse } from '../core/responses';
import { accessLogLine } from './access-log';
import { eventBody, toProxyRequest } from './lambda-event';
import { openResponse } from './lambda-response';
import { execute } from './node-executor';
import { onAbort } from './node-http';

/** Resolves the gateway built at cold start (configuration, keys and caches live as long as the sandbox). */
export type GatewayLoader = () => Promise<Gateway>;

/**
 * The Function URL adapter: the event becomes a ProxyRequest, the shared Node executor runs the dispatch
 * (Forward goes to the backend with node:http and its body is piped into the response stream), and one
 * access-log line is written. Decides nothing itself.
 */
export function streamingHandler(
  load: GatewayLoader,
  log: (line: string) => void = (line) => process.stdout.write(line + '\n'),
): StreamifyHandler<LambdaFunctionURLEvent, void> {
  return async (event, responseStream, context) => {
    const started = performance.now();
    const gateway = await load();
    const abort = abortWhenGone(responseStream);
    const body = eventBody(event);
    let request: ProxyRequest;
    try {
      request = toProxyRequest(event, body, abort.signal, context.awsRequestId);
    } catch {
      // Header values a Headers object refuses: the client's error, answered as the Node server does.
      abort.settle();
      return malformedHeaders(event, responseStream, context.awsRequestId);
    }
    let sink: Writable | undefined;
    const result = await execute(gateway, {
      request,
      whenClientGone: (cancel) => onAbort(abort.signal, cancel),
      body: () => Readable.from(body.length > 0 ? [body] : []),
      start: (status, headers) => (sink = openResponse(responseStream, status, headers)),
    });
    abort.settle();
    log(accessLogLine(request, result, started, { lambdaRequestId: context.awsRequestId }));
    // The stream was cut after the status went out: fail the invocation so the runtime reports it too.
    if (!sink?.writableFinished) throw result.error ?? new Error('The response stream did not finish');
  };
}

async function malformedHeaders(event: LambdaFunctionURLEvent, responseStream: Writable, requestId: string): Promise<void> {
  const error = new S3Error('InvalidRequest', 'The request headers are malformed');
  const response = errorResponse(error, requestId, event.requestContext.http.method.toUpperCase(), '/');
  const sink = openResponse(responseStream, response.status, response.headers);
  await new Promise<void>((resolve) => sink.end(response.body ?? undefined, resolve));
}

/**
 * Lambda has no request socket to watch: the client is gone when the response stream errors or closes before
 * the response finished. The backend request is then aborted. The error listener also keeps a broken stream
 * from crashing the sandbox.
 */
function abortWhenGone(stream: Writable): { signal: AbortSignal; settle: () => void } {
  const controller = new AbortController();
  const gone = (): void => controller.abort();
  stream.once('error', gone);
  stream.once('close', gone);
  return {
    signal: controller.signal,
    settle: () => {
      stream.off('close', gone);
      stream.off('error', gone);
      stream.on('error', () => undefined);
    },
  };
}
