import type { Context, StreamifyHandler } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';

/**
 * A faithful stand-in for the Lambda Node.js runtime's `awslambda` global and its response stream, as
 * aws-lambda-nodejs-runtime-interface-client implements them:
 * - `HttpResponseStream.from()` only sets the content type and installs a hook; the JSON prelude and its 8
 *   NUL bytes are written by the hook on the FIRST `write()`. `end()` without a prior write sends nothing,
 *   and `end(chunk)` bypasses the hook too (runtime-interface-client issue #97), exactly as on Lambda.
 * - The handler must be async, and the stream must be finished when its promise resolves.
 * The stream is a PassThrough so the local Function URL reads what the handler writes, with backpressure.
 */

export const HTTP_INTEGRATION_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
const DELIMITER_LENGTH = 8;
/** How the runtime recognises a streaming handler. */
const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');

type WriteCallback = (error: Error | null | undefined) => void;
type BeforeFirstWrite = (write: (chunk: string | Uint8Array) => void) => void;

export class LocalResponseStream extends PassThrough {
  /** The content type the runtime would send to Lambda with the stream. */
  contentType = DEFAULT_CONTENT_TYPE;
  /** Set by HttpResponseStream.from; run once, before the first write. */
  _onBeforeFirstWrite?: BeforeFirstWrite;
  /** Why the invocation failed, when it did (the runtime reports it with error trailers). */
  failure?: unknown;
  private writeCalled = false;

  setContentType(contentType: string): void {
    if (this.writeCalled) throw new Error('Cannot set content-type, too late.');
    this.contentType = contentType;
  }

  override write(chunk: string | Uint8Array, encoding?: BufferEncoding | WriteCallback, callback?: WriteCallback): boolean {
    if (!this.writeCalled && typeof this._onBeforeFirstWrite === 'function') {
      this._onBeforeFirstWrite((c) => super.write(c));
    }
    this.writeCalled = true;
    return typeof encoding === 'function' ? super.write(chunk, encoding) : super.write(chunk, encoding ?? 'utf8', callback);
  }
}

export const HttpResponseStream = {
  from(underlying: LocalResponseStream, prelude: Record<string, unknown>): LocalResponseStream {
    underlying.setContentType(HTTP_INTEGRATION_CONTENT_TYPE);
    const metadata = JSON.stringify(prelude);
    underlying._onBeforeFirstWrite = (write) => {
      write(metadata);
      write(new Uint8Array(DELIMITER_LENGTH));
    };
    return underlying;
  },
};

export function streamifyResponse<E, R>(handler: StreamifyHandler<E, R>): StreamifyHandler<E, R> {
  Object.defineProperty(handler, STREAMING, { value: 'response' });
  return handler;
}

/** Makes the stand-in the process's `awslambda` global, as the runtime does before loading the handler. */
export function installAwsLambda(): void {
  Object.assign(globalThis, { awslambda: { streamifyResponse, HttpResponseStream } });
}

export interface InvokeOptions {
  /** The function's timeout; the invocation fails when it is reached. */
  readonly timeoutMs?: number;
  readonly memoryLimitInMB?: number;
  readonly awsRequestId?: string;
}

/**
 * Runs one invocation as the runtime does and returns the response stream to read. A handler that throws,
 * is not async, times out, or returns without finishing the stream fails the invocation: the stream is
 * destroyed with `failure` set.
 */
export function invoke<E>(handler: StreamifyHandler<E, unknown>, event: E, options: InvokeOptions = {}): LocalResponseStream {
  if ((handler as unknown as Record<symbol, unknown>)[STREAMING] !== 'response') {
    throw new TypeError('The handler is not wrapped in awslambda.streamifyResponse');
  }
  const stream = new LocalResponseStream();
  const timeoutMs = options.timeoutMs ?? 15 * 60_000;
  const deadline = Date.now() + timeoutMs;
  const fail = (err: unknown): void => {
    stream.failure = err;
    stream.destroy(err instanceof Error ? err : new Error(String(err)));
  };
  const timer = setTimeout(() => fail(new Error(`Task timed out after ${timeoutMs / 1000} seconds`)), timeoutMs);
  timer.unref();
  const context = lambdaContext(options, deadline);
  let result: unknown;
  try {
    result = handler(event, stream as never, context);
  } catch (err) {
    clearTimeout(timer);
    fail(err);
    return stream;
  }
  if (!isPromise(result)) {
    clearTimeout(timer);
    fail(new Error('Streaming does not support non-async handlers.'));
    return stream;
  }
  result.then(
    // Like the runtime, wait for the stream to be delivered (or the timeout) before checking it finished.
    () => whenWritableDone(stream).then(() => {
      clearTimeout(timer);
      if (!stream.writableFinished) fail(new Error('Response stream is not finished.'));
    }),
    (err: unknown) => {
      clearTimeout(timer);
      fail(err);
    },
  );
  return stream;
}

function whenWritableDone(stream: LocalResponseStream): Promise<void> {
  if (stream.writableFinished || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('finish', () => resolve());
    stream.once('close', () => resolve());
  });
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Promise<unknown>).then === 'function';
}

function lambdaContext(options: InvokeOptions, deadline: number): Context {
  const unsupported = (): never => {
    throw new Error('callback-style completion is not available to streaming handlers');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 's3-gateway-local',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:s3-gateway-local',
    memoryLimitInMB: String(options.memoryLimitInMB ?? 1024),
    awsRequestId: options.awsRequestId ?? randomUUID(),
    logGroupName: '/aws/lambda/s3-gateway-local',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}
