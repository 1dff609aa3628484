import { S3Error } from '../../functions/core/errors';
import { backendDocument, concat, readBounded } from '../../functions/core/streams';

const streamOf = (...chunks: string[]): ReadableStream<Uint8Array> =>
  new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });

describe('readBounded', () => {
  it('collects a body up to the bound, across chunks', async () => {
    expect(new TextDecoder().decode(await readBounded(streamOf('ab', 'cd'), 4))).toBe('abcd');
  });

  it('answers undefined for a body one byte over the bound, and an empty body for none', async () => {
    expect(await readBounded(streamOf('ab', 'cde'), 4)).toBeUndefined();
    expect(await readBounded(null, 4)).toEqual(new Uint8Array(0));
  });
});

describe('backendDocument', () => {
  it('reads a backend document as UTF-8 text', async () => {
    expect(await backendDocument(streamOf('<a>ü</a>'))).toBe('<a>ü</a>');
  });

  it('refuses a document beyond 32 MiB with 502 instead of buffering it', async () => {
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(1024 * 1024));
      },
    });
    const error = await backendDocument(endless).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(S3Error);
    expect((error as S3Error).code).toBe('BadGateway');
  });
});

describe('concat', () => {
  it('joins pieces in order, hands back a single piece as it is, and makes nothing of none', () => {
    const one = new Uint8Array([1, 2]);
    expect([...concat([one, new Uint8Array(0), new Uint8Array([3])])]).toEqual([1, 2, 3]);
    expect(concat([one])).toBe(one);
    expect(concat([]).length).toBe(0);
  });
});
