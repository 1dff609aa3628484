/**
 * A browser form upload's `multipart/form-data` body, read as S3 reads it: the fields first, then the file,
 * which must be the last part. The fields (at most MAX_FORM_FIELDS_BYTES) are read before anything reaches
 * the backend; the file then streams through a checker, never buffered whole. Its length is known before it
 * is read: the declared Content-Length, less the fields, less the closing boundary line that ends the body
 * (`\r\n--{boundary}--\r\n`, as every browser and HTTP library sends it). The checker passes on exactly that
 * many bytes and holds back the last piece until the body has ended with that closing line; anything else (a
 * part after the file, a body of another length) errors the stream, which aborts the backend write.
 */
import { fromUtf8, utf8 } from '../bytes';
import { S3Error } from '../errors';
import type { ReadonlyHeaders } from '../http';
import { concat } from '../streams';
import { HoldBack, checkedStream, drain, type BodyChecker, type Emit } from './checked-stream';

/** The fields before the file are small (a policy, a signature, a key, a few headers); S3 limits them too. */
export const MAX_FORM_FIELDS_BYTES = 64 * 1024;

export interface FormFile {
  /** The part's `filename` (what `${filename}` in the key becomes). */
  readonly filename: string;
  /** The part's own Content-Type, if any. */
  readonly contentType?: string;
}

/** A form read up to its file. */
export interface FormUpload {
  /** Field values by lower-case name (S3 field names are case-insensitive). */
  readonly fields: ReadonlyMap<string, string>;
  readonly file: FormFile;
  /** The file's length in bytes, from Content-Length. */
  readonly fileLength: number;
  /** The file's bytes, checked as they stream (see the module comment). Open it at most once. */
  readonly body: () => ReadableStream<Uint8Array>;
  /** Reads and drops the rest of the body (bounded) when the upload is refused before `body` is opened. */
  readonly discard: () => void;
}

const malformed = (why: string): S3Error => new S3Error('MalformedPOSTRequest', `The body of your POST request is not well-formed multipart/form-data: ${why}.`);

/** The text of a part's headers or value: a client's bytes, so bytes that are not UTF-8 are its error. */
function formText(bytes: Uint8Array): string {
  try {
    return fromUtf8(bytes);
  } catch {
    throw malformed('a part header or field value is not UTF-8');
  }
}

