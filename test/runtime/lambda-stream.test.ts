import type { LambdaFunctionURLEvent, StreamifyHandler } from 'aws-lambda';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { openResponse } from '../../functions/runtime/lambda-response';
import { HttpResponseStream, installAwsLambda, LocalResponseStream, streamifyResponse } from '../../scripts/lambda-local/awslambda';
import { createFunctionUrlServer, type FunctionUrlOptions } from '../../scripts/lambda-local/function-url';

/**
 * The awslambda stand-in must fail where Lambda fails (prelude on the first write only), or the handler's
 * empty-write rule would go untested; and the handler's response opener must deliver every status and header
 * through it, with backpressure.
 */

type Handler = StreamifyHandler<LambdaFunctionURLEvent, void>;

beforeAll(() => installAwsLambda());

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const NULS = '\0'.repeat(8);

describe('awslambda stand-in', () => {
  test('GIVEN HttpResponseStream.from WHEN the handler writes twice THEN the prelude and 8 NUL bytes precede the body once', async () => {
    const stream = new LocalResponseStream();
    const prelude = { statusCode: 201, headers: { 'x-a': 'b' } };
    HttpResponseStream.from(stream, prelude);
    stream.write('one');
    stream.write(Buffer.from('two'));
    stream.end();
    expect((await collect(stream)).toString('latin1')).toBe(JSON.stringify(prelude) + NULS + 'onetwo');
  });

  test('GIVEN HttpResponseStream.from WHEN the handler only calls end() THEN nothing at all is emitted (as on Lambda)', async () => {
    const stream = new LocalResponseStream();
    HttpResponseStream.from(stream, { statusCode: 404, headers: { 'x-a': 'b' } });
    stream.end();
    expect((await collect(stream)).length).toBe(0);
  });

  test('GIVEN HttpResponseStream.from WHEN the handler calls end(chunk) without a write THEN the chunk goes out without prelude', async () => {
    const stream = new LocalResponseStream();
    HttpResponseStream.from(stream, { statusCode: 404 });
    stream.end('Not Found');
    expect((await collect(stream)).toString()).toBe('Not Found');
  });

  test('GIVEN a write WHEN the content type is changed afterwards THEN it is refused as too late', () => {
    const stream = new LocalResponseStream();
    stream.write('x');
    expect(() => stream.setContentType('text/plain')).toThrow('too late');
  });
});

