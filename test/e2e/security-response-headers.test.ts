import { GetObjectCommand, HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import http from 'node:http';
import net from 'node:net';
import { jsClient } from '../support/clients';
import { RUNTIME_LIMITS, RUNTIMES, reportedLength, startGateway, type RunningGateway } from '../support/gateway';
import { startRecordingHop, type RecordingHop } from '../support/recording-hop';
import { errorCode, rawRequest, Sha256 } from '../support/raw-request';
import { createBucket, startRgw, type Rgw } from '../support/rgw';
import { ADMIN, ADMIN_CREDENTIALS } from './fixtures';

/**
 * Response headers the gateway passes on are valid on every runtime, whatever bytes the backend stored:
 * an object whose Content-Disposition holds a raw UTF-8 filename (as many tools write it) reads back with
 * 200 and a filename the client can decode, by GET, HEAD and `response-content-disposition`, where the Node
 * server used to answer 500 and the local Function URL 502. Node passes the bytes on as the backend sent
 * them (so does the edge, for UTF-8); a Lambda response carries plain ASCII (RUNTIME_LIMITS.nonAsciiHeaders).
 * A backend header with control characters is a 502 (the backend answered, invalidly), never a 500 or 503;
 * a `response-*` override with control characters is refused with 400 before anything reaches the backend.
 */
const FILENAME = '日本.pdf';
const DISPOSITION = `attachment; filename="${FILENAME}"`;
/** The disposition as the Lambda handler encodes it (core/header-encoding.ts). */
const ENCODED_DISPOSITION = `attachment; filename="__.pdf"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.pdf`;

/** What a stored header value's bytes look like in Node's header strings (one character per byte). */
const asReceived = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

/**
 * The filename a client reads from a Content-Disposition it received: RFC 8187 `filename*` when there is one,
 * else the `filename` parameter's bytes read as UTF-8 (as browsers do with a raw UTF-8 filename).
 */
function filenameOf(received: string | undefined): string | undefined {
  if (received === undefined) return undefined;
  const ext = /filename\*=UTF-8''([^;\s]+)/i.exec(received);
  if (ext) return decodeURIComponent(ext[1]);
  const plain = /filename="([^"]*)"/.exec(received);
  return plain ? Buffer.from(plain[1], 'latin1').toString('utf8') : undefined;
}

/** A header value as text: an RFC 2047 encoded word decoded, else its bytes read as UTF-8. */
function textOf(received: string | undefined): string | undefined {
  if (received === undefined) return undefined;
  const word = /^=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=$/.exec(received);
  return Buffer.from(word ? word[1] : received, word ? 'base64' : 'latin1').toString('utf8');
}

/**
 * Stores an object on RGW with headers holding raw UTF-8, as a tool that writes them so would: the signature
 * is computed over the UTF-8 text (what the bytes on the wire are), the headers sent as those bytes.
 */
async function putWithRawHeaders(rgw: Rgw, path: string, headers: Record<string, string>, body: string): Promise<void> {
  const url = new URL(rgw.endpoint);
  const signer = new SignatureV4({ credentials: rgw, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false, applyChecksum: false });
  const signed = await signer.sign({
    method: 'PUT',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path,
    query: {},
    headers: { host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'content-length': String(Buffer.byteLength(body)), ...headers },
  });
  const wire = Object.fromEntries(Object.entries(signed.headers).map(([name, value]) => [name, asReceived(value)]));
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method: 'PUT', path, headers: wire }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
  if (status !== 200) throw new Error(`seeding ${path} on RGW answered ${status}`);
}

/**
 * A store that answers every GET with a fixed head no S3 implementation here would send: header values with
 * ISO-8859-1 bytes, raw UTF-8 metadata, control characters. Not a double of S3's behaviour: the only way to
 * show what the gateway makes of such bytes.
 */
const ODD_ANSWERS: Record<string, string> = {
  '/odd/non-ascii':
    'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-type: text/plain; name=\xe6\x97\xa5\r\n' +
    'x-amz-meta-city: Torrej\xc3\xb3n de Ardoz\r\nx-amz-meta-latin: caf\xe9\r\n\r\nhi',
  '/odd/control': 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-amz-meta-a: x\x01y\r\n\r\nhi',
  '/odd/delete': 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-amz-meta-a: x\x7fy\r\n\r\nhi',
};

