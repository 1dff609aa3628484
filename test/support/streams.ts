/** A body as a stream of `pieceSize`-byte chunks, each a fresh array, as a socket hands a body on. */
export function streamOf(text: string | Uint8Array, pieceSize: number): ReadableStream<Uint8Array> {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += pieceSize) controller.enqueue(bytes.slice(i, i + pieceSize));
      controller.close();
    },
  });
}
