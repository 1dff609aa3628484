import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { toProxyRequest, writeHead } from '../../../functions/runtime/node/listener';

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