function startOddStore(): Promise<{ endpoint: string; close: () => void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const path = head.split(' ')[1].split('?')[0];
      head = head.slice(end + 4);
      socket.write(Buffer.from(ODD_ANSWERS[path] ?? 'HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n', 'latin1'));
    });
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        endpoint: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
        close: () => {
          server.close();
          for (const socket of sockets) socket.destroy();
        },
      }),
    ),
  );
}

let rgw: Rgw;
let hop: RecordingHop;
let odd: Awaited<ReturnType<typeof startOddStore>>;

beforeAll(async () => {
  [rgw, odd] = await Promise.all([startRgw(), startOddStore()]);
  await createBucket(rgw, 'data');
  hop = await startRecordingHop(rgw.endpoint);
  await putWithRawHeaders(rgw, '/data/doc.pdf', { 'content-disposition': DISPOSITION, 'content-type': 'application/pdf' }, 'pdf bytes');
  await putWithRawHeaders(rgw, '/data/plain.txt', { 'content-type': 'text/plain' }, 'plain');
}, 120_000);

afterAll(async () => {
  await hop?.stop();
  odd?.close();
  await rgw?.stop();
});

function config(): string {
  const s3 = (name: string, endpoint: string): string => `
[[buckets]]
name = "${name}"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "${endpoint}"
bucket_name = "data"
region = "us-east-1"
access_key_id = "${rgw.accessKeyId}"
secret_access_key = "${rgw.secretAccessKey}"
`;
  return `
${s3('files', rgw.endpoint)}
${s3('watched', hop.endpoint)}
[[buckets]]
name = "odd"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "${odd.endpoint}"
bucket_name = "odd"

${ADMIN_CREDENTIALS}`;
}

