import { Readable, Writable } from 'node:stream';
import { coalesceWrites, discardBody } from '../../../functions/runtime/node/executor';
import { WireResponse } from '../../../functions/runtime/node/http1/response';

/** A sink that records each batch it is asked to write at once (one syscall on a socket). */
function recordingSink(): { sink: Writable; batches: string[][]; finished: Promise<void> } {
  const batches: string[][] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      batches.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      batches.push(chunks.map(({ chunk }) => (chunk as Buffer).toString()));
      done();
    },
  });
  const finished = new Promise<void>((resolve) => sink.once('finish', () => resolve()));
  return { sink, batches, finished };
}

/** A body that delivers `chunks` within one turn of the event loop, as a fast socket's reads do. */
function burst(chunks: string[]): Readable {
  const body = new Readable({ read() {} });
  setImmediate(() => {
    for (const chunk of chunks) body.push(Buffer.from(chunk));
    body.push(null);
  });
  return body;
}

describe('Node executor: coalesced writes of a large body', () => {
  it('GIVEN chunks arriving in one turn THEN they reach the sink as one batch, in order', async () => {
    const body = burst(['a', 'b', 'c']);
    const { sink, batches, finished } = recordingSink();
    coalesceWrites(body, sink);
    body.pipe(sink);
    await finished;
    expect(batches).toEqual([['a', 'b', 'c']]);
  });

  it('GIVEN chunks in separate turns THEN each turn is written at the end of that turn, nothing held back', async () => {
    const body = new Readable({ read() {} });
    const { sink, batches, finished } = recordingSink();
    coalesceWrites(body, sink);
    body.pipe(sink);
    body.push(Buffer.from('1'));
    body.push(Buffer.from('2'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(batches).toEqual([['1', '2']]);
    body.push(Buffer.from('3'));
    body.push(null);
    await finished;
    expect(batches.flat()).toEqual(['1', '2', '3']);
  });

  it('GIVEN no coalescing THEN every chunk is its own write (what it saves)', async () => {
    const body = burst(['a', 'b', 'c']);
    const { sink, batches, finished } = recordingSink();
    body.pipe(sink);
    await finished;
    expect(batches).toEqual([['a'], ['b'], ['c']]);
  });
});

describe('Node executor: a backend body the client will not get', () => {
  function backendBody(contentLength: number): WireResponse {
    const body = new WireResponse();
    body.headers['content-length'] = String(contentLength);
    return body;
  }

  it('GIVEN a short body THEN it is read to its end, so its connection can serve again', async () => {
    const body = backendBody(1000);
    discardBody(body);
    body.push(Buffer.alloc(1000));
    body.push(null);
    await new Promise((resolve) => body.once('end', resolve));
    expect(body.destroyed).toBe(true); // autoDestroy, once read to its end
  });

  it('GIVEN a body over 64 KiB THEN it is given up at once, with its connection', () => {
    const body = backendBody(64 * 1024 + 1);
    let gaveUp = false;
    body.onDestroy = () => (gaveUp = true);
    discardBody(body);
    expect(gaveUp).toBe(true);
  });

  it('GIVEN a body being read through WHEN it is aborted (the client\'s response ended) THEN the error reaches no one and the process lives', async () => {
    const body = backendBody(1000);
    discardBody(body);
    body.push(Buffer.alloc(10));
    body.destroy(new Error('The client went away'));
    // An 'error' nobody listens for is thrown on the next tick, failing this spec as an uncaught exception.
    await new Promise((resolve) => setImmediate(resolve));
    expect(body.destroyed).toBe(true);
  });
});
