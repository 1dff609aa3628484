import type { LambdaFunctionURLEvent } from 'aws-lambda';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { eventBody, toProxyRequest } from '../../../functions/runtime/lambda/event';
import { toFunctionUrlEvent } from '../../../scripts/lambda-local/event';

/**
 * The two halves of the Function URL mapping: what the local front puts in the payload-2.0 event for a raw
 * HTTP request (bytes written on a socket, so nothing is normalised by a client library), and what the
 * handler makes of that event for the core.
 */

interface Captured {
  readonly event: LambdaFunctionURLEvent;
}

let server: http.Server;
let port: number;
let lastEvent: LambdaFunctionURLEvent | undefined;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      lastEvent = toFunctionUrlEvent(req, Buffer.concat(chunks));
      res.writeHead(204, { connection: 'close' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends `head` (request line and headers, `\n`-separated) and `body` exactly as given. */
async function send(head: string, body: Buffer = Buffer.alloc(0)): Promise<Captured> {
  lastEvent = undefined;
  const socket = net.connect(port, '127.0.0.1');
  const lines = head.trim().split('\n').map((l) => l.trim());
  lines.push(`host: 127.0.0.1:${port}`, 'connection: close');
  if (body.length > 0) lines.push(`content-length: ${body.length}`);
  socket.write(lines.join('\r\n') + '\r\n\r\n');
  socket.write(body);
  await new Promise((resolve) => socket.on('close', resolve).resume());
  if (!lastEvent) throw new Error('no event captured');
  return { event: lastEvent };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('Function URL event mapping', () => {
  test('GIVEN a percent-encoded path WHEN mapped THEN rawPath reaches the core exactly as sent', async () => {
    const path = '/bucket/a%20b/..%2F%2e%2e/c%25d%2Bplus';
    const { event } = await send(`GET ${path} HTTP/1.1`);
    expect(event.rawPath).toBe(path);
    expect(event.requestContext.http.path).toBe(path);
    const request = toProxyRequest(event, eventBody(event));
    expect(request.rawPath).toBe(path);
    expect(request.method).toBe('GET');
  });

  test('GIVEN `+` and encoded characters in the query WHEN mapped THEN rawQueryString is untouched and only queryStringParameters is decoded', async () => {
    const query = 'list-type=2&prefix=a+b%2Bc&delimiter=%2F&flag';
    const { event } = await send(`GET /bucket?${query} HTTP/1.1`);
    expect(event.rawQueryString).toBe(query);
    expect(event.queryStringParameters).toEqual({ 'list-type': '2', prefix: 'a b+c', delimiter: '/', flag: '' });
    expect(toProxyRequest(event, eventBody(event)).rawQuery).toBe(query);
  });

  test('GIVEN no query WHEN mapped THEN rawQueryString is empty and there are no queryStringParameters', async () => {
    const { event } = await send('GET /bucket/key HTTP/1.1');
    expect(event.rawQueryString).toBe('');
    expect(event.queryStringParameters).toBeUndefined();
    expect(toProxyRequest(event, eventBody(event)).rawQuery).toBe('');
  });

  test('GIVEN repeated and mixed-case headers WHEN mapped THEN names are lowercase and repeated values are joined with a comma', async () => {
    const { event } = await send(`GET /b/k HTTP/1.1
      X-Amz-Date: 20260101T000000Z
      X-Amz-Meta-Tag: one
      x-amz-meta-tag: two`);
    expect(event.headers['x-amz-date']).toBe('20260101T000000Z');
    expect(event.headers['x-amz-meta-tag']).toBe('one,two');
    const headers = toProxyRequest(event, eventBody(event)).headers;
    expect(headers.get('x-amz-meta-tag')).toBe('one,two');
    expect(headers.get('host')).toBe(`127.0.0.1:${port}`);
  });

  test('GIVEN hop-by-hop headers WHEN mapped THEN the function does not see them', async () => {
    const { event } = await send(`GET /b/k HTTP/1.1
      keep-alive: timeout=5`);
    expect(event.headers.connection).toBeUndefined();
    expect(event.headers['keep-alive']).toBeUndefined();
  });

  test('GIVEN a binary body WHEN mapped THEN it travels base64-encoded and the handler gets the same bytes', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const { event } = await send(`PUT /b/k HTTP/1.1
      content-type: application/octet-stream`, bytes);
    expect(event.isBase64Encoded).toBe(true);
    expect(event.body).toBe(bytes.toString('base64'));
    const body = eventBody(event);
    expect(body.equals(bytes)).toBe(true);
    expect((await readAll(toProxyRequest(event, body).body())).equals(bytes)).toBe(true);
  });

  test('GIVEN a body without content type WHEN mapped THEN it is base64-encoded', async () => {
    const { event } = await send('PUT /b/k HTTP/1.1', Buffer.from('plain words'));
    expect(event.isBase64Encoded).toBe(true);
    expect(eventBody(event).toString()).toBe('plain words');
  });

  test('GIVEN a text body WHEN mapped THEN it travels as a string and decodes to the same UTF-8 bytes', async () => {
    const text = 'héllo <xml/> "quoted"\n';
    const { event } = await send(`POST /?Action=AssumeRoleWithWebIdentity HTTP/1.1
      content-type: text/plain; charset=utf-8`, Buffer.from(text));
    expect(event.isBase64Encoded).toBe(false);
    expect(event.body).toBe(text);
    expect(eventBody(event).toString('utf8')).toBe(text);
  });

  test('GIVEN no body WHEN mapped THEN the event has no body and the core reads an empty stream', async () => {
    const { event } = await send('GET /b/k HTTP/1.1');
    expect(event.body).toBeUndefined();
    expect(event.isBase64Encoded).toBe(false);
    expect((await readAll(toProxyRequest(event, eventBody(event)).body())).length).toBe(0);
  });

  test('GIVEN a Cookie header WHEN mapped THEN the event carries cookies and the core gets the Cookie header back', async () => {
    const { event } = await send(`GET /b/k HTTP/1.1
      Cookie: a=1; b=2`);
    expect(event.cookies).toEqual(['a=1', 'b=2']);
    expect(event.headers.cookie).toBeUndefined();
    expect(toProxyRequest(event, eventBody(event)).headers.get('cookie')).toBe('a=1; b=2');
  });

  test('GIVEN any request WHEN mapped THEN requestContext.http describes it and the method reaches the core upper-case', async () => {
    const { event } = await send(`HEAD /b/k HTTP/1.1
      user-agent: aws-cli/2.9`);
    expect(event.version).toBe('2.0');
    expect(event.routeKey).toBe('$default');
    expect(event.requestContext.http).toEqual({ method: 'HEAD', path: '/b/k', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'aws-cli/2.9' });
    expect(event.requestContext.timeEpoch).toBeGreaterThan(0);
    expect(event.requestContext.time).toMatch(/^\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d \+0000$/);
    expect(toProxyRequest({ ...event, requestContext: { ...event.requestContext, http: { ...event.requestContext.http, method: 'head' } } }, Buffer.alloc(0)).method).toBe('HEAD');
  });

  test('GIVEN a header value decoded beyond Latin-1 in the event WHEN mapped THEN the core gets its UTF-8 bytes, one character per byte as from the Node server', async () => {
    const { event } = await send('GET /b/k HTTP/1.1');
    const request = toProxyRequest({ ...event, headers: { ...event.headers, 'x-amz-meta-name': '€uro' } }, Buffer.alloc(0));
    expect(request.headers.get('x-amz-meta-name')).toBe('\u00e2\u0082\u00acuro');
  });

  test('GIVEN a header value with a line break WHEN mapped THEN the mapping refuses it (the handler answers 400)', async () => {
    const { event } = await send('GET /b/k HTTP/1.1');
    expect(() => toProxyRequest({ ...event, headers: { ...event.headers, 'x-amz-meta-a': 'a\nb' } }, Buffer.alloc(0))).toThrow(/invalid header value/);
  });

  test('GIVEN two requests WHEN mapped THEN each gets its own request id in S3 style', async () => {
    const { event } = await send('GET /b/k HTTP/1.1');
    const a = toProxyRequest(event, Buffer.alloc(0));
    const b = toProxyRequest(event, Buffer.alloc(0));
    expect(a.requestId).toMatch(/^[0-9A-F]{16}$/);
    expect(a.requestId).not.toBe(b.requestId);
  });
});
