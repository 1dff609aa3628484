import { Writable } from 'node:stream';
import { asciiHeaders } from '../core/header-encoding';
import type { HeaderMap } from '../core/http';
import { functionUrlHeaders } from './function-url-headers';

/**
 * The Lambda side of a response: status and headers go out as the `HttpResponseStream` prelude, then the body
 * streams. The runtime sends the prelude on the first `write()` only (`end()` alone sends nothing, and
 * `end(chunk)` bypasses the hook), so `openResponse` writes an empty chunk at once: body-less responses (HEAD,
 * 204, 304, errors without body) still deliver their status and headers, and the status is fixed before the
 * first body byte. The headers are those a Function URL passes unchanged (`functionUrlHeaders`).
 *
 * Header values go out as plain ASCII (core/header-encoding.ts): the prelude is JSON text, which can name
 * characters but not bytes, and what the Function URL makes of a non-ASCII header value is not documented
 * (platform-function-url.md lists no such case). A backend's raw UTF-8 `Content-Disposition` filename becomes
 * an RFC 8187 `filename*`, other non-ASCII values RFC 2047 encoded words.
 */
export function openResponse(responseStream: Writable, status: number, headers: HeaderMap): Writable {
  const stream = awslambda.HttpResponseStream.from(responseStream, { statusCode: status, headers: functionUrlHeaders(asciiHeaders(headers)) });
  stream.write('');
  return forwardTo(stream);
}

/**
 * A Writable in front of the runtime's stream. The runtime hands out a plain object of bound methods on some
 * versions (not a stream.Writable), so the executor's `pipeline` gets a real Writable that only calls
 * `write`, `end`, `destroy` and the event methods on it. Backpressure is kept: a chunk is acknowledged only
 * once the runtime's stream has drained. It never calls `end(chunk)` (which would skip the prelude).
 */
function forwardTo(target: Writable): Writable {
  const writable = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (target.write(chunk)) callback();
      else waitForDrain(target, callback);
    },
    final(callback) {
      target.end(() => callback());
    },
    destroy(err, callback) {
      // A failure after the first byte: the status is gone, so the stream is cut rather than ended cleanly.
      if (!target.writableFinished) target.destroy(err ?? undefined);
      callback(err);
    },
  });
  // A broken runtime stream must not crash the sandbox; the executor sees it as a close before finishing.
  writable.on('error', () => undefined);
  return writable;
}

function waitForDrain(target: Writable, callback: (err?: Error | null) => void): void {
  const done = (err?: Error): void => {
    target.off('drain', onDrain);
    target.off('close', onClose);
    target.off('error', done);
    callback(err);
  };
  const onDrain = (): void => done();
  const onClose = (): void => done(new Error('The response stream closed'));
  target.once('drain', onDrain);
  target.once('close', onClose);
  target.once('error', done);
}
