import net from 'node:net';
import { createBucket, startRgw, type Rgw } from '../support/rgw';
import { startGateway, type RunningGateway } from '../support/gateway';
import { rawRequest } from '../support/raw-request';
import { bucketToml, credentialToml, everywhere, s3Options } from '../support/config-toml';

/**
 * An upload whose body stops moving never holds a request forever: the Node server fails it after the idle
 * timeout (shortened here through GATEWAY_IDLE_TIMEOUT_MS) with S3's 400 RequestTimeout, and the backend
 * (Ceph RGW, which commits only complete bodies) holds nothing; a backend that stops reading is 504. (On Lambda the platform buffers the whole body before the function runs.)
 */
let backend: Rgw;
let gw: RunningGateway;
/** A backend that accepts connections and never reads from them: a store that stopped taking the body. */
let deaf: net.Server;
const deafSockets = new Set<net.Socket>();

beforeAll(async () => {
  deaf = net.createServer((socket) => {
    socket.pause();
    deafSockets.add(socket);
  });
  await new Promise<void>((resolve) => deaf.listen(0, '127.0.0.1', resolve));
  const deafPort = (deaf.address() as net.AddressInfo).port;
  backend = await startRgw();
  await createBucket(backend, 'uploads');
  gw = await startGateway('node', {
    config: [
      bucketToml({ name: 'up', backend_type: 's3' }, s3Options(backend.endpoint, 'uploads', backend)),
      bucketToml({ name: 'deaf', backend_type: 's3' }, { endpoint: `http://127.0.0.1:${deafPort}`, bucket_name: 'uploads' }),
      credentialToml(WRITER, {}, [everywhere(['put_object', 'get_object'])]),
    ].join('\n'),
    env: { GATEWAY_IDLE_TIMEOUT_MS: '1500' },
  });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await backend?.stop();
  deaf?.close();
  // Paused, they never read the gateway's close: end them here, or they outlive the suite.
  for (const socket of deafSockets) socket.destroy();
});

const WRITER = { accessKeyId: 'WRITERKEY00000000000', secretAccessKey: 'writer/secret/key/000000000000000000000' };

/**
 * A signed PUT declaring `declared` bytes, sent on a raw socket with only `sent` of them (then silence);
 * resolves with everything the gateway answered.
 */
async function rawPut(target: string, declared: number, sent: number): Promise<string> {
  const { signRequest } = await import('../../functions/core/sigv4');
  const headers = await signRequest({
    method: 'PUT',
    url: `${gw.endpoint}${target}`,
    headers: { 'content-length': String(declared) },
    payloadHash: 'UNSIGNED-PAYLOAD',
    credentials: WRITER,
    region: 'us-east-1',
    service: 's3',
    now: Date.now(),
  });
  const { port } = new URL(gw.endpoint);
  return new Promise<string>((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n');
      socket.write(`PUT ${target} HTTP/1.1\r\n${head}\r\n\r\n`);
      socket.write(Buffer.alloc(sent, 'x'));
    });
    let received = '';
    socket.on('data', (c: Buffer) => {
      received += c.toString();
      // The gateway keeps the connection open after its answer; the error document ends it for us.
      if (received.includes('</Error>')) socket.destroy();
    });
    socket.on('close', () => resolve(received));
    socket.on('error', () => resolve(received));
    setTimeout(() => socket.destroy(), 15_000);
  });
}

it('answers 400 RequestTimeout when the client stops sending mid-body, and stores nothing', async () => {
  const answer = await rawPut('/up/stalled.bin', 1024 * 1024, 512 * 1024); // half the declared body, then silence
  expect(answer).toMatch(/^HTTP\/1\.1 400/);
  expect(answer).toContain('<Code>RequestTimeout</Code>');
  const read = await rawRequest(gw.endpoint, { method: 'GET', target: '/up/stalled.bin' }, WRITER);
  expect(read.status).toBe(404);
}, 30_000);

it('answers 504 GatewayTimeout when the backend stops reading the body, however fast the client sends', async () => {
  // All of it at once, far more than the connection and socket buffers on the way hold: the client never stalls.
  const size = 64 * 1024 * 1024;
  const answer = await rawPut('/deaf/never-read.bin', size, size);
  expect(answer).toMatch(/^HTTP\/1\.1 504/);
  expect(answer).toContain('<Code>GatewayTimeout</Code>');
}, 30_000);
