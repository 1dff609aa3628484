import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getDefaultHighWaterMark, setDefaultHighWaterMark } from 'node:stream';
import { ConfigError } from '../functions/core/config/parse';
import { NODE_SERVER_FLAGS, serve, streamBufferBytes } from '../functions/node-server';
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
  it('GIVEN nothing set THEN Node\'s own stream buffers stay (the 64 MB streaming budget decides)', () => {
    expect(streamBufferBytes({})).toBeUndefined();
    expect(streamBufferBytes({ GATEWAY_STREAM_BUFFER_BYTES: '' })).toBeUndefined();
  });

  it('GIVEN a whole number of bytes THEN that', () => {
    expect(streamBufferBytes({ GATEWAY_STREAM_BUFFER_BYTES: '65536' })).toBe(65536);
  });

  it.each(['abc', '1.5', '-1', '1024', '1e400'])('GIVEN %p THEN the configuration is refused', (value) => {
    expect(() => streamBufferBytes({ GATEWAY_STREAM_BUFFER_BYTES: value })).toThrow(ConfigError);
    expect(() => streamBufferBytes({ GATEWAY_STREAM_BUFFER_BYTES: value })).toThrow(/GATEWAY_STREAM_BUFFER_BYTES must be a whole number of bytes, at least 16384/);
  });

  const config = '[[buckets]]\nname = "b"\nbackend_type = "s3"\nanonymous_access = true\n[buckets.backend_options]\nendpoint = "http://127.0.0.1:9"\nbucket_name = "b"\n';

  it('GIVEN the server starts THEN every stream in its process holds that much before pushing back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stream-buffer-'));
    const before = getDefaultHighWaterMark(false);
    try {
      writeFileSync(join(dir, 'proxy.toml'), config);
      const sessionKey = Buffer.alloc(32, 1).toString('base64');
      const env = { CONFIG_PATH: join(dir, 'proxy.toml'), PORT: '0', SESSION_TOKEN_KEY: sessionKey, GATEWAY_STREAM_BUFFER_BYTES: '262144' };
      const server = await serve(env);
      await server.close();
      expect(getDefaultHighWaterMark(false)).toBe(262144);
    } finally {
      setDefaultHighWaterMark(false, before);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('GIVEN an invalid value THEN the server does not start, and says why', async () => {
    const { code, output } = await runGatewayExpectingFailure('node', { config, env: { GATEWAY_STREAM_BUFFER_BYTES: 'lots' } });
    expect(code).toBe(1);
    expect(output).toContain('GATEWAY_STREAM_BUFFER_BYTES must be a whole number of bytes');
  });
});
