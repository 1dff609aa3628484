import { MAX_FORM_FIELDS_BYTES, formBoundary, readForm } from '../../../functions/core/payload/form-data';
import { S3Error } from '../../../functions/core/errors';
import { seededRandom } from '../../support/random';
import { streamOf } from '../../support/streams';

/**
 * The multipart/form-data reader of form uploads: fields read whole (bounded), the file streamed with its
 * length known from Content-Length, and every way a body can differ from what it declared refused.
 */
const B = 'xyz';

const enc = (text: string): number[] => [...new TextEncoder().encode(text)];
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

  it.each([
    ['a field value', (bytes: number[]) => [...enc(field('key', 'a')), ...enc(`--${B}\r\nContent-Disposition: form-data; name="policy"\r\n\r\n`), ...bytes, ...enc(`\r\n${file('x')}--${B}--\r\n`)]],
    ['a part header', (bytes: number[]) => [...enc(`--${B}\r\nContent-Disposition:`), ...bytes, ...enc(` form-data; name="key"\r\n\r\nk\r\n${file('x')}--${B}--\r\n`)]],
    ['the two bytes after a boundary', (bytes: number[]) => [...enc(`--${B}`), ...bytes, ...enc(`\r\n${file('x')}--${B}--\r\n`)]],
  ])('GIVEN bytes that are not UTF-8 in %s THEN MalformedPOSTRequest, never an internal error', async (_, body) => {
    const bytes = new Uint8Array(body([0xa0, 0xf3]));
    expect(await refusal(readForm(stream(bytes, 4096), B, bytes.length))).toBe('MalformedPOSTRequest');
  });

  it('refuses a body shorter than its Content-Length', async () => {
    const body = `${file('hello')}--${B}--\r\n`;
    const form = await readForm(stream(body), B, body.length + 3);
    expect(await refusal(new Response(form.body()).text())).toBe('IncompleteBody');
  });

  it('GIVEN 2,000 random changes to a valid form (bytes flipped, inserted, removed; cuts; lines repeated or dropped) THEN each is read or refused with an S3 error, never another', async () => {
    const random = seededRandom(7);
    const valid = enc(`${field('key', 'uploads/${filename}')}${field('policy', 'eyJhIjoxfQ==')}${field('x-amz-meta-note', 'n\u00e9')}${file('hello\r\nworld')}--${B}--\r\n`);
    const others: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const bytes = mutated(random, valid);
      try {
        const form = await readForm(stream(new Uint8Array(bytes), 1 + Math.floor(random() * 64)), B, bytes.length);
        await new Response(form.body()).arrayBuffer();
      } catch (err) {
        if (!(err instanceof S3Error)) others.push(`${String(err)} for ${JSON.stringify(Buffer.from(bytes).toString('latin1'))}`);
      }
    }
    expect(others).toEqual([]);
  });
});

/** One random change to `bytes`. */
function mutated(random: () => number, bytes: number[]): number[] {
  const at = Math.floor(random() * bytes.length);
  const out = [...bytes];
  switch (Math.floor(random() * 6)) {
    case 0:
      out[at] ^= 1 << Math.floor(random() * 8);
      return out;
    case 1:
      out.splice(at, 0, ...enc(['\r\n', '--', '"', ';', '\r\n\r\n', `--${B}`, '\u00ff'][Math.floor(random() * 7)]));
      return out;
    case 2:
      out.splice(at, 1 + Math.floor(random() * 6));
      return out;
    case 3:
      return out.slice(0, at);
    default: {
      const lines = Buffer.from(out).toString('latin1').split('\r\n');
      const i = Math.floor(random() * lines.length);
      lines.splice(i, random() < 0.5 ? 1 : 0, ...(random() < 0.5 ? [] : [lines[i]]));
      return [...Buffer.from(lines.join('\r\n'), 'latin1')];
    }
  }
}
