/**
 * Long UTF-8 text that travels in pieces: a backend's document decoded chunk by chunk as it arrives, and a
 * document written in pieces turned into one buffer. Both are listing pages on the hot path (~290 KB for
 * 1,000 keys), and both are nearly always ASCII (keys come URL-encoded), where cheaper paths give the same
 * result:
 * - Node's UTF-8 `TextDecoder` runs ICU's converter, ~100 µs per 64 KiB on the bench machine, where its
 *   latin1 decoder copies bytes (~20 µs). For ASCII bytes the two decoders agree.
 * - `TextEncoder.encode` per piece and a copy of all of them into one array cost ~4x what `encodeInto`
 *   straight into the one array does.
 */

type Decoder = InstanceType<typeof TextDecoder>;

/** The latin1 decoder where the platform has one (Node's and workerd's do); for ASCII it is the UTF-8 reading. */
const LATIN1: Decoder | undefined = (() => {
  try {
    return new TextDecoder('latin1');
  } catch {
    return undefined;
  }
})();

/**
 * Decodes a body's chunks in turn, as `TextDecoder` with `{ stream: true }` does. Chunks are copied as
 * latin1 while every byte so far is ASCII; from the first other byte on, the UTF-8 decoder reads the rest
 * (it alone knows a character split across chunks).
 */
export class Utf8ChunkDecoder {
  private utf8: Decoder | undefined;

  decode(chunk: Uint8Array): string {
    if (this.utf8 === undefined && LATIN1 !== undefined && isAscii(chunk)) return LATIN1.decode(chunk);
    this.utf8 ??= new TextDecoder();
    return this.utf8.decode(chunk, { stream: true });
  }

  /** What a character cut off by the end of the body leaves: U+FFFD, as `TextDecoder` gives. */
  end(): string {
    return this.utf8 === undefined ? '' : this.utf8.decode();
  }
}

/** Text from UTF-8 bytes, as `new TextDecoder().decode` reads it (U+FFFD for what is not UTF-8). */
export function decodeUtf8(bytes: Uint8Array): string {
  const decoder = new Utf8ChunkDecoder();
  return decoder.decode(bytes) + decoder.end();
}

/** Whether every byte is below 0x80, read four at a time where the bytes are aligned for it. */
export function isAscii(bytes: Uint8Array): boolean {
  const n = bytes.length;
  if (n === 0) return true;
  const head = Math.min(n, (4 - (bytes.byteOffset & 3)) & 3);
  const words = (n - head) >>> 2;
  let seen = 0;
  // The bytes before the first 4-byte boundary and after the last, one by one. Each loop runs on every call
  // (reading the first or last byte again at worst): V8 deoptimizes optimized code that reaches a path it had
  // not run before, and kept doing so on a third of a listing's chunks in the Node server (--trace-deopt).
  for (let i = 0; i < head || i === 0; i++) seen |= bytes[i];
  for (let i = Math.min(head + words * 4, n - 1); i < n; i++) seen |= bytes[i];
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + head, words);
    for (let w = 0; w < words; w++) seen |= view[w];
  }
  return (seen & 0x80808080) === 0;
}

const encoder = new TextEncoder();

/** The UTF-8 bytes of the pieces, one after another, in one array. */
export function utf8Pieces(pieces: readonly string[]): Uint8Array {
  let left = 0;
  for (const piece of pieces) left += piece.length;
  // Exactly the size for ASCII, where each UTF-16 unit is one byte.
  let out = new Uint8Array(left);
  let at = 0;
  for (const piece of pieces) {
    let { read, written } = encoder.encodeInto(piece, out.subarray(at));
    if (read < piece.length) {
      // A character took more bytes than units: room for the worst case (3 bytes a unit) from here on.
      const wider = new Uint8Array(at + written + (left - read) * 3);
      wider.set(out.subarray(0, at + written));
      out = wider;
      written += encoder.encodeInto(piece.slice(read), out.subarray(at + written)).written;
    }
    at += written;
    left -= piece.length;
  }
  return out.subarray(0, at);
}
