import type { LambdaFunctionURLEvent, StreamifyHandler } from 'aws-lambda';
import { Readable, type Writable } from 'node:stream';
import { S3Error } from '../../core/errors';
import type { ProxyRequest } from '../../core/http';
import { errorResponse } from '../../core/responses';
import { accessLogLine } from '../shared/access-log';
import { NO_LOGGED_METRICS, closeRecord, openRecord, type LoggedMetrics } from '../shared/observe';
import { onAbort } from '../node/backend';
import { execute, type NodeGateway } from '../node/executor';
import { processEnvironment } from '../shared/settings';
import { eventBody, toProxyRequest } from './event';
import { openResponse } from './response';

/**
 * Resolves the gateway and backend connections built at cold start (configuration, keys, caches and pooled
 * connections live as long as the sandbox).
 */
export type GatewayLoader = () => Promise<NodeGateway>;

/**
 * The Function URL adapter: the event becomes a ProxyRequest, the shared Node executor runs the dispatch
 * (Forward goes to the backend on its HTTP/1.1 client and its body is piped into the response stream), and one
 * access-log line is written. Decides nothing itself.
 */
export function streamingHandler(
  load: GatewayLoader,
  log: (line: string) => void = (line) => process.stdout.write(line + '\n'),
  metrics: LoggedMetrics = NO_LOGGED_METRICS,
): StreamifyHandler<LambdaFunctionURLEvent, void> {
  return async (event, responseStream, context) => {
    const { gateway, backend } = await load();
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
    const record = openRecord(request, metrics);
    let sink: Writable | undefined;
    const result = await execute(gateway, {
      request,
      record,
      backend,
      whenClientGone: (cancel) => onAbort(abort.signal, cancel),
      body: () => Readable.from(body.length > 0 ? [body] : []),
      start: (status, headers) => (sink = openResponse(responseStream, status, headers)),
    });
    abort.settle();
    const sample = closeRecord(request, result, record, metrics);
    log(accessLogLine(request, result, record, lambdaFields(context.awsRequestId), metrics.logFields && ((entry) => metrics.logFields?.(entry, sample))));
    // The stream was cut after the status went out: fail the invocation so the runtime reports it too.
    if (!sink?.writableFinished) throw result.error ?? new Error('The response stream did not finish');
  };
}

/**
 * The runtime's fields of the access log: the invocation's request id, and the X-Ray trace id Lambda sets in
 * `_X_AMZN_TRACE_ID` for each invocation (`Root=1-…;Parent=…;Sampled=…`), so a line joins its X-Ray trace.
 */
function lambdaFields(awsRequestId: string): Record<string, string> {
  const xray = processEnvironment()._X_AMZN_TRACE_ID;
  return xray ? { lambdaRequestId: awsRequestId, xrayTraceId: xray } : { lambdaRequestId: awsRequestId };
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
