import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Http1Pool } from '../../../../functions/runtime/node/http1/pool';
import type { WireRequest } from '../../../../functions/runtime/node/http1/request-head';
import type { WireResponse } from '../../../../functions/runtime/node/http1/response';

/** A backend that answers every request with the raw bytes `answer` returns, written in the pieces given. */
async function rawBackend(answer: (request: string) => Array<string | Buffer>): Promise<{ port: number; connections: () => number; requests: string[]; close: () => void }> {
  let connections = 0;
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    let buffered = '';
    socket.on('data', (data) => {
      buffered += data.toString('latin1');
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      requests.push(buffered);
      const pieces = answer(buffered);
      buffered = '';
      // Each piece in its own read: heads and chunks split anywhere.
      pieces.forEach((piece, i) => setTimeout(() => socket.write(piece), i * 5));
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Closing also ends the connections a client's pool still holds, so no socket outlives the test.
  const close = (): void => {
    server.close();
    for (const socket of sockets) socket.destroy();
  };
  return { port: (server.address() as AddressInfo).port, connections: () => connections, requests, close };
}

const pool = (): Http1Pool => new Http1Pool({ idleMs: 4000, maxIdlePerOrigin: 4 });

function request(port: number, method = 'GET', headers: string[] = []): WireRequest {
  return { protocol: 'http:', hostname: '127.0.0.1', port: String(port), method, path: '/b/k', headers: ['host', `127.0.0.1:${port}`, ...headers] };
}

/** Sends and resolves with the response and its whole body, or rejects with the head's error. */
function send(p: Http1Pool, req: WireRequest, body?: Uint8Array | Readable): Promise<{ response: WireResponse; body: string }> {
  return new Promise((resolve, reject) => {
    const streamed = body instanceof Readable;
    const exchange = p.send(req, streamed ? undefined : body, streamed, 5000, {
      response: (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => resolve({ response, body: Buffer.concat(chunks).toString() }));
        response.on('error', reject);
      },
      error: reject,
      timeout: () => exchange.destroy(new Error('timeout')),
    });
    if (streamed) exchange.sendBody(body);
  });
}

describe('HTTP/1.1 backend client: reading answers', () => {
  it('GIVEN a length-framed answer split anywhere THEN status, headers and body as sent, and the connection is reused', async () => {
    const backend = await rawBackend(() => ['HTTP/1.1 200 OK\r\nContent-Le', 'ngth: 5\r\nETag: "e"\r\nx-amz-meta-a: 1\r\nx-amz-meta-a: 2\r\n\r\nhe', 'llo']);
    const p = pool();
    const first = await send(p, request(backend.port));
    expect(first.response.statusCode).toBe(200);
    expect(first.response.headers).toMatchObject({ 'content-length': '5', etag: '"e"', 'x-amz-meta-a': '1, 2' });
    expect(first.body).toBe('hello');
    await send(p, request(backend.port));
    expect(backend.connections()).toBe(1);
    backend.close();
  });

  it('GIVEN a body that came with its head THEN the response is whole by the time its reader runs, and read() returns all of it', async () => {
    const backend = await rawBackend((req) => (req.includes('x-case: split') ? ['HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhe', 'llo'] : ['HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello']));
    const p = pool();
    const announced = (req: WireRequest): Promise<WireResponse> =>
      new Promise((resolve, reject) => p.send(req, undefined, false, 5000, { response: resolve, error: reject, timeout: () => undefined }));
    const together = await announced(request(backend.port));
    expect(together.whole).toBe(true);
    expect(together.read()?.toString()).toBe('hello');
    const split = await announced(request(backend.port, 'GET', ['x-case', 'split']));
    expect(split.whole).toBe(false);
    const chunks: Buffer[] = [];
    await new Promise((resolve) => split.on('data', (c: Buffer) => chunks.push(c)).on('end', resolve));
    expect([split.whole, Buffer.concat(chunks).toString()]).toEqual([true, 'hello']);
    backend.close();
  });

  it('GIVEN a chunked answer with extensions and trailers THEN the body is decoded and the connection reused', async () => {
    const backend = await rawBackend(() => ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', '3;ext=1\r\nabc\r', '\n', '4\r\ndefg\r\n0\r\nx-trailer: t\r\n', '\r\n']);
    const p = pool();
    expect((await send(p, request(backend.port))).body).toBe('abcdefg');
    expect((await send(p, request(backend.port))).body).toBe('abcdefg');
    expect(backend.connections()).toBe(1);
    backend.close();
  });

  it('GIVEN 100 Continue before the answer THEN only the answer is seen', async () => {
    const backend = await rawBackend(() => ['HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\nok']);
    const { response, body } = await send(pool(), request(backend.port));
    expect([response.statusCode, body]).toEqual([201, 'ok']);
    backend.close();
  });

  it('GIVEN a HEAD, a 204 or a 304 THEN no body is read whatever the length says', async () => {
    const backend = await rawBackend((req) => [req.startsWith('HEAD') ? 'HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n' : req.includes('x-case: 204') ? 'HTTP/1.1 204 No Content\r\n\r\n' : 'HTTP/1.1 304 Not Modified\r\ncontent-length: 9\r\n\r\n']);
    const p = pool();
    expect((await send(p, request(backend.port, 'HEAD'))).response.headers['content-length']).toBe('100');
    expect((await send(p, request(backend.port, 'GET', ['x-case', '204']))).response.statusCode).toBe(204);
    expect((await send(p, request(backend.port, 'GET', ['x-case', '304']))).response.statusCode).toBe(304);
    expect(backend.connections()).toBe(1);
    backend.close();
  });

  it('GIVEN an answer without length ended by closing THEN the body is what came before the close, and the connection is not reused', async () => {
    const server = net.createServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\n\r\nuntil close')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const p = pool();
    expect((await send(p, request(port))).body).toBe('until close');
    expect((await send(p, request(port))).body).toBe('until close');
    server.close();
  });

  it('GIVEN Connection: close THEN the next request opens a new connection', async () => {
    const backend = await rawBackend(() => ['HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 1\r\n\r\nx']);
    const p = pool();
    await send(p, request(backend.port));
    await send(p, request(backend.port));
    expect(backend.connections()).toBe(2);
    backend.close();
  });

  it('GIVEN Set-Cookie twice THEN both values, as node:http gives them', async () => {
    const backend = await rawBackend(() => ['HTTP/1.1 200 OK\r\nset-cookie: a=1\r\nset-cookie: b=2\r\ncontent-length: 0\r\n\r\n']);
    expect((await send(pool(), request(backend.port))).response.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    backend.close();
  });

  it.each([
    ['an invalid status line', 'HTTP/2 200 OK\r\n\r\n', /invalid status line/],
    ['conflicting lengths', 'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nx', /conflicting lengths/],
    ['a length and a transfer encoding', 'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ntransfer-encoding: chunked\r\n\r\n', /both a length and a transfer encoding/],
    ['a folded header line', 'HTTP/1.1 200 OK\r\nx-a: 1\r\n  2\r\ncontent-length: 0\r\n\r\n', /invalid header line/],
    ['a control character in a value', 'HTTP/1.1 200 OK\r\nx-a: 1\x002\r\ncontent-length: 0\r\n\r\n', /invalid header value/],
    ['a head over 64 KiB', `HTTP/1.1 200 OK\r\nx-a: ${'a'.repeat(70 * 1024)}\r\ncontent-length: 0\r\n\r\n`, /over 64 KiB/],
  ])('GIVEN %s THEN the request fails', async (_, answer, message) => {
    const backend = await rawBackend(() => [answer]);
    await expect(send(pool(), request(backend.port))).rejects.toThrow(message);
    backend.close();
  });

  it('GIVEN an invalid chunk size after the head THEN the body fails, never ends as if whole', async () => {
    const backend = await rawBackend(() => ['HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n', '3\r\nabc\r\nzz\r\n']);
    await expect(send(pool(), request(backend.port))).rejects.toThrow(/invalid chunk size/);
    backend.close();
  });

  it('GIVEN the connection closing in the middle of a length-framed body THEN the body fails', async () => {
    const server = net.createServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await expect(send(pool(), request((server.address() as AddressInfo).port))).rejects.toThrow(/socket hang up/);
    server.close();
  });

  it('GIVEN a reader that abandons the body THEN the connection is closed, never pooled half-read', async () => {
    // The first answer never finishes while the reader holds it (on a loaded machine a rest sent at once
    // could arrive before the reader gives up, leaving a complete answer that may be pooled).
    let answered = 0;
    const backend = await rawBackend(() => (answered++ === 0 ? ['HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc'] : ['HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc', 'defghij']));
    const p = pool();
    const response = await new Promise<WireResponse>((resolve, reject) => {
      p.send(request(backend.port), undefined, false, 5000, { response: resolve, error: reject, timeout: () => undefined });
    });
    response.destroy();
    expect((await send(p, request(backend.port))).body).toBe('abcdefghij');
    expect(backend.connections()).toBe(2);
    backend.close();
  });

  it('GIVEN the backend closes an idle pooled connection THEN the next request opens a new one instead of failing', async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
        setTimeout(() => socket.end(), 20);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const p = pool();
    expect((await send(p, request(port))).body).toBe('ok');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await send(p, request(port))).body).toBe('ok');
    expect(connections).toBe(2);
    server.close();
  });

  it('GIVEN an answer before the streamed body was all sent THEN the connection is not reused', async () => {
    const backend = await rawBackend(() => ['HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n']);
    const p = pool();
    const body = new Readable({ read() {} });
    body.push(Buffer.from('first'));
    expect((await send(p, request(backend.port, 'PUT', ['content-length', '100']), body)).response.statusCode).toBe(403);
    await send(p, request(backend.port));
    expect(backend.connections()).toBe(2);
    backend.close();
  });

  it('GIVEN nothing listening THEN the head fails with the connection error', async () => {
    const closed = await rawBackend(() => []);
    closed.close();
    await expect(send(pool(), request(closed.port))).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('HTTP/1.1 backend client: writing requests', () => {
  let server: http.Server;
  let port: number;
  const seen: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => server.close());

  it('GIVEN a body in hand THEN it follows the head', async () => {
    await send(pool(), request(port, 'PUT', ['content-length', '3']), new Uint8Array([97, 98, 99]));
    expect(seen.at(-1)).toMatchObject({ body: 'abc', headers: { 'content-length': '3' } });
  });

  it('GIVEN a streamed body with a length THEN it is sent as is', async () => {
    await send(pool(), request(port, 'PUT', ['content-length', '6']), Readable.from([Buffer.from('abc'), Buffer.from('def')]));
    expect(seen.at(-1)).toMatchObject({ body: 'abcdef', headers: { 'content-length': '6' } });
    expect(seen.at(-1)?.headers['transfer-encoding']).toBeUndefined();
  });

  it('GIVEN a streamed body without a length THEN it goes chunked', async () => {
    await send(pool(), request(port, 'PUT'), Readable.from([Buffer.from('abc'), Buffer.from('def')]));
    expect(seen.at(-1)).toMatchObject({ body: 'abcdef', headers: { 'transfer-encoding': 'chunked' } });
  });

  it('GIVEN a large streamed body THEN all of it arrives, with backpressure', async () => {
    const piece = Buffer.alloc(64 * 1024, 'z');
    const size = 8 * 1024 * 1024;
    const body = Readable.from((function* () {
      for (let sent = 0; sent < size; sent += piece.length) yield piece;
    })());
    await send(pool(), request(port, 'PUT', ['content-length', String(size)]), body);
    expect(seen.at(-1)?.body.length).toBe(size);
  });

  it('GIVEN a streamed body that fails before its first byte THEN the backend sees nothing, not even the head', async () => {
    const backend = await rawBackend(() => ['HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n']);
    const failing = new Readable({ read() { this.destroy(new Error('refused')); } });
    const outcome = new Promise<string>((resolve) => {
      const exchange = pool().send(request(backend.port, 'PUT', ['content-length', '5']), undefined, true, 5000, { response: () => resolve('answered'), error: (err) => resolve(err.message), timeout: () => undefined });
      failing.on('error', (err) => exchange.destroy(err));
      exchange.sendBody(failing);
    });
    expect(await outcome).toBe('refused');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(backend.requests).toEqual([]);
    backend.close();
  });

  it.each([
    ['a line break in a value', ['x-amz-meta-a', 'a\r\nx: y'], /Invalid character in header content/],
    ['a space in a name', ['x a', 'b'], /valid HTTP token/],
  ])('GIVEN %s THEN nothing is sent', (_, headers, message) => {
    expect(() => pool().send(request(port, 'GET', headers), undefined, false, 5000, { response: () => undefined, error: () => undefined, timeout: () => undefined })).toThrow(message);
  });

  it('GIVEN a path with a space THEN nothing is sent', () => {
    expect(() => pool().send({ ...request(port), path: '/b/a k' }, undefined, false, 5000, { response: () => undefined, error: () => undefined, timeout: () => undefined })).toThrow(/unescaped/);
  });
});
