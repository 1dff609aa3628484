import http, { type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { parseConfig } from '../../../functions/core/config/parse';
import { Gateway } from '../../../functions/core/gateway';
import { nodeBackend } from '../../../functions/runtime/node/backend';
import { answerUnreadable, createServer, toProxyRequest, writeHead } from '../../../functions/runtime/node/listener';

/** An IncomingMessage as node:http hands it over: the request line's target and method, raw headers, a body. */
function incoming(method: string, url: string, rawHeaders: string[] = [], body = ''): IncomingMessage {
  return Object.assign(Readable.from(body === '' ? [] : [Buffer.from(body)]), { method, url, rawHeaders }) as unknown as IncomingMessage;
}

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe('Node server: the request the core sees', () => {
  it('GIVEN a target with dot segments and escapes THEN path and query are exactly as sent', () => {
    const request = toProxyRequest(incoming('get', '/b/a/../%2e%2e/k%2Fx?versionId=1&acl'), () => undefined);
    expect(request.method).toBe('GET');
    expect(request.rawPath).toBe('/b/a/../%2e%2e/k%2Fx');
    expect(request.rawQuery).toBe('versionId=1&acl');
  });

  it('GIVEN no query THEN the query is empty, and a bare "?" keeps it empty', () => {
    expect(toProxyRequest(incoming('GET', '/b/k'), () => undefined).rawQuery).toBe('');
    expect(toProxyRequest(incoming('GET', '/b/k?'), () => undefined)).toMatchObject({ rawPath: '/b/k', rawQuery: '' });
  });

  it('GIVEN raw headers THEN they are read case-insensitively, repeats joined with ","', () => {
    const request = toProxyRequest(incoming('GET', '/b/k', ['Host', 'gw', 'X-Amz-Meta-A', '1', 'x-amz-meta-a', '2']), () => undefined);
    expect(request.headers.get('X-AMZ-META-A')).toBe('1,2');
  });

  it('GIVEN a body THEN body() opens it as a web stream', async () => {
    const request = toProxyRequest(incoming('PUT', '/b/k', [], 'payload'), () => undefined);
    expect(await text(request.body())).toBe('payload');
  });

  it('GIVEN the signal is never read THEN nothing watches the client; once read, it aborts when the client goes away', () => {
    const watchers: Array<() => void> = [];
    const request = toProxyRequest(incoming('GET', '/b/k'), (abort) => watchers.push(abort));
    expect(watchers).toHaveLength(0);
    const signal = request.signal as AbortSignal;
    expect(request.signal).toBe(signal);
    expect(watchers).toHaveLength(1);
    expect(signal.aborted).toBe(false);
    watchers[0]();
    expect(signal.aborted).toBe(true);
  });

  it('GIVEN every request THEN each gets its own request id', () => {
    const ids = new Set(Array.from({ length: 100 }, () => toProxyRequest(incoming('GET', '/b/k'), () => undefined).requestId));
    expect(ids.size).toBe(100);
  });
});

describe('Node server: the head it writes', () => {
  /** The raw head a client receives when the server answers every request with `answer`. */
  async function headOf(answer: (res: http.ServerResponse) => void): Promise<string> {
    const server = http.createServer((_, res) => answer(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      return await new Promise<string>((resolve, reject) => {
        const req = http.get({ port, host: '127.0.0.1', agent: false }, (res) => {
          res.resume();
          const lines = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i].toLowerCase()}: ${res.rawHeaders[i + 1]}`);
          resolve(lines.join('\n'));
        });
        req.on('error', reject);
      });
    } finally {
      server.close();
    }
  }

  it('GIVEN a Connection value THEN it is stated with the answer\'s headers, and no Keep-Alive is added', async () => {
    const head = await headOf((res) => {
      writeHead(res, 200, { 'content-length': '2' }, 'keep-alive');
      res.end('ok');
    });
    expect(head).toMatch(/^connection: keep-alive$/m);
    expect(head).not.toMatch(/^keep-alive:/m);
  });

  it('GIVEN an answer that carries its own Connection (close after a stalled body) THEN that one stands', async () => {
    const head = await headOf((res) => {
      writeHead(res, 400, { 'content-length': '0', connection: 'close' }, 'keep-alive');
      res.end();
    });
    expect(head).toMatch(/^connection: close$/m);
    expect(head).not.toMatch(/keep-alive/);
  });

  it('GIVEN the core\'s headers THEN writing them leaves that object as it was', async () => {
    const headers = { 'content-length': '2', 'content-disposition': 'attachment; filename="a.txt"', etag: '"e"' };
    const before = JSON.stringify(headers);
    await headOf((res) => {
      writeHead(res, 200, headers, 'keep-alive');
      res.end('ok');
    });
    expect(JSON.stringify(headers)).toBe(before);
  });
});

describe('Node server: requests it cannot read', () => {
  const CONFIG = '[[buckets]]\nname = "b"\nbackend_type = "s3"\nanonymous_access = true\n[buckets.backend_options]\nendpoint = "http://127.0.0.1:9"\nbucket_name = "b"\n';
  const logged: string[] = [];
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    const backend = nodeBackend();
    server = createServer({ gateway: new Gateway(parseConfig(CONFIG), { client: backend.client }), backend }, { log: (line) => logged.push(line) });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => (logged.length = 0));

  /** Everything the server sends for `requests`, each written once the answer before it is complete. */
  function exchange(...requests: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      let answered = 0;
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        // Every answer here is an error document: the next request goes out once this one's is in.
        if (received.split('</Error>').length - 1 > answered && requests.length > ++answered) socket.write(requests[answered]);
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
      socket.write(requests[0]);
    });
  }

  it('GIVEN a request head over the size limit THEN 400 RequestHeaderSectionTooLarge, as S3 answers it, and the connection closes', async () => {
    const answer = await exchange(`GET /b/k HTTP/1.1\r\nHost: gw\r\nX-Padding: ${'a'.repeat(http.maxHeaderSize)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/\r\ncontent-type: application\/xml\r\n/);
    expect(answer).toMatch(/\r\nconnection: close\r\n/);
    expect(answer).toContain(`<Code>RequestHeaderSectionTooLarge</Code><Message>Your request header section exceeds the maximum allowed size.</Message><MaxSizeAllowed>${http.maxHeaderSize}</MaxSizeAllowed>`);
  });

  it.each([
    ['a target with a space', 'GET /b/a b HTTP/1.1\r\nHost: gw\r\n\r\n'],
    ['a method not in upper case', 'get /b/k HTTP/1.1\r\nHost: gw\r\n\r\n'],
    ['a header name with a byte outside the token characters', 'GET /b/k HTTP/1.1\r\nHost: gw\r\nX-Amz-Meta-\u00fc: 1\r\n\r\n'],
  ])('GIVEN %s THEN 400 BadRequest as XML with its request id, logged with the parser\'s reason and nothing of the request', async (_, request) => {
    const answer = await exchange(request);
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const id = /\r\nx-amz-request-id: ([0-9A-F]{16})\r\n/.exec(answer)?.[1];
    expect(answer).toContain(`<Error><Code>BadRequest</Code><Message>An error occurred when parsing the HTTP request.</Message><RequestId>${id}</RequestId></Error>`);
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0])).toEqual({
      time: expect.any(String),
      requestId: id,
      status: 400,
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
      errorCode: 'BadRequest',
      error: expect.stringMatching(/^HPE_[A-Z_]+: Parse Error: /),
    });
  });

  it('GIVEN a chunked body with a broken chunk size THEN 400 BadRequest, and the request it broke is logged too', async () => {
    const answer = await exchange('PUT /b/k HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*<Code>BadRequest<\/Code>/);
    // The broken request's own line comes once the core has seen its body fail.
    for (let wait = 0; logged.length < 2 && wait < 100; wait++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logged.map((line) => JSON.parse(line) as { status: number; error: string })).toEqual(
      expect.arrayContaining([expect.objectContaining({ status: 400, error: expect.stringMatching(/^HPE_INVALID_CHUNK_SIZE: /) }), expect.objectContaining({ method: 'PUT', path: '/b/k' })]),
    );
  });

  it('GIVEN garbage on a kept-alive connection after an answered request THEN that answer is whole and the garbage gets the 400', async () => {
    const answer = await exchange('GET /nope/k HTTP/1.1\r\nHost: gw\r\n\r\n', 'GARBAGE\r\n\r\n');
    const [first, second] = answer.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 404 Not Found\r\n[\s\S]*<Code>NoSuchBucket<\/Code>[\s\S]*<\/Error>$/);
    expect(second).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*<Code>BadRequest<\/Code>/);
  });

  /** What answerUnreadable writes to a connection for an error with `code`, and whether it ends the connection. */
  function answerFor(code: string, socket = new PassThrough()): { written: string; destroyed: boolean } {
    socket.on('error', () => undefined);
    let written = '';
    socket.on('data', (chunk: Buffer) => (written += chunk.toString()));
    answerUnreadable(Object.assign(new Error('reason'), { code }), socket, () => undefined);
    socket.read();
    return { written, destroyed: socket.destroyed };
  }

  it('GIVEN a head that never finished (headersTimeout) THEN 400 RequestTimeout in S3\'s words', () => {
    const { written, destroyed } = answerFor('ERR_HTTP_REQUEST_TIMEOUT');
    expect(written).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(written).toContain('<Code>RequestTimeout</Code><Message>Your socket connection to the server was not read from or written to within the timeout period.</Message>');
    expect(destroyed).toBe(true);
  });

  it('GIVEN a connection reset by the client, or an answer already begun on it THEN nothing is written, and it is closed', () => {
    expect(answerFor('ECONNRESET')).toEqual({ written: '', destroyed: true });
    const answering = Object.assign(new PassThrough(), { _httpMessage: { headersSent: true } });
    expect(answerFor('HPE_INVALID_CHUNK_SIZE', answering)).toEqual({ written: '', destroyed: true });
  });
});
