import http from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createWebFunctionFront, type WebFunctionFrontOptions } from '../../scripts/web-local/front';

/**
 * The local Web Function endpoint does what the platform documents between a client and the function's
 * server (DG web-functions-http), seen from both sides: a recording server stands in for the function, raw
 * sockets for the client so every byte on the wire is visible.
 */

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly rawHeaders: string[];
  readonly body: Buffer;
}

let app: http.Server;
let front: http.Server;
let endpoint: { host: string; port: number };
const seen: Seen[] = [];
/** How the stand-in function answers; replaced per test. */
let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void;

const defaultAnswer = (req: http.IncomingMessage, res: http.ServerResponse): void => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) });
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2', 'keep-alive': 'timeout=77', 'x-hop': 'drop me', connection: 'x-hop' });
    res.end('ok');
  });
};

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function startFront(options: Partial<WebFunctionFrontOptions> = {}): Promise<void> {
  front?.closeAllConnections();
  front?.close();
  front = createWebFunctionFront({ target: `http://127.0.0.1:${(app.address() as AddressInfo).port}`, ...options });
  endpoint = { host: '127.0.0.1', port: await listen(front) };
}

beforeAll(async () => {
  app = http.createServer((req, res) => answer(req, res));
  await listen(app);
  await startFront();
});

beforeEach(() => {
  seen.length = 0;
  answer = defaultAnswer;
});

afterAll(async () => {
  front.closeAllConnections();
  app.closeAllConnections();
  await Promise.all([new Promise((r) => front.close(r)), new Promise((r) => app.close(r))]);
});

/** Sends `head` (and `body`) on a raw socket; resolves with everything the front sent back once it closes or goes quiet. */
function exchange(head: string, body: Buffer | string = '', quietMs = 300): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(endpoint.port, endpoint.host);
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    const done = (): void => {
      socket.destroy();
      resolve(received);
    };
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(done, quietMs);
    };
    socket.on('data', (c: Buffer) => {
      received += c.toString('latin1');
      arm();
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('error', () => undefined);
    socket.write(head.replace(/\n/g, '\r\n') + '\r\n');
    if (body.length > 0) socket.write(body);
    arm();
  });
}

const hostLine = (): string => `Host: ${endpoint.host}:${endpoint.port}`;

function statusOf(response: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
}

function headerNames(rawHeaders: string[]): string[] {
  return rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
}

function header(rawHeaders: string[], name: string): string | undefined {
  const i = rawHeaders.findIndex((n, j) => j % 2 === 0 && n.toLowerCase() === name);
  return i < 0 ? undefined : rawHeaders[i + 1];
}

describe('requests the endpoint refuses before the function sees them', () => {
  test('GIVEN HTTP/1.0 WHEN sent THEN 505', async () => {
    expect(statusOf(await exchange(`GET /b/k HTTP/1.0\n${hostLine()}\n`))).toBe(505);
    expect(seen).toEqual([]);
  });

  test.each(['PROPFIND', 'TRACE', 'CONNECT2'])('GIVEN method %s WHEN sent THEN 400', async (method) => {
    expect(statusOf(await exchange(`${method} /b/k HTTP/1.1\n${hostLine()}\n`))).toBe(400);
    expect(seen).toEqual([]);
  });

  test('GIVEN another Host (a virtual-hosted bucket, an uppercase name) WHEN sent THEN 404', async () => {
    for (const host of [`bucket.127.0.0.1:${endpoint.port}`, `LOCALHOST:${endpoint.port}`, 'example.com']) {
      expect(statusOf(await exchange(`GET /b/k HTTP/1.1\nHost: ${host}\n`))).toBe(404);
    }
    expect(seen).toEqual([]);
  });

  test('GIVEN no Host WHEN sent THEN 400', async () => {
    expect(statusOf(await exchange('GET /b/k HTTP/1.1\n'))).toBe(400);
    expect(seen).toEqual([]);
  });
});

