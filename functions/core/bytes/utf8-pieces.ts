/**
 * Long UTF-8 text that travels in pieces: a backend's document decoded chunk by chunk as it arrives, and a
 * document written in pieces turned into one buffer. Both are listing pages on the hot path (~290 KB for
 * 1,000 keys), where the platform's cheapest path gives the same result as the general one:
 * - Node's `TextDecoder` decodes a whole buffer with simdutf (~8 µs per 64 KiB on the bench machine), but a
 *   decoder once asked to stream runs ICU's converter from then on (~50-100 µs). So each chunk is decoded
 *   whole, up to its last complete character; the bytes of a character cut off by the chunk's end wait for
 *   the next one.
 * - `TextEncoder.encode` per piece and a copy of all of them into one array cost ~4x what `encodeInto`
 *   straight into the one array does.
 */

/**
 * Decodes a body's chunks in turn, as one `TextDecoder` with `{ stream: true }` does: U+FFFD for what is not
 * UTF-8, a byte order mark dropped only at the very start.
 */
export class Utf8ChunkDecoder {
  // A decoder that never streams keeps Node's fast path; the mark is dropped by hand, once.
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  private held: Uint8Array | undefined;
  private atStart = true;

  decode(chunk: Uint8Array): string {
    let bytes = chunk;
    if (this.held !== undefined) {
      bytes = new Uint8Array(this.held.length + chunk.length);
      bytes.set(this.held);
      bytes.set(chunk, this.held.length);
      this.held = undefined;
    }
    const cut = completeLength(bytes);
    if (cut < bytes.length) this.held = bytes.slice(cut);
    return this.text(cut === bytes.length ? bytes : bytes.subarray(0, cut));
  }

  /** What a character cut off by the end of the body leaves: U+FFFD, as `TextDecoder` gives. */
  end(): string {
    const held = this.held;
    this.held = undefined;
    return held === undefined ? '' : this.text(held);
  }

  private text(bytes: Uint8Array): string {
    if (bytes.length === 0) return '';
    const text = this.decoder.decode(bytes);
    if (!this.atStart) return text;
    this.atStart = false;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}

/**
 * The length of `bytes` without a character its end cuts off: a lead byte whose sequence needs more bytes
 * than follow it, and those that do. Cutting before a byte that is no continuation byte decodes exactly as
 * decoding the whole would, since such a byte ends whatever sequence came before it.
 */
function completeLength(bytes: Uint8Array): number {
  const n = bytes.length;
  // A sequence is at most four bytes long, so a lead byte further back than three is complete either way.
  for (let i = n - 1; i >= 0 && i >= n - 3; i--) {
    const b = bytes[i];
    if ((b & 0xc0) === 0x80) continue;
    const needs = b >= 0xf0 ? (b <= 0xf4 ? 4 : 1) : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 1;
    return needs > n - i ? i : n;
  }
  return n;
}

/** Never asked to stream, so it keeps Node's fast path. */
const whole = new TextDecoder();

/** Text from UTF-8 bytes, as `new TextDecoder().decode` reads it (U+FFFD for what is not UTF-8). */
export function decodeUtf8(bytes: Uint8Array): string {
  return whole.decode(bytes);
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
