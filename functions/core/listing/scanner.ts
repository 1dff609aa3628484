/**
 * What the listing scanners share (s3-scanner.ts for S3's and GCS's ListBucketResult, backends/azure/listing.ts
 * for Azure's EnumerationResults): the driver that feeds a document piece by piece (PieceScanner), a cursor
 * over the text, and reading a body with a scanner or, when it gives up, with the general parser.
 */
import { backendTextPieces } from '../streams';
import { decodeEntities } from '../xml';
import { elementText } from './compact';

/** What a scanner answers for a document outside the form it reads: the general parser decides. */
export const UNRECOGNISED = 'unrecognised';

/** A declaration and root start tag longer than this is not the shape backends send. */
const MAX_PROLOG_CHARS = 4096;
/**
 * The most unread text a scanner waits on. An entry is a few KiB at most, so more is one element that does
 * not end; searched again with every piece, it would cost time quadratic in its length (18 s of CPU for a
 * 16 MiB key), where the parser reads it once.
 */
const MAX_PENDING_CHARS = 1 << 20;

/**
 * A listing document read by `scanner` piece by piece as it arrives, or, when the scanner gives up, by
 * `parse` over the whole text (kept in the pieces it came in).
 */
export async function scanOrParse<T>(body: ReadableStream<Uint8Array> | null, scanner: { feed(text: string): unknown; end(): T | undefined }, parse: (xml: string) => T | undefined): Promise<T | undefined> {
  const texts: string[] = [];
  await backendTextPieces(body, (text) => {
    texts.push(text);
    scanner.feed(text);
  });
  return scanner.end() ?? parse(texts.join(''));
}

/**
 * A scanner fed a document piece by piece. It keeps only the unread tail, reads the prolog up to the root's
 * start tag, then hands each element below the root to `element` once a tag of it has arrived; the document
 * is read when `element` has met the root's end tag (`finish`) and only whitespace follows. Whatever is not
 * of the form it reads (or waits past MAX_PENDING_CHARS) makes it give up for good.
 */
export abstract class PieceScanner<T> {
  private pending = '';
  private phase: 'prolog' | 'body' | 'done' | 'failed' = 'prolog';

  constructor(private readonly root: string) {}

  /** Takes the next piece of the document; false once the scanner has given up. */
  feed(text: string): boolean {
    if (this.phase !== 'failed') {
      this.pending = this.pending.length === 0 ? text : this.pending + text;
      this.advance(false);
    }
    return this.phase !== 'failed';
  }

  /** After the last piece: what was read, or undefined when the document is not of the form it reads. */
  end(): T | undefined {
    if (this.phase !== 'failed') this.advance(true);
    return this.phase === 'done' ? this.result() : undefined;
  }

  /** The document in `pieces`, fed in turn: what was read, or undefined. */
  read(pieces: string | readonly string[]): T | undefined {
    for (const piece of typeof pieces === 'string' ? [pieces] : pieces) this.feed(piece);
    return this.end();
  }

  /** Reads what stands at the cursor below the root: true when read, MORE to wait for the rest, FAILED. */
  protected abstract element(at: Cursor): Step;

  protected abstract result(): T;

  /** For `element`, on the root's end tag. */
  protected finish(): void {
    this.phase = 'done';
  }

  private advance(final: boolean): void {
    const at = new Cursor(this.pending);
    if (this.phase === 'prolog') {
      const step = prolog(at, final, this.root);
      if (step === MORE) return;
      this.phase = step === true ? 'body' : 'failed';
    }
    while (this.phase === 'body') {
      at.skipSpace();
      if (at.i >= at.xml.length) break;
      const step = at.xml.indexOf('>', at.i) < 0 ? MORE : this.element(at);
      if (step === MORE) break;
      if (step === FAILED) this.phase = 'failed';
    }
    if (this.phase === 'done' && !at.atEnd()) this.phase = 'failed';
    if (final && this.phase !== 'done') this.phase = 'failed';
    if (at.xml.length - at.i > MAX_PENDING_CHARS) this.phase = 'failed';
    this.pending = this.phase === 'failed' ? '' : at.xml.slice(at.i);
  }
}

/** An empty element (`<Marker/>`, `<NextMarker />`), as Azure and GCS write empty fields below the root. */
export const EMPTY_ELEMENT = /<([A-Za-z]+) ?\/>/y;

/** The outcome of one step: done with it, wait for more text, or give up. */
export const MORE = 0;
export const FAILED = 1;
export type Step = boolean | typeof MORE | typeof FAILED;

