import { Readable } from 'node:stream';

/** A backend's answer: status and headers as node:http's IncomingMessage has them, the body as a stream. */
export class WireResponse extends Readable {
  readonly headers: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  statusCode = 0;
  /** Set by the exchange: lets the socket flow again once the reader wants more. */
  onRead: () => void = () => undefined;
  /** Set by the exchange: a reader that gives up on the body gives up the connection too. */
  onDestroy: () => void = () => undefined;
  /** The whole body has arrived: what is buffered is all of it, and `read()` returns it at once. */
  whole = false;

  override _read(): void {
    this.onRead();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.onDestroy();
    callback(err);
  }
}
