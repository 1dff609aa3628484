import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getDefaultHighWaterMark, Readable } from 'node:stream';
import type { BackendRequest } from '../../../functions/core/http';
import type { WireResponse } from '../../../functions/runtime/node/http1/response';
import { headerList, nodeBackend, splitUrl, wireRequest, type NodeBackend } from '../../../functions/runtime/node/backend';
import { keepsOneHiddenClass } from '../../support/v8-natives';

describe('Node backend requests: the URL and headers that go on the wire', () => {
  it('GIVEN URLs with dot segments, escapes, IPv6 and no port THEN they split without normalizing', () => {
    expect(splitUrl('http://127.0.0.1:9000/b/a/../%2e%2e/k?x=1')).toEqual({ protocol: 'http:', hostname: '127.0.0.1', port: '9000', path: '/b/a/../%2e%2e/k?x=1' });
    expect(splitUrl('https://[::1]/b')).toEqual({ protocol: 'https:', hostname: '::1', port: '443', path: '/b' });
    expect(splitUrl('HTTP://store.example')).toMatchObject({ protocol: 'http:', port: '80', path: '/' });
    expect(() => splitUrl('ftp://store.example/b')).toThrow('Invalid backend URL');
  });

  const list = (method: string, url: string, headers: Record<string, string>, body?: BackendRequest['body']): string[] =>
    headerList({ method, url, headers, body }, splitUrl(url));

  it('GIVEN headers without host THEN the list adds host, with the port only when it is not the default', () => {
    expect(list('GET', 'http://127.0.0.1:9000/b/k', { range: 'bytes=0-1' })).toEqual(['range', 'bytes=0-1', 'host', '127.0.0.1:9000']);
    expect(list('GET', 'https://store.example/b/k', {})).toEqual(['host', 'store.example']);
    expect(list('GET', 'http://[::1]:8080/b/k', {})).toEqual(['host', '[::1]:8080']);
  });

  it('GIVEN a signed host THEN the list keeps it as signed and adds no other', () => {
    expect(list('GET', 'http://127.0.0.1:9000/b', { host: 'signed.example:1', authorization: 'AWS4-HMAC-SHA256 …' })).toEqual([
      'host', 'signed.example:1', 'authorization', 'AWS4-HMAC-SHA256 …',
    ]);
  });

  it('GIVEN a PUT or POST with no body or one in hand and no length THEN the list adds its length, as Node would', () => {
    const host = { host: 'h' };
    expect(list('PUT', 'http://h/b/k', { ...host, 'x-amz-copy-source': '/b/s' }, null)).toEqual(['host', 'h', 'x-amz-copy-source', '/b/s', 'content-length', '0']);
    expect(list('POST', 'http://h/b/k?uploads', host)).toEqual(['host', 'h', 'content-length', '0']);
    expect(list('POST', 'http://h/b?delete', host, new Uint8Array(5))).toEqual(['host', 'h', 'content-length', '5']);
    expect(list('PUT', 'http://h/b/k', { ...host, 'content-length': '3' }, new Uint8Array(3))).toEqual(['host', 'h', 'content-length', '3']);
  });

  it('GIVEN a GET, HEAD or DELETE, or a streamed body THEN no length is added', () => {
    for (const method of ['GET', 'HEAD', 'DELETE']) expect(list(method, 'http://h/b/k', { host: 'h' })).toEqual(['host', 'h']);
    expect(list('PUT', 'http://h/b/k', { host: 'h' }, 'client')).toEqual(['host', 'h']);
  });

  it('GIVEN many backend requests THEN each goes to the client as its target, method and header list, all of one hidden class', () => {
    const request = (i: number): BackendRequest => ({ method: 'GET', url: `http://h:9000/b/k${i}?x=1`, headers: { host: 'h:9000' } });
    expect(wireRequest(request(1))).toEqual({ protocol: 'http:', hostname: 'h', port: '9000', path: '/b/k1?x=1', method: 'GET', headers: ['host', 'h:9000'] });
    expect(keepsOneHiddenClass((i) => wireRequest(request(i)))).toBe(true);
  });

  describe('against a listening server', () => {
    const backend = nodeBackend();
    let server: http.Server;
    let base: string;
    const seen: Array<{ method?: string; url?: string; httpVersion?: string; rawHeaders: string[] }> = [];

    beforeAll(async () => {
      server = http.createServer((req, res) => {
        seen.push({ method: req.method, url: req.url, httpVersion: req.httpVersion, rawHeaders: req.rawHeaders });
        req.resume();
        req.on('end', () => res.end('ok'));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('GIVEN a GET THEN the backend sees HTTP/1.1 (persistent), the raw path, the headers given and host', async () => {
      const res = await backend.send({ method: 'GET', url: `${base}/b/a/../k%2F?x=1`, headers: { 'if-match': '"e"' }, body: null }, () => Readable.from([]));
      res.resume();
      expect(res.statusCode).toBe(200);
      const last = seen[seen.length - 1];
      expect(last).toMatchObject({ method: 'GET', url: '/b/a/../k%2F?x=1', httpVersion: '1.1' });
      expect(last.rawHeaders).toEqual(['if-match', '"e"', 'host', base.slice('http://'.length)]);
    });

    it('GIVEN a header value with a line break THEN the request is refused before anything is sent', async () => {
      const before = seen.length;
      await expect(backend.send({ method: 'GET', url: `${base}/b/k`, headers: { 'x-amz-meta-a': 'a\r\nx: y' }, body: null }, () => Readable.from([]))).rejects.toThrow(
        /Invalid character in header content/,
      );
      expect(seen).toHaveLength(before);
    });

    it('GIVEN a PUT without a body (a copy) THEN it goes out with a zero length, not chunked', async () => {
      const res = await backend.send({ method: 'PUT', url: `${base}/b/k`, headers: { 'x-amz-copy-source': '/b/s' }, body: null }, () => Readable.from([]));
      res.resume();
      const raw = seen[seen.length - 1].rawHeaders.map((h) => h.toLowerCase());
      expect(raw).toEqual(expect.arrayContaining(['content-length', '0']));
      expect(raw).not.toContain('transfer-encoding');
    });

    it('GIVEN a body of known length THEN it is sent with that content-length', async () => {
      const res = await backend.send({ method: 'PUT', url: `${base}/b/k`, headers: { 'content-length': '3' }, body: new Uint8Array([1, 2, 3]) }, () => Readable.from([]));
      res.resume();
      expect(seen[seen.length - 1].rawHeaders).toEqual(expect.arrayContaining(['content-length', '3']));
    });

    it('GIVEN bufferBytes THEN the backend\'s connections hold that much; without, Node\'s default', async () => {
      const get = (backend: NodeBackend): Promise<WireResponse> => backend.send({ method: 'GET', url: `${base}/b/k`, headers: {}, body: null }, () => Readable.from([]));
      const before = await get(nodeBackend());
      before.resume();
      expect(before.readableHighWaterMark).toBe(getDefaultHighWaterMark(false));
      const after = await get(nodeBackend({ bufferBytes: 256 * 1024 }));
      after.resume();
      expect(after.readableHighWaterMark).toBe(262144);
    });
  });
});