/** The declaration and the start tag of the root named `name`, once both have arrived. */
function prolog(at: Cursor, final: boolean, name: string): Step {
  const xml = at.xml;
  const root = xml.indexOf(`<${name}`);
  if (root < 0 || xml.indexOf('>', root) < 0) return final || xml.length > MAX_PROLOG_CHARS ? FAILED : MORE;
  at.skipSpace();
  if (xml.startsWith('<?xml', at.i)) {
    const end = xml.indexOf('?>', at.i);
    if (end < 0) return FAILED;
    at.i = end + 2;
    at.skipSpace();
  }
  if (at.i !== root) return FAILED;
  const rootEnd = xml.indexOf('>', root);
  const afterName = xml.charCodeAt(root + name.length + 1);
  if ((afterName !== 62 && afterName !== 32) || /["'<]/.test(xml.slice(root + 1, rootEnd).replace(/="[^"<>]*"|='[^'<>]*'/g, ''))) return FAILED;
  if (xml.charCodeAt(rootEnd - 1) === 47 /* a self-closing root */) return FAILED;
  at.i = rootEnd + 1;
  return true;
}

/** A cursor over the text: each read moves past what it recognised, or reports that it did not. */
export class Cursor {
  i = 0;
  constructor(readonly xml: string) {}

  skipSpace(): void {
    const xml = this.xml;
    let c = xml.charCodeAt(this.i);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = xml.charCodeAt(++this.i);
  }

  /** Reads `<Name>` (letters only, no attributes) at the cursor: the name, or undefined when it is not one. */
  openTag(): string | undefined {
    const xml = this.xml;
    if (xml.charCodeAt(this.i) !== 60 /* < */) return undefined;
    const start = this.i + 1;
    let j = start;
    let c = xml.charCodeAt(j);
    while ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) c = xml.charCodeAt(++j);
    if (c !== 62 /* > */ || j === start) return undefined;
    this.i = j + 1;
    return xml.slice(start, j);
  }

  /** `openTag` without cutting the name out: its length (the name ends just before the cursor), or -1. */
  openName(): number {
    const xml = this.xml;
    if (xml.charCodeAt(this.i) !== 60 /* < */) return -1;
    const start = this.i + 1;
    let j = start;
    let c = xml.charCodeAt(j);
    while ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) c = xml.charCodeAt(++j);
    if (c !== 62 /* > */ || j === start) return -1;
    this.i = j + 1;
    return j - start;
  }

  /** Consumes the end tag of the name standing at `start`; false when it is not at the cursor. */
  closeAt(start: number, length: number): boolean {
    const xml = this.xml;
    const at = this.i;
    if (xml.charCodeAt(at) !== 60 || xml.charCodeAt(at + 1) !== 47 /* / */ || xml.charCodeAt(at + 2 + length) !== 62) return false;
    for (let k = 0; k < length; k++) if (xml.charCodeAt(at + 2 + k) !== xml.charCodeAt(start + k)) return false;
    this.i = at + 3 + length;
    return true;
  }

  /** Moves past text nobody reads: '' when it is there and its references are ones parseXml accepts. */
  skipText(): '' | undefined {
    const xml = this.xml;
    const end = xml.indexOf('<', this.i);
    if (end < 0) return undefined;
    const amp = xml.indexOf('&', this.i);
    if (amp >= 0 && amp < end) {
      try {
        decodeEntities(xml.slice(this.i, end));
      } catch {
        return undefined;
      }
    }
    this.i = end;
    return '';
  }

  /** Whether everything from `start` to the cursor is whitespace. */
  blankSince(start: number): boolean {
    const xml = this.xml;
    for (let k = start; k < this.i; k++) {
      const c = xml.charCodeAt(k);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return false;
    }
    return true;
  }

  /** Consumes `</name>` at the cursor; false when it is not there. */
  closeTag(name: string): boolean {
    const xml = this.xml;
    const at = this.i;
    if (xml.charCodeAt(at) !== 60 || xml.charCodeAt(at + 1) !== 47 /* / */ || !xml.startsWith(name, at + 2) || xml.charCodeAt(at + 2 + name.length) !== 62) return false;
    this.i = at + 3 + name.length;
    return true;
  }

  /** Text up to the next `<`, entities decoded; undefined when there is none or it holds a reference parseXml refuses. */
  text(): string | undefined {
    const xml = this.xml;
    const end = xml.indexOf('<', this.i);
    if (end < 0) return undefined;
    const raw = xml.slice(this.i, end);
    this.i = end;
    return elementText(raw);
  }

  /** Whether only whitespace is left. */
  atEnd(): boolean {
    this.skipSpace();
    return this.i >= this.xml.length;
  }
}
