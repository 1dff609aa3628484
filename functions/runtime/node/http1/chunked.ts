import { ProtocolError } from './syntax';

/** Where a chunked body's pieces go; `done` once the exchange has ended (a piece's reader may end it). */
export interface ChunkSink {
  readonly done: boolean;
  push(piece: Buffer): void;
}

/** Longest chunk-size or trailer line accepted. */
const MAX_LINE = 4096;

/** The decoder of one `Transfer-Encoding: chunked` body, fed the socket's reads as they come. */
export class ChunkedBody {
  private left = 0;
  private state: 'size' | 'data' | 'data-end' | 'trailers' = 'size';
  private line = '';

  /**
   * Decodes `data`, handing each piece of the body to `sink` as a slice of it. Returns -1 while the body goes
   * on; once it has ended (last chunk and trailers read), how many bytes of `data` followed it.
   */
  read(data: Buffer, sink: ChunkSink): number {
    let at = 0;
    while (at < data.length && !sink.done) {
      if (this.state === 'data') {
        const n = Math.min(this.left, data.length - at);
        sink.push(data.subarray(at, at + n));
        at += n;
        this.left -= n;
        if (this.left === 0) this.state = 'data-end';
        continue;
      }
      const eol = data.indexOf(10, at);
      const end = eol < 0 ? data.length : eol + 1;
      this.line += data.toString('latin1', at, end);
      at = end;
      if (this.line.length > MAX_LINE) throw new ProtocolError('The backend sent an invalid chunk');
      if (eol < 0) continue;
      const line = this.line.replace(/\r?\n$/, '');
      this.line = '';
      if (this.state === 'data-end') {
        if (line !== '') throw new ProtocolError('The backend sent an invalid chunk');
        this.state = 'size';
      } else if (this.state === 'size') {
        const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(line);
        if (size === null) throw new ProtocolError('The backend sent an invalid chunk size');
        this.left = parseInt(size[1], 16);
        this.state = this.left === 0 ? 'trailers' : 'data';
      } else if (line === '') return data.length - at;
    }
    return -1;
  }
}
