import { PassThrough } from 'node:stream';
import { webBody } from '../../../functions/runtime/node/web-body';

/**
 * A backend answer's body as the core reads it: every byte in order, a connection that broke before the
 * end as an error (never a short body), the backend paused while the reader is behind, and a cancel that
 * releases the connection.
 */
describe('webBody', () => {
  it('GIVEN chunks then the end THEN the reader gets every byte in order', async () => {
    const source = new PassThrough();
    const body = webBody(source);
    source.write(Buffer.from('<List'));
    source.end(Buffer.from('Result/>'));
    expect(await new Response(body).text()).toBe('<ListResult/>');
  });

  it('GIVEN a body destroyed before its end THEN the reader fails instead of seeing a short body', async () => {
    const source = new PassThrough();
    const reader = webBody(source).getReader();
    source.write(Buffer.from('part'));
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('part');
    source.destroy();
    await expect(reader.read()).rejects.toThrow(/closed the connection before the body ended/);
  });

  it('GIVEN an error on the body THEN the reader fails with it', async () => {
    const source = new PassThrough();
    const reader = webBody(source).getReader();
    source.destroy(new Error('socket hang up'));
    await expect(reader.read()).rejects.toThrow('socket hang up');
  });

  it('GIVEN a reader that does not read THEN the backend is paused, and resumed once it reads on', async () => {
    const source = new PassThrough();
    const reader = webBody(source).getReader();
    for (let i = 0; i < 8; i++) source.write(Buffer.alloc(16, i));
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.isPaused()).toBe(true);
    // Each chunk still arrives, in order: reading past the queue resumes the backend.
    for (let i = 0; i < 8; i++) expect((await reader.read()).value?.[0]).toBe(i);
    expect(source.isPaused()).toBe(false);
  });

  it('GIVEN a cancel THEN the backend body is destroyed (its connection is not reused half-read)', async () => {
    const source = new PassThrough();
    const reader = webBody(source).getReader();
    await reader.cancel();
    expect(source.destroyed).toBe(true);
  });
});
