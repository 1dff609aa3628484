/**
 * Streams a client's body through a checker on its way to the backend. The checker sees every byte, passes on
 * what is safe and holds back the last bytes until its final checks pass; when a check fails the stream
 * errors, which makes the runtime abort the backend request: the backend, still waiting for the declared
 * length, commits nothing.
 */
import { S3Error } from '../errors';
import { concat } from '../streams';

/** Passes bytes on to the backend. */
export type Emit = (bytes: Uint8Array) => void;

/** Checks a body piece by piece. Both methods throw an S3Error when the body is refused. */
export interface BodyChecker {
  /** One piece of the client's body, in order. */
  write(piece: Uint8Array, emit: Emit): void | Promise<void>;
  /** The client's body ended: the final checks, then whatever was held back. */
  end(emit: Emit): void | Promise<void>;
}

/**
 * After a refusal the rest of the client's body is read and dropped, so the runtime can still deliver the
 * error response on the same connection; beyond this much the source is cancelled (the connection dropped).
 */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * The checked body: pulls from `source` only as fast as the backend takes bytes (backpressure), and never
 * cancels `source` on a refusal (a cancelled Node request would take the client's connection, and the error
 * response, with it).
 *
 * @example const body = checkedStream(request.body(), new PayloadHashChecker(...));
 */
export function checkedStream(source: ReadableStream<Uint8Array>, checker: BodyChecker): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let finished = false;
  const stop = (): void => {
    if (finished) return;
    finished = true;
    void drain(reader);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let emitted = false;
        const emit: Emit = (bytes) => {
          if (bytes.length === 0) return;
          controller.enqueue(bytes);
          emitted = true;
        };
        try {
          while (!emitted) {
            const { done, value } = await reader.read();
            if (done) {
              finished = true;
              await checker.end(emit);
              controller.close();
              return;
            }
            await checker.write(value, emit);
          }
        } catch (err) {
          controller.error(err instanceof S3Error ? err : new S3Error('IncompleteBody', 'The request body could not be read'));
          stop();
        }
      },
      cancel() {
        stop();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Reads and drops what is left of a refused body, at most DRAIN_LIMIT_BYTES (then it is cancelled): a client
 * still sending then reads the answer instead of a reset connection.
 */
export async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let dropped = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      dropped += value.length;
      if (dropped > DRAIN_LIMIT_BYTES) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // The client went away; nothing left to drain.
  }
}

/**
 * Passes bytes on one piece late, so the last piece is still in hand when the body ends and can be withheld
 * if a final check fails.
 */
export class HoldBack {
  private held: Uint8Array | undefined;

  push(bytes: Uint8Array, emit: Emit): void {
    if (bytes.length === 0) return;
    if (this.held !== undefined) emit(this.held);
    this.held = bytes;
  }

  release(emit: Emit): void {
    if (this.held !== undefined) emit(this.held);
    this.held = undefined;
  }
}

/** Runs a checker over a complete body in memory (bodies collected through NeedsBody); returns what it passed on. */
export async function checkBytes(body: Uint8Array, checker: BodyChecker): Promise<Uint8Array> {
  const out: Uint8Array[] = [];
  const emit: Emit = (bytes) => void out.push(bytes);
  if (body.length > 0) await checker.write(body, emit);
  await checker.end(emit);
  return concat(out);
}