describe('what the function receives', () => {
  test('GIVEN hop-by-hop, override and lambda-web-* headers WHEN forwarded THEN they are removed, the rest arrives in order with the raw target', async () => {
    const response = await exchange(
      [
        'PUT /b/a%2Fb//c%20d?x=1&y=a+b HTTP/1.1',
        hostLine(),
        'Authorization: AWS4-HMAC-SHA256 Credential=K/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0',
        'X-Amz-Date: 20260101T000000Z',
        'X-Amz-Meta-One: 1',
        'X-Amz-Meta-One: 2',
        'Connection: keep-alive, X-Secret-Hop',
        'X-Secret-Hop: gone',
        'Keep-Alive: timeout=5',
        'TE: trailers',
        'Upgrade: h2c',
        'X-Real-IP: 10.9.9.9',
        'X-HTTP-Method-Override: DELETE',
        'X-Method-Override: DELETE',
        'X-HTTP-Method: DELETE',
        'Proxy-Authorization: Basic eA==',
        'lambda-web-request-id: spoofed',
        'Content-Length: 5',
        '',
      ].join('\n'),
      'hello',
    );
    expect(statusOf(response)).toBe(200);
    const [request] = seen;
    expect(request.method).toBe('PUT');
    expect(request.url).toBe('/b/a%2Fb//c%20d?x=1&y=a+b');
    expect(request.body.toString()).toBe('hello');
    const names = headerNames(request.rawHeaders);
    // The front's own hop to the function is keep-alive; the client's Connection header did not pass.
    expect(header(request.rawHeaders, 'connection')).toBe('keep-alive');
    for (const removed of ['x-secret-hop', 'keep-alive', 'te', 'upgrade', 'x-real-ip', 'x-http-method-override', 'x-method-override', 'x-http-method', 'proxy-authorization']) {
      expect(names).not.toContain(removed);
    }
    expect(names.slice(0, 6)).toEqual(['host', 'authorization', 'x-amz-date', 'x-amz-meta-one', 'x-amz-meta-one', 'content-length']);
    expect(header(request.rawHeaders, 'host')).toBe(`${endpoint.host}:${endpoint.port}`);
    expect(header(request.rawHeaders, 'lambda-web-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(header(request.rawHeaders, 'lambda-web-endpoint-name')).toBe('prod');
  });

  test('GIVEN X-Forwarded-For from the client WHEN forwarded THEN the client address is appended as the last value', async () => {
    await exchange(`GET /b/k HTTP/1.1\n${hostLine()}\nX-Forwarded-For: 203.0.113.7\n`);
    expect(header(seen[0].rawHeaders, 'x-forwarded-for')).toBe('203.0.113.7, 127.0.0.1');
    await exchange(`GET /b/k HTTP/1.1\n${hostLine()}\n`);
    expect(header(seen[1].rawHeaders, 'x-forwarded-for')).toBe('127.0.0.1');
  });

  test('GIVEN a chunked request body WHEN forwarded THEN the function reads the same bytes', async () => {
    await exchange(`PUT /b/k HTTP/1.1\n${hostLine()}\nTransfer-Encoding: chunked\n`, '5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n');
    expect(seen[0].body.toString()).toBe('hello world');
  });
});

describe('what the client receives', () => {
  test('GIVEN the function answers with connection-scoped headers WHEN relayed THEN they are removed, Content-Length kept, a request id added', async () => {
    const response = await exchange(`GET /b/k HTTP/1.1\n${hostLine()}\n`);
    const head = response.split('\r\n\r\n')[0].toLowerCase();
    expect(head).toContain('content-length: 2');
    expect(head).not.toContain('x-hop');
    expect(head).not.toContain('timeout=77');
    expect(head).toMatch(/lambda-web-request-id: [0-9a-f-]{36}/);
    expect(response.endsWith('\r\n\r\nok')).toBe(true);
  });

  test('GIVEN a HEAD answered with Content-Length WHEN relayed THEN the length arrives unchanged and no body', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-length': '1000', etag: '"x"' });
      res.end();
    };
    const response = await exchange(`HEAD /b/k HTTP/1.1\n${hostLine()}\n`);
    expect(response.toLowerCase()).toContain('content-length: 1000');
    expect(response.endsWith('\r\n\r\n')).toBe(true);
  });

  test('GIVEN a large streamed answer WHEN the client reads slowly THEN the function is held back (backpressure)', async () => {
    const CHUNK = 64 * 1024;
    let produced = 0;
    answer = (_req, res) => {
      res.writeHead(200, { 'content-length': String(CHUNK * 1024) });
      const pump = (): void => {
        while (produced < CHUNK * 1024) {
          produced += CHUNK;
          if (!res.write(Buffer.alloc(CHUNK))) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    };
    const res = await new Promise<http.IncomingMessage>((resolve) => http.get({ ...endpoint, path: '/b/big' }, resolve));
    res.pause();
    await new Promise((r) => setTimeout(r, 400));
    // Socket buffers on both hops and a few stream buffers, nowhere near the 64 MiB the function would produce.
    expect(produced).toBeLessThan(16 * 1024 * 1024);
    let received = 0;
    res.on('data', (c: Buffer) => (received += c.length));
    res.resume();
    await new Promise((r) => res.on('end', r));
    expect(received).toBe(CHUNK * 1024);
  });
});

describe('half-duplex: the whole body is forwarded before the answer is read', () => {
  test('GIVEN a function that answers before reading the body WHEN the client sends slowly THEN nothing arrives until the last byte was sent', async () => {
    answer = (req, res) => {
      res.writeHead(403, { 'content-length': '6' });
      res.end('denied');
      req.resume();
    };
    const socket: Socket = connect(endpoint.port, endpoint.host);
    let received = '';
    socket.on('data', (c: Buffer) => (received += c.toString()));
    socket.write(`PUT /b/k HTTP/1.1\r\n${hostLine()}\r\nContent-Length: 10\r\n\r\nhello`);
    await new Promise((r) => setTimeout(r, 400));
    expect(received).toBe('');
    socket.write('world');
    for (let i = 0; i < 40 && !received.endsWith('denied'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(statusOf(received)).toBe(403);
    expect(received.endsWith('denied')).toBe(true);
    socket.destroy();
  });

  test('GIVEN a function that answers with Connection: close before the body is in WHEN the client stalls THEN the answer goes out at once and the connection closes', async () => {
    answer = (_req, res) => {
      res.writeHead(400, { 'content-length': '7', connection: 'close' });
      res.end('stalled');
    };
    const socket: Socket = connect(endpoint.port, endpoint.host);
    let received = '';
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('data', (c: Buffer) => (received += c.toString()));
    socket.write(`PUT /b/k HTTP/1.1\r\n${hostLine()}\r\nContent-Length: 1000\r\n\r\nonly some`);
    await closed;
    expect(statusOf(received)).toBe(400);
    expect(received.toLowerCase()).toContain('connection: close');
    expect(received.endsWith('stalled')).toBe(true);
  });

  test('GIVEN a function that answers and resets the connection mid-body WHEN the client sends the rest THEN the client gets an answer, never a hang', async () => {
    answer = (req, res) => {
      res.writeHead(400, { 'content-length': '3', connection: 'close' });
      res.end('bad', () => req.socket.destroy());
    };
    const response = await exchange(`PUT /b/k HTTP/1.1\n${hostLine()}\nContent-Length: 4194304\n`, Buffer.alloc(4 * 1024 * 1024), 1000);
    // The function's answer when the front read it before the reset, else the platform's (a race on any network).
    expect([400, 502]).toContain(statusOf(response));
  });

  test('GIVEN a function that closes the connection without answering WHEN called THEN the platform answers 502', async () => {
    answer = (req) => req.socket.destroy();
    const response = await exchange(`GET /b/k HTTP/1.1\n${hostLine()}\n`);
    expect(statusOf(response)).toBe(502);
    expect(response.toLowerCase()).toContain('lambda-web-error-type: runtime.connectionerror');
  });
});

describe('Expect: 100-continue', () => {
  afterAll(() => startFront());

  test('GIVEN the default WHEN a client expects 100-continue THEN the front answers 100 Continue itself and the function never sees Expect', async () => {
    await startFront();
    const response = await exchange(`PUT /b/k HTTP/1.1\n${hostLine()}\nExpect: 100-continue\nContent-Length: 5\n`, 'hello');
    expect(response.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200')).toBe(true);
    expect(headerNames(seen[0].rawHeaders)).not.toContain('expect');
    expect(seen[0].body.toString()).toBe('hello');
  });

  test('GIVEN expect "reject" (the reported 417) WHEN a client expects 100-continue THEN 417 and the function never runs', async () => {
    await startFront({ expect: 'reject' });
    const response = await exchange(`PUT /b/k HTTP/1.1\n${hostLine()}\nExpect: 100-continue\nContent-Length: 5\n`);
    expect(statusOf(response)).toBe(417);
    expect(seen).toEqual([]);
  });
});

describe('the request timeout', () => {
  afterAll(() => startFront());

  test('GIVEN a function that never answers WHEN the timeout passes THEN 504 Runtime.RequestTimeout', async () => {
    await startFront({ timeoutMs: 300 });
    answer = () => undefined;
    const response = await exchange(`GET /b/k HTTP/1.1\n${hostLine()}\n`, '', 1000);
    expect(statusOf(response)).toBe(504);
    expect(response.toLowerCase()).toContain('lambda-web-error-type: runtime.requesttimeout');
  });

  test('GIVEN a stream that outlasts the timeout WHEN it passes THEN the response is cut, never ended as complete', async () => {
    await startFront({ timeoutMs: 300 });
    answer = (_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
    };
    const outcome = await new Promise<string>((resolve) => {
      http
        .get({ ...endpoint, path: '/b/k' }, (res) => {
          res.resume();
          res.on('end', () => resolve('complete'));
          res.on('error', () => resolve('cut'));
        })
        .on('error', () => resolve('cut'));
    });
    expect(outcome).toBe('cut');
  });
});