describe('local Function URL', () => {
  let server: http.Server | undefined;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  async function serve(handler: Handler, options: FunctionUrlOptions = {}): Promise<string> {
    server = createFunctionUrlServer(streamifyResponse(handler), options);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  test('GIVEN from() then end() without a write WHEN called THEN the client sees a bare 200 without the headers (the platform bug)', async () => {
    const url = await serve(async (_event, responseStream) => {
      const stream = awslambda.HttpResponseStream.from(responseStream, { statusCode: 404, headers: { 'x-foo': 'bar' } });
      await new Promise<void>((resolve) => stream.end(resolve));
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-foo')).toBeNull();
  });

  test('GIVEN from() then end(chunk) WHEN called THEN the client sees 502', async () => {
    const url = await serve(async (_event, responseStream) => {
      const stream = awslambda.HttpResponseStream.from(responseStream, { statusCode: 404 });
      await new Promise<void>((resolve) => stream.end('Not Found', resolve));
    });
    expect((await fetch(url)).status).toBe(502);
  });

  test('GIVEN openResponse for a 304 WHEN nothing else is written THEN status and headers arrive thanks to the empty write', async () => {
    const url = await serve(async (_event, responseStream) => {
      const sink = openResponse(responseStream, 304, { etag: '"abc"', 'x-amz-request-id': 'R1' });
      await new Promise<void>((resolve) => sink.end(resolve));
    });
    const res = await fetch(url);
    expect(res.status).toBe(304);
    expect(res.headers.get('etag')).toBe('"abc"');
    expect(res.headers.get('x-amz-request-id')).toBe('R1');
  });

  test('GIVEN openResponse for a HEAD WHEN no body is written THEN status and metadata arrive, the length only renamed (as reported on AWS)', async () => {
    const url = await serve(async (_event, responseStream) => {
      const sink = openResponse(responseStream, 200, { 'content-length': '11', 'x-amz-meta-color': 'blue' });
      await new Promise<void>((resolve) => sink.end(resolve));
    });
    const res = await fetch(url, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('x-amzn-remapped-content-length')).toBe('11');
    expect(res.headers.get('x-amz-meta-color')).toBe('blue');
  });

  test('GIVEN a prelude with Content-Length WHEN a body streams THEN it arrives chunked, the length renamed x-amzn-remapped-content-length', async () => {
    const url = await serve(async (_event, responseStream) => {
      const sink = openResponse(responseStream, 200, { 'content-length': '5', 'content-type': 'text/plain' });
      await new Promise<void>((resolve) => sink.end('hello', resolve));
    });
    const res = await new Promise<http.IncomingMessage>((resolve) => http.get(url, resolve));
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['x-amzn-remapped-content-length']).toBe('5');
    expect((await collect(res)).toString()).toBe('hello');
  });

  test('GIVEN remapContentLength false WHEN a body streams THEN its Content-Length arrives as set (what the documentation alone would suggest)', async () => {
    const url = await serve(
      async (_event, responseStream) => {
        const sink = openResponse(responseStream, 200, { 'content-length': '5' });
        await new Promise<void>((resolve) => sink.end('hello', resolve));
      },
      { remapContentLength: false },
    );
    const res = await fetch(url, { method: 'HEAD' });
    expect(res.headers.get('content-length')).toBe('5');
  });

  test('GIVEN a handler that streams a gzip body with Content-Encoding: gzip WHEN fetched THEN the front decompresses it and drops the header (as reported on AWS)', async () => {
    const url = await serve(async (_event, responseStream) => {
      const stream = awslambda.HttpResponseStream.from(responseStream, { statusCode: 200, headers: { 'content-encoding': 'gzip' } });
      stream.write(gzipSync('plain text'));
      await new Promise<void>((resolve) => stream.end(resolve));
    });
    const res = await new Promise<http.IncomingMessage>((resolve) => http.get(url, resolve));
    expect(res.headers['content-encoding']).toBeUndefined();
    expect((await collect(res)).toString()).toBe('plain text');
  });

  test('GIVEN a gzip-encoded object WHEN openResponse sends it THEN the header stays out of the prelude and the stored bytes arrive unchanged', async () => {
    const stored = gzipSync('an object stored gzip-encoded');
    const url = await serve(async (_event, responseStream) => {
      const sink = openResponse(responseStream, 200, { 'content-encoding': 'gzip', 'content-length': String(stored.length), etag: '"e"' });
      await new Promise<void>((resolve) => sink.end(stored, resolve));
    });
    const res = await new Promise<http.IncomingMessage>((resolve) => http.get(url, resolve));
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.etag).toBe('"e"');
    expect((await collect(res)).equals(stored)).toBe(true);
  });

  test('GIVEN another Content-Encoding WHEN openResponse sends it THEN the header passes unchanged', async () => {
    const url = await serve(async (_event, responseStream) => {
      const sink = openResponse(responseStream, 200, { 'content-encoding': 'br' });
      await new Promise<void>((resolve) => sink.end('x', resolve));
    });
    expect((await fetch(url)).headers.get('content-encoding')).toBe('br');
  });

  test('GIVEN Content-Encoding: gzip on a body that is not gzip WHEN it reaches the front THEN the response is cut, never delivered as complete', async () => {
    const url = await serve(async (_event, responseStream) => {
      const stream = awslambda.HttpResponseStream.from(responseStream, { statusCode: 200, headers: { 'content-encoding': 'gzip' } });
      stream.write('not gzip at all');
      await new Promise<void>((resolve) => stream.end(resolve));
    });
    const outcome = await new Promise<string>((resolve) => {
      http
        .get(url, (res) => {
          res.resume();
          res.on('end', () => resolve('complete'));
          res.on('error', () => resolve('cut'));
        })
        .on('error', () => resolve('cut'));
    });
    expect(outcome).toBe('cut');
  });

  test('GIVEN openResponse for an error WHEN the body is ended in one call THEN status, headers and body arrive', async () => {
    const url = await serve(async (_event, responseStream) => {
      const sink = openResponse(responseStream, 403, { 'content-type': 'application/xml' });
      await new Promise<void>((resolve) => sink.end('<Error/>', resolve));
    });
    const res = await fetch(url);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('application/xml');
    expect(await res.text()).toBe('<Error/>');
  });

  test('GIVEN a handler that fails before writing WHEN called THEN the client sees 502', async () => {
    const url = await serve(async () => {
      throw new Error('boom');
    });
    const res = await fetch(url);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ message: 'Internal Server Error' });
  });

  test('GIVEN a handler that fails after the first byte WHEN called THEN the connection is cut, never a clean end', async () => {
    const url = await serve(async (_event, responseStream) => {
      const sink = openResponse(responseStream, 200, { 'content-type': 'text/plain' });
      await new Promise<void>((resolve) => sink.write('partial', () => resolve()));
      throw new Error('backend failed mid-body');
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  test('GIVEN a handler that returns without ending the stream WHEN the timeout passes THEN the client sees 502', async () => {
    const url = await serve(async () => undefined, { timeoutMs: 300 });
    expect((await fetch(url)).status).toBe(502);
  });

  test('GIVEN a slow client WHEN a large body streams through openResponse THEN the handler is held back (backpressure)', async () => {
    const CHUNK = 64 * 1024;
    const CHUNKS = 512; // 32 MiB
    let produced = 0;
    const url = await serve(async (_event, responseStream) => {
      const source = Readable.from(
        (function* () {
          for (let i = 0; i < CHUNKS; i++) {
            produced += CHUNK;
            yield Buffer.alloc(CHUNK, i % 251);
          }
        })(),
      );
      const sink: Writable = openResponse(responseStream, 200, { 'content-length': String(CHUNK * CHUNKS) });
      await pipeline(source, sink);
    });
    const res = await new Promise<http.IncomingMessage>((resolve) => http.get(url, resolve));
    res.pause();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Socket buffers and a few stream buffers at most, nowhere near the 32 MiB the handler would produce.
    expect(produced).toBeLessThan(8 * 1024 * 1024);
    let received = 0;
    res.on('data', (c: Buffer) => (received += c.length));
    res.resume();
    await new Promise((resolve) => res.on('end', resolve));
    expect(received).toBe(CHUNK * CHUNKS);
    expect(produced).toBe(CHUNK * CHUNKS);
  });
});
