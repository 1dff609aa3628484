/**
 * `npm run serve`: the gateway on node:http. Reads CONFIG_PATH (default proxy.toml), HOST (default
 * 127.0.0.1), PORT (default 8080) and the spec's SESSION_TOKEN_KEY, OIDC_PROVIDER_KEY,
 * OIDC_PROVIDER_ISSUER and MAX_UPLOAD_BYTES (and the OIDC_PROVIDER_CERT / _PREVIOUS_* / session settings of
 * docs/oidc.md), and GATEWAY_STREAM_BUFFER_BYTES. Refuses to start on an invalid configuration, including an
 * unusable OIDC provider key.
 */
import type { AddressInfo } from 'node:net';
import { setDefaultHighWaterMark } from 'node:stream';
import { Gateway } from './core/gateway';
import { ConfigError } from './core/config/parse';
import { loadConfig } from './runtime/load-config';
import { sessionUnsealer } from './core/sts';
import { logEvent } from './runtime/access-log';
import { useNodeChecksums } from './runtime/node-checksums';
import { nodeBackendClient } from './runtime/node-http';
import { createServer } from './runtime/node-server';
import { withSessionKey } from './runtime/session-key';

/**
 * V8 flags to run this server with (`npm run serve`, containers: `node --initial-old-space-size=64
 * dist/node-server.js`). V8 counts every socket read buffer allocated since the last full GC against the old
 * generation's limit, which after a full GC settles near the live heap plus ~8 MB: for a gateway whose live
 * heap is ~8 MB, streaming large objects then forces a full GC every ~8-30 MB moved (measured: 3 per 100
 * 1 MiB GETs, a quarter of the throughput lost). A preconfigured initial old space is also the floor below
 * which V8 skips full GCs. Not accepted in NODE_OPTIONS, hence the command line.
 */
export const NODE_SERVER_FLAGS: readonly string[] = ['--initial-old-space-size=64'];

/**
 * How much of a body each stream holds before it pushes back on its source; unset, Node's own 16 KiB. Larger
 * buffers move large GETs faster (A/B, both orders, with the executor's coalesced writes: 1 MiB GETs at
 * concurrency 8 17-46% more at 1 MiB, 8-14% more at 256 KiB; a single 256 MiB GET 22% more at 1 MiB) but
 * raise memory: a connection holds about twice this while its client reads slower than its backend sends,
 * and the RSS growth of a 1 GiB GET (eight runs each) reached 66 MB at 1 MiB and 58 MB at 256 KiB against
 * 50 MB at 16 KiB. The 64 MB streaming budget keeps the default; raise it where memory allows.
 */
export function streamBufferBytes(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.GATEWAY_STREAM_BUFFER_BYTES;
  if (raw === undefined || raw === '') return undefined;
  const bytes = Number(raw);
  if (!Number.isSafeInteger(bytes) || bytes < 16 * 1024) {
    const problem = `GATEWAY_STREAM_BUFFER_BYTES must be a whole number of bytes, at least 16384 (got "${raw}")`;
    throw new ConfigError([problem]);
  }
  return bytes;
}

export async function serve(env: NodeJS.ProcessEnv = process.env): Promise<{ url: string; close: () => Promise<void> }> {
  const { config, key } = withSessionKey(loadConfig(env), (line) => console.error(line));
  // Process-wide, before the server makes its first stream: every stream in this process carries bodies.
  const bufferBytes = streamBufferBytes(env);
  if (bufferBytes !== undefined) setDefaultHighWaterMark(false, bufferBytes);
  useNodeChecksums();
  const gateway = new Gateway(config, { client: nodeBackendClient, unseal: sessionUnsealer(key), log: logEvent });
  const server = createServer(gateway);
  server.keepAliveTimeout = 65_000;
  const host = env.HOST || '127.0.0.1';
  const port = Number(env.PORT || 8080);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  return { url, close };
}

if (require.main === module) {
  serve().then(
    ({ url, close }) => {
      console.error(JSON.stringify({ time: new Date().toISOString(), message: 'gateway listening', url }));
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        process.once(signal, () => {
          console.error(JSON.stringify({ time: new Date().toISOString(), message: `${signal}: draining connections` }));
          void close().then(() => process.exit(0));
        });
      }
    },
    (err: unknown) => {
      console.error(err instanceof ConfigError ? err.message : err);
      process.exit(1);
    },
  );
}
