import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getDefaultHighWaterMark, Readable } from 'node:stream';
import { NODE_SERVER_FLAGS, serve } from '../functions/node-server';
import { runGatewayExpectingFailure } from './support/gateway';

describe('Node server entry: how it is started', () => {
  it('GIVEN `npm run serve` THEN node runs the bundle with the server\'s V8 flags', () => {
    const scripts = JSON.parse(readFileSync(resolve(__dirname, '../package.json'), 'utf8')).scripts as Record<string, string>;
    const command = scripts.serve.split('&&').pop()?.trim().split(/\s+/) ?? [];
    expect(command[0]).toBe('node');
    expect(command.at(-1)).toBe('dist/node-server.js');
    expect(command).toEqual(expect.arrayContaining([...NODE_SERVER_FLAGS]));
  });

  it('GIVEN this Node THEN it accepts the flags (a renamed V8 flag would stop the server from starting)', () => {
    expect(() => execFileSync(process.execPath, [...NODE_SERVER_FLAGS, '-e', '0'], { stdio: 'pipe' })).not.toThrow();
  });
});

describe('Node server entry: GATEWAY_STREAM_BUFFER_BYTES', () => {
  const config = '[[buckets]]\nname = "b"\nbackend_type = "s3"\nanonymous_access = true\n[buckets.backend_options]\nendpoint = "http://127.0.0.1:9"\nbucket_name = "b"\n';

  it('GIVEN the server starts THEN its client and backend connections hold that much, and other streams Node\'s default', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stream-buffer-'));
    const backend = http.createServer((_req, res) => res.end('x'));
    try {
      await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
      const backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
      writeFileSync(join(dir, 'proxy.toml'), config.replace('http://127.0.0.1:9', backendUrl));
      const sessionKey = Buffer.alloc(32, 1).toString('base64');
      const env = { CONFIG_PATH: join(dir, 'proxy.toml'), PORT: '0', SESSION_TOKEN_KEY: sessionKey, GATEWAY_STREAM_BUFFER_BYTES: '262144' };
      const gateway = await serve(env);
      const client = new Promise<number[]>((resolve) => gateway.server.once('connection', (s: Socket) => resolve([s.readableHighWaterMark, s.writableHighWaterMark])));
      const answer = await fetch(`${gateway.url}/b/k`);
      await answer.text();
      await gateway.close();
      expect(answer.status).toBe(200);
      expect(await client).toEqual([262144, 262144]);
      // The gateway's own backend connections, through the same pool.
      const direct = await gateway.backend.send({ method: 'GET', url: `${backendUrl}/b/k`, headers: {}, body: null }, () => Readable.from([]));
      direct.resume();
      expect(direct.readableHighWaterMark).toBe(262144);
      expect(getDefaultHighWaterMark(false)).toBe(16 * 1024);
    } finally {
      backend.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('GIVEN an invalid value THEN the server does not start, and says why', async () => {
    const { code, output } = await runGatewayExpectingFailure('node', { config, env: { GATEWAY_STREAM_BUFFER_BYTES: 'lots' } });
    expect(code).toBe(1);
    expect(output).toContain('GATEWAY_STREAM_BUFFER_BYTES must be a whole number of bytes');
  });
});

describe('Node server entry: its settings', () => {
  it('GIVEN GATEWAY_IDLE_TIMEOUT_MS that is no duration THEN the server does not start, naming the variable', async () => {
    const config = '[[buckets]]\nname = "b"\nbackend_type = "s3"\n[buckets.backend_options]\nendpoint = "http://127.0.0.1:9"\nbucket_name = "b"\n';
    const { code, output } = await runGatewayExpectingFailure('node', { config, env: { GATEWAY_IDLE_TIMEOUT_MS: '2m' } });
    expect(code).toBe(1);
    expect(output).toContain('GATEWAY_IDLE_TIMEOUT_MS must be a whole number of milliseconds');
  });
});

describe('Node server entry: connection-level timeouts and headers', () => {
  const config = '[[buckets]]\nname = "b"\nbackend_type = "s3"\nanonymous_access = true\n[buckets.backend_options]\nendpoint = "http://127.0.0.1:9"\nbucket_name = "b"\n';

  it('GIVEN the server starts THEN no total request time cuts a body still arriving, and an unfinished head is still bounded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'request-timeout-'));
    try {
      writeFileSync(join(dir, 'proxy.toml'), config);
      const gateway = await serve({ CONFIG_PATH: join(dir, 'proxy.toml'), PORT: '0', SESSION_TOKEN_KEY: Buffer.alloc(32, 1).toString('base64') });
      try {
        // Node's default (300 s) would end a slow 5 GB PUT that is still moving; GATEWAY_IDLE_TIMEOUT_MS
        // ends a body that stops arriving instead (security-timeouts and stalled-upload suites).
        expect(gateway.server.requestTimeout).toBe(0);
        expect(gateway.server.headersTimeout).toBeGreaterThan(0);
      } finally {
        await gateway.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('GIVEN an HTTP/1.1 answer THEN it persists, saying Connection: keep-alive without the Keep-Alive a client could copy into a signed request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keep-alive-'));
    try {
      writeFileSync(join(dir, 'proxy.toml'), config);
      const gateway = await serve({ CONFIG_PATH: join(dir, 'proxy.toml'), PORT: '0', SESSION_TOKEN_KEY: Buffer.alloc(32, 1).toString('base64') });
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const get = (): Promise<{ headers: http.IncomingHttpHeaders; reused: boolean }> =>
          new Promise((resolvePromise, reject) => {
            const req = http.get(`${gateway.url}/.health`, { agent }, (res) => {
              res.resume();
              res.on('end', () => resolvePromise({ headers: res.headers, reused: req.reusedSocket }));
            });
            req.on('error', reject);
          });
        const first = await get();
        const second = await get();
        expect([first.headers['keep-alive'], first.headers.connection]).toEqual([undefined, 'keep-alive']);
        expect(second.reused).toBe(true);
      } finally {
        agent.destroy();
        await gateway.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