/** The `boundary` of a `multipart/form-data` Content-Type, or undefined when the type is another. */
export function formBoundary(contentType: string | null): string | undefined {
  if (contentType === null || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return undefined;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (boundary === undefined || /[\r\n]/.test(boundary)) throw malformed('the Content-Type has no usable boundary');
  return boundary;
}

/**
 * Reads a form's fields from `source` up to the file part.
 *
 * @param contentLength The request's declared Content-Length.
 * @throws S3Error MalformedPOSTRequest, MaxPostPreDataLengthExceededError, InvalidArgument (no file, a field
 *   named twice), IncompleteBody (the body ended early).
 */
export async function readForm(source: ReadableStream<Uint8Array>, boundary: string, contentLength: number): Promise<FormUpload> {
  const reader = source.getReader();
  const buffer = new FormBuffer(reader);
  const delimiter = utf8(`--${boundary}`);
  const crlfDelimiter = utf8(`\r\n--${boundary}`);
  const fields = new Map<string, string>();
  try {
    let at = await buffer.find(delimiter, 0);
    if (at !== 0) at = (await buffer.find(crlfDelimiter, 0)) + 2; // a preamble before the first delimiter
    for (let position = at + delimiter.length; ; ) {
      const next = await buffer.text(position, 2);
      if (next === '--') throw new S3Error('InvalidArgument', 'POST requires exactly one file upload per request.');
      if (next !== '\r\n') throw malformed('a boundary line is not followed by CRLF');
      const headersEnd = await buffer.find(utf8('\r\n\r\n'), position + 2);
      const part = partHeaders(formText(buffer.slice(position + 2, headersEnd)));
      const valueStart = headersEnd + 4;
      if (part.filename !== undefined) {
        if (part.name.toLowerCase() !== 'file') throw new S3Error('InvalidArgument', `The file must be sent in a field named "file", not "${part.name}".`);
        return upload(fields, { filename: part.filename, contentType: part.contentType }, buffer, reader, valueStart, contentLength, crlfDelimiter);
      }
      const valueEnd = await buffer.find(crlfDelimiter, valueStart);
      const name = part.name.toLowerCase();
      if (fields.has(name)) throw new S3Error('InvalidArgument', `The form names the field "${part.name}" more than once.`);
      fields.set(name, formText(buffer.slice(valueStart, valueEnd)));
      position = valueEnd + crlfDelimiter.length;
    }
  } catch (err) {
    void drain(reader);
    throw err;
  }
}

function upload(
  fields: Map<string, string>,
  file: FormFile,
  buffer: FormBuffer,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  fileStart: number,
  contentLength: number,
  crlfDelimiter: Uint8Array,
): FormUpload {
  const closing = utf8(`${fromUtf8(crlfDelimiter)}--\r\n`);
  const fileLength = contentLength - fileStart - closing.length;
  if (fileLength < 0) {
    void drain(reader);
    throw malformed('the body is shorter than its fields and closing boundary');
  }
  const rest = buffer.slice(fileStart, buffer.length);
  let opened = false;
  return {
    fields,
    file,
    fileLength,
    body: () => {
      opened = true;
      const source = new ReadableStream<Uint8Array>({
        start: (controller) => {
          if (rest.length > 0) controller.enqueue(rest);
        },
        pull: async (controller) => {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return checkedStream(source, new FileChecker(fileLength, closing, crlfDelimiter));
    },
    discard: () => {
      if (!opened) void drain(reader);
    },
  };
}

/** A part's `name`, `filename` and Content-Type, from its header lines. */
function partHeaders(block: string): { name: string; filename?: string; contentType?: string } {
  let name: string | undefined;
  let filename: string | undefined;
  let contentType: string | undefined;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw malformed('a part header has no name');
    const header = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (header === 'content-type') contentType = value;
    if (header !== 'content-disposition') continue;
    if (!/^form-data\s*(;|$)/i.test(value)) throw malformed('a part is not form-data');
    name = parameter(value, 'name');
    filename = parameter(value, 'filename');
  }
  if (name === undefined || name === '') throw malformed('a part has no field name');
  return { name, filename, contentType };
}

/** A Content-Disposition parameter, quoted (browsers escape `"` as `%22`) or as a token. */
function parameter(value: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(value);
  if (match === null) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}

/** The bytes read so far, grown on demand; everything searched for lies within MAX_FORM_FIELDS_BYTES. */
class FormBuffer {
  private bytes: Uint8Array = new Uint8Array(0);

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  get length(): number {
    return this.bytes.length;
  }

  slice(start: number, end: number): Uint8Array {
    return this.bytes.subarray(start, end);
  }

  async text(start: number, length: number): Promise<string> {
    while (this.bytes.length < start + length) await this.more();
    return formText(this.bytes.subarray(start, start + length));
  }

  /** The first index at or after `from` where `needle` starts, reading more until it appears. */
  async find(needle: Uint8Array, from: number): Promise<number> {
    for (let searched = from; ; ) {
      const at = indexOf(this.bytes, needle, searched);
      if (at > MAX_FORM_FIELDS_BYTES || (at < 0 && this.bytes.length > MAX_FORM_FIELDS_BYTES)) {
        throw new S3Error('MaxPostPreDataLengthExceededError', 'Your POST request fields preceding the upload file were too large.');
      }
      if (at >= 0) return at;
      searched = Math.max(from, this.bytes.length - needle.length + 1);
      await this.more();
    }
  }

  private async more(): Promise<void> {
    const { done, value } = await this.reader.read();
    if (done) throw new S3Error('IncompleteBody', 'The request body ended before the form did.');
    this.bytes = concat([this.bytes, value]);
  }
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  const last = haystack.length - needle.length;
  outer: for (let i = Math.max(0, from); i <= last; i++) {
    if (haystack[i] !== first) continue;
    for (let j = 1; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * The file part's bytes: exactly `length` of them, with no boundary inside (another part after the file),
 * then the closing boundary line and nothing more.
 */
export class FileChecker implements BodyChecker {
  private received = 0;
  private readonly hold = new HoldBack();
  /** The file's last bytes, to find a delimiter that spans two pieces. */
  private tail: Uint8Array = new Uint8Array(0);
  private readonly ending: number[] = [];

  constructor(
    private readonly length: number,
    private readonly closing: Uint8Array,
    private readonly delimiter: Uint8Array,
  ) {}

  write(piece: Uint8Array, emit: Emit): void {
    if (this.received + piece.length > this.length + this.closing.length) throw malformed('the body is longer than its Content-Length');
    const fileBytes = piece.subarray(0, Math.max(0, Math.min(piece.length, this.length - this.received)));
    if (fileBytes.length > 0) {
      const window = concat([this.tail, fileBytes]);
      if (indexOf(window, this.delimiter, 0) >= 0) throw malformed('the file must be the last field of the form, and nothing may follow it');
      this.tail = window.slice(Math.max(0, window.length - this.delimiter.length + 1));
      this.hold.push(fileBytes, emit);
    }
    for (let i = fileBytes.length; i < piece.length; i++) this.ending.push(piece[i]);
    this.received += piece.length;
  }

  end(emit: Emit): void {
    if (this.received < this.length + this.closing.length) throw new S3Error('IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header');
    if (!this.ending.every((b, i) => b === this.closing[i])) throw malformed('the file must be the last field of the form, and the body must end with the closing boundary line');
    this.hold.release(emit);
  }
}

/** A form's declared Content-Length; S3 needs one for a POST upload. */
export function formLength(headers: ReadonlyHeaders): number {
  const value = headers.get('content-length');
  if (value === null || !/^\d{1,16}$/.test(value.trim())) throw new S3Error('MissingContentLength', 'You must provide the Content-Length HTTP header.');
  return Number(value.trim());
}