describe.each(RUNTIMES)('response headers on the %s runtime', (runtime) => {
  const limits = RUNTIME_LIMITS[runtime];
  let gw: RunningGateway;
  let admin: S3Client;
  let anonymous: S3Client;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config() });
    admin = jsClient(gw.endpoint, ADMIN);
    anonymous = jsClient(gw.endpoint);
  }, 60_000);

  afterAll(async () => {
    admin?.destroy();
    anonymous?.destroy();
    await gw?.stop();
  });

  /** The Content-Disposition the client receives for the stored raw UTF-8 one, byte for byte. */
  const expectedDisposition = limits.nonAsciiHeaders === 'ascii' ? ENCODED_DISPOSITION : asReceived(DISPOSITION);

  describe('an object stored with a raw UTF-8 filename in its Content-Disposition', () => {
    it('GET answers 200 with the body and a disposition whose filename the client reads back', async () => {
      const out = await admin.send(new GetObjectCommand({ Bucket: 'files', Key: 'doc.pdf' }));
      expect(await out.Body?.transformToString()).toBe('pdf bytes');
      expect(filenameOf(out.ContentDisposition)).toBe(FILENAME);
      expect(out.ContentLength).toBe(reportedLength(runtime, 9));
    });

    it('HEAD answers 200 with the same disposition and the object size', async () => {
      const out = await admin.send(new HeadObjectCommand({ Bucket: 'files', Key: 'doc.pdf' }));
      expect(filenameOf(out.ContentDisposition)).toBe(FILENAME);
      expect(out.ContentLength).toBe(reportedLength(runtime, 9));
    });

    it.each(['GET', 'HEAD'])('%s passes the stored bytes on where the runtime can carry them, else a valid encoding', async (method) => {
      const res = await rawRequest(gw.endpoint, { method, target: '/files/doc.pdf' });
      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toBe(expectedDisposition);
      expect(await gw.logged(new RegExp(`"method":"${method}","path":"/files/doc.pdf","status":200`))).toBe(true);
    });
  });

  it('a GET with response-content-disposition naming a UTF-8 file answers 200 with a filename the client reads back', async () => {
    const out = await admin.send(new GetObjectCommand({ Bucket: 'files', Key: 'plain.txt', ResponseContentDisposition: DISPOSITION }));
    expect(await out.Body?.transformToString()).toBe('plain');
    expect(filenameOf(out.ContentDisposition)).toBe(FILENAME);
    const raw = await rawRequest(gw.endpoint, { method: 'GET', target: `/files/plain.txt?response-content-disposition=${encodeURIComponent(DISPOSITION)}` }, ADMIN);
    expect(raw.status).toBe(200);
    expect(raw.headers['content-disposition']).toBe(expectedDisposition);
  });

  it('non-ASCII bytes in other headers a backend sends (metadata, Content-Type) reach the client as a valid header', async () => {
    const out = await anonymous.send(new GetObjectCommand({ Bucket: 'odd', Key: 'non-ascii' }));
    expect(await out.Body?.transformToString()).toBe('hi');
    expect(textOf(out.Metadata?.city)).toBe('Torrejón de Ardoz');
    expect(textOf(out.ContentType)).toBe('text/plain; name=日');
    // Bytes that are not UTF-8: passed on as sent, encoded as the ISO-8859-1 text they are, or replaced
    // by the Workers runtime before the worker sees them.
    const latin = limits.nonAsciiHeaders === 'ascii' ? '=?UTF-8?B?Y2Fmw6k=?=' : limits.nonAsciiHeaders === 'utf8' ? asReceived('caf\ufffd') : 'caf\xe9';
    expect(out.Metadata?.latin).toBe(latin);
  });

  it.each([
    ['a control character', 'control'],
    ['DEL', 'delete'],
  ])('a backend header value with %s is a 502 (the backend answered, invalidly), never a 500 or 503', async (_, key) => {
    const res = await rawRequest(gw.endpoint, { method: 'GET', target: `/odd/${key}` });
    expect(res.status).toBe(502);
    expect(errorCode(res.body)).toBe('BadGateway');
  });

  describe('a response-* override holding control characters', () => {
    it.each([
      ['response-content-type', 'text/plain\r\nx-injected: 1'],
      ['response-content-disposition', 'attachment\nx-injected: 1'],
      ['response-cache-control', 'no-cache\u0000'],
      ['response-content-language', 'en\r'],
      ['response-expires', 'Thu, 01 Jan 2099\t00:00:00 GMT'],
    ])('%s is refused with 400 InvalidArgument, and nothing reaches the backend', async (name, value) => {
      const before = hop.requests.length;
      const target = `/watched/plain.txt?${name}=${encodeURIComponent(value)}`;
      const signed = await rawRequest(gw.endpoint, { method: 'GET', target }, ADMIN);
      expect(signed.status).toBe(400);
      expect(errorCode(signed.body)).toBe('InvalidArgument');
      expect(signed.body).toContain(`<ArgumentName>${name}</ArgumentName>`);
      expect(signed.headers['x-injected']).toBeUndefined();
      const anonymousRead = await rawRequest(gw.endpoint, { method: 'GET', target });
      expect(anonymousRead.status).toBe(400);
      expect(hop.requests.length).toBe(before);
    });

    it('an anonymous read may not override at all: 400 InvalidRequest, as S3 answers, and nothing reaches the backend', async () => {
      const before = hop.requests.length;
      for (const method of ['GET', 'HEAD']) {
        const res = await rawRequest(gw.endpoint, { method, target: '/watched/plain.txt?response-content-type=text%2Fhtml' });
        expect(res.status).toBe(400);
        expect(res.headers['content-type']).not.toBe('text/html');
        if (method === 'GET') expect(errorCode(res.body)).toBe('InvalidRequest');
      }
      expect(hop.requests.length).toBe(before);
      const signed = await rawRequest(gw.endpoint, { method: 'GET', target: '/watched/plain.txt?response-content-type=text%2Fhtml' }, ADMIN);
      expect([signed.status, signed.headers['content-type']]).toEqual([200, 'text/html']);
    });

    it('refuses the JS SDK the same way', async () => {
      const err = await admin.send(new GetObjectCommand({ Bucket: 'watched', Key: 'plain.txt', ResponseContentType: 'text/plain\r\nx: y' })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(S3ServiceException);
      expect((err as S3ServiceException).name).toBe('InvalidArgument');
    });
  });
});
