import type net from 'node:net';
import type { Readable } from 'node:stream';
import type { ChunkSink } from './chunked';
import { listen } from './listeners';
import type { WireResponse } from './response';
import { type BodyFraming, type HeadReceiver, parseResponseHead } from './response-head';
import { ProtocolError } from './syntax';

/** What an exchange reports: exactly one of response or error for the head; body events go to the response. */
export interface ExchangeEvents {
  readonly response: (response: WireResponse) => void;
  readonly error: (err: Error) => void;
  /** The connection was idle for the pool's request timeout. */
  readonly timeout: () => void;
}

const MAX_HEAD_BYTES = 64 * 1024;
const CRLF_CRLF = Buffer.from('\r\n\r\n');
const NO_BODY: BodyFraming = { kind: 'none' };

/** One request and its answer on one connection. */
export class Exchange implements ChunkSink, HeadReceiver {
  private head: Buffer | undefined;
  private response: WireResponse | undefined;
  private framing: BodyFraming = NO_BODY;
  private bodySent: boolean;
  private ended = false;
  private keepAlive = true;
  private settled?: () => void;
  private bodySource?: Readable;
  private readonly detach: () => void;

  constructor(
    private readonly socket: net.Socket,
    private readonly method: string,
    /** A streamed request's head, until it goes out with the body's first bytes. */
    private pendingHead: string | undefined,
    private readonly chunked: boolean,
    private readonly events: ExchangeEvents,
    private readonly finish: (reusable: boolean) => void,
  ) {
    this.bodySent = pendingHead === undefined;
    this.detach = listen(socket, [
      ['data', (data: Buffer) => this.onData(data)],
      ['end', () => this.onEnd()],
      ['close', () => this.destroy(new Error('socket hang up'))],
      ['error', (err: Error) => this.destroy(err)],
      ['timeout', () => this.events.timeout()],
      ['drain', () => this.bodySource?.resume()],
    ]);
  }

  /** Whether the exchange is over: answered in full, or failed. */
  get done(): boolean {
    return this.ended;
  }

  /** Whether the connection holds more of the body than it has sent (the backend is not reading). */
  get needsDrain(): boolean {
    return this.socket.writableNeedDrain;
  }

  /** Writes the request body from `source`, framed as the head said, pausing it while the connection is full. */
  sendBody(source: Readable): void {
    this.bodySource = source;
    source.on('data', (data: Buffer) => {
      if (this.ended || data.length === 0) return;
      if (!this.writeBody(data)) source.pause();
    });
    source.once('end', () => {
      if (this.ended) return;
      this.writeBody(undefined);
      this.bodySent = true;
      this.bodySource = undefined;
    });
  }

  /** Writes one piece of the body (undefined: its end), framed, after the head if that is still pending. */
  private writeBody(data: Buffer | undefined): boolean {
    const { socket } = this;
    let flowing = true;
    socket.cork();
    if (this.pendingHead !== undefined) flowing = socket.write(this.pendingHead, 'latin1');
    this.pendingHead = undefined;
    if (this.chunked) flowing = socket.write(data === undefined ? '0\r\n\r\n' : `${data.length.toString(16)}\r\n`, 'latin1');
    if (data !== undefined) flowing = socket.write(data);
    if (this.chunked && data !== undefined) flowing = socket.write('\r\n', 'latin1');
    socket.uncork();
    return flowing;
  }

  /** Runs `callback` once, when the head is answered or the exchange fails. */
  onSettled(callback: () => void): void {
    this.settled = callback;
  }

  private settle(): void {
    const callback = this.settled;
    this.settled = undefined;
    callback?.();
  }

  private onData(data: Buffer): void {
    if (this.ended) return;
    try {
      if (this.response === undefined) {
        const rest = this.readHead(data);
        if (rest === undefined || this.ended) return;
        data = rest;
      }
      if (data.length > 0) this.readBody(data);
    } catch (err) {
      this.destroy(err instanceof Error ? err : new ProtocolError(String(err)));
    }
  }

  /** Collects the head; once whole, announces the response and returns what followed it. */
  private readHead(data: Buffer): Buffer | undefined {
    let buffered = this.head === undefined ? data : Buffer.concat([this.head, data]);
    for (;;) {
      const end = buffered.indexOf(CRLF_CRLF);
      if ((end < 0 ? buffered.length : end) > MAX_HEAD_BYTES) throw new ProtocolError('The backend sent a response head over 64 KiB');
      if (end < 0) {
        this.head = buffered;
        return undefined;
      }
      const final = parseResponseHead(buffered.toString('latin1', 0, end), this.method, this.socket.readableHighWaterMark, this);
      buffered = buffered.subarray(end + 4);
      // 1xx answers (100 Continue) precede the real one.
      if (!final) continue;
      this.head = undefined;
      return buffered;
    }
  }

  /** The answer's head has arrived: hand the response on, and finish at once if it has no body. */
  announce(response: WireResponse, framing: BodyFraming, keepAlive: boolean): void {
    this.keepAlive = keepAlive;
    this.framing = framing;
    this.response = response;
    response.onRead = () => {
      if (!this.ended) this.socket.resume();
    };
    // Every response is destroyed once read to its end (autoDestroy): an Error built then, stack and all,
    // was a measurable share of a small GET.
    response.onDestroy = () => {
      if (!this.ended) this.destroy(new Error('The response was abandoned'));
    };
    this.settle();
    this.events.response(response);
    if (framing.kind === 'none' || (framing.kind === 'length' && framing.left === 0)) this.complete();
  }

  private readBody(data: Buffer): void {
    const framing = this.framing;
    if (framing.kind === 'length') {
      if (data.length > framing.left) {
        // Bytes past the answer: the connection is out of step, so it is not reused.
        this.keepAlive = false;
        data = data.subarray(0, framing.left);
      }
      framing.left -= data.length;
      this.push(data);
      if (framing.left === 0) this.complete();
    } else if (framing.kind === 'chunked') {
      const past = framing.body.read(data, this);
      if (past < 0) return;
      if (past > 0) this.keepAlive = false;
      this.complete();
    } else if (framing.kind === 'close') this.push(data);
    else this.keepAlive = false;
  }

  /** Hands a piece of the body to the response, pausing the socket while the reader is behind. */
  push(data: Buffer): void {
    if (data.length > 0 && this.response?.push(data) === false) this.socket.pause();
  }

  private onEnd(): void {
    if (this.ended) return;
    if (this.response !== undefined && this.framing.kind === 'close') {
      this.keepAlive = false;
      this.complete();
    } else this.destroy(new Error('socket hang up'));
  }

  /** The answer is whole: end its body and hand the connection back, reusable if both sides are done. */
  private complete(): void {
    this.ended = true;
    this.detach();
    if (this.response !== undefined) {
      this.response.whole = true;
      this.response.push(null);
    }
    this.finish(this.keepAlive && this.bodySent);
  }

  /** Ends the exchange with `err`: the head's error, or the body's if the head was already answered. */
  destroy(err: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.detach();
    this.finish(false);
    this.settle();
    if (this.response === undefined) this.events.error(err);
    else this.response.destroy(err);
  }
}
