import { MAX_FORM_FIELDS_BYTES, formBoundary, readForm } from '../../../functions/core/payload/form-data';
import { S3Error } from '../../../functions/core/errors';
import { streamOf } from '../../support/streams';

/**
 * The multipart/form-data reader of form uploads: fields read whole (bounded), the file streamed with its
 * length known from Content-Length, and every way a body can differ from what it declared refused.
 */
const B = 'xyz';

const stream = (text: string | Uint8Array, pieceSize = 5): ReadableStream<Uint8Array> => streamOf(text, pieceSize);

const field = (name: string, value: string): string => `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const file = (content: string, name = 'file'): string => `--${B}\r\nContent-Disposition: form-data; name="${name}"; filename="a \\"b\\".txt"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n`;

async function fileText(body: string): Promise<string> {
  const form = await readForm(stream(body), B, new TextEncoder().encode(body).length);
  return new Response(form.body()).text();
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof S3Error) return err.code;
    throw err;
  }
  throw new Error('not refused');
}

describe('form uploads: multipart/form-data', () => {
  it('reads the boundary, quoted or not, only from multipart/form-data', () => {
    expect(formBoundary('multipart/form-data; boundary=abc')).toBe('abc');
    expect(formBoundary('Multipart/Form-Data; charset=utf-8; boundary="a b"')).toBe('a b');
    expect(formBoundary('application/x-www-form-urlencoded')).toBeUndefined();
    expect(() => formBoundary('multipart/form-data')).toThrow(expect.objectContaining({ code: 'MalformedPOSTRequest' }));
  });

  it('reads fields by lower-case name, a preamble skipped, and the file with its name and length', async () => {
    const body = `preamble\r\n${field('Key', 'k/${filename}')}${field('Content-Type', 'text/plain')}${file('hello')}--${B}--\r\n`;
    const form = await readForm(stream(body, 3), B, body.length);
    expect([...form.fields]).toEqual([['key', 'k/${filename}'], ['content-type', 'text/plain']]);
    expect(form.file).toEqual({ filename: 'a "b".txt', contentType: 'text/plain' });
    expect(form.fileLength).toBe(5);
    expect(await new Response(form.body()).text()).toBe('hello');
  });

  it('passes a file holding CRLF and dashes, as long as it holds no boundary', async () => {
    expect(await fileText(`${field('key', 'k')}${file('a\r\n--x\r\n-')}--${B}--\r\n`)).toBe('a\r\n--x\r\n-');
  });

  it.each([
    ['a field named twice', `${field('key', 'a')}${field('KEY', 'b')}${file('x')}--${B}--\r\n`, 'InvalidArgument'],
    ['no file', `${field('key', 'a')}--${B}--\r\n`, 'InvalidArgument'],
    ['a file in a field not named "file"', `${field('key', 'a')}${file('x', 'upload')}--${B}--\r\n`, 'InvalidArgument'],
    ['fields larger than the limit', `${field('key', 'a'.repeat(MAX_FORM_FIELDS_BYTES + 10))}${file('x')}--${B}--\r\n`, 'MaxPostPreDataLengthExceededError'],
  ])('refuses %s before the file', async (_, body, code) => {
    expect(await refusal(readForm(stream(body, 4096), B, body.length))).toBe(code);
  });

  it.each([
    ['a field after the file', `${file('x')}${field('late', 'y')}--${B}--\r\n`, 'MalformedPOSTRequest'],
    ['a second file', `${file('x')}${file('y')}--${B}--\r\n`, 'MalformedPOSTRequest'],
    ['no CRLF after the closing boundary', `${file('x')}--${B}--`, 'MalformedPOSTRequest'],
    ['an epilogue after the closing boundary', `${file('x')}--${B}--\r\nmore`, 'MalformedPOSTRequest'],
  ])('refuses %s while the file streams', async (_, body, code) => {
    expect(await refusal(fileText(body))).toBe(code);
  });

  it('refuses a body shorter than its Content-Length', async () => {
    const body = `${file('hello')}--${B}--\r\n`;
    const form = await readForm(stream(body), B, body.length + 3);
    expect(await refusal(new Response(form.body()).text())).toBe('IncompleteBody');
  });
});
