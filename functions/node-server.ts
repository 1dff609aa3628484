/**
 * `npm run serve`: the gateway on node:http. Reads HOST (default 127.0.0.1), PORT (default 8080), CONFIG_PATH
 * (default proxy.toml), GATEWAY_IDLE_TIMEOUT_MS and GATEWAY_STREAM_BUFFER_BYTES (runtime/shared/settings.ts),
 * and the spec's SESSION_TOKEN_KEY, OIDC_PROVIDER_KEY, OIDC_PROVIDER_ISSUER and MAX_UPLOAD_BYTES (and the
 * OIDC_PROVIDER_CERT / _PREVIOUS_* / session settings of docs/oidc.md). Refuses to start on an invalid
 * setting or configuration, including an unusable OIDC provider key.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, type Environment } from './core/config/parse';
import { nodeBackend, type NodeBackend } from './runtime/node/backend';
import { nodeCrc32 } from './runtime/node/checksums';
import { loadConfig } from './runtime/node/config-file';
import { createServer } from './runtime/node/listener';
import { logEvent } from './runtime/node/stdout';
import { newGateway } from './runtime/shared/lazy-gateway';
import { processEnvironment, readNodeServerSettings } from './runtime/shared/settings';

/**
 * V8 flags to run this server with (`npm run serve`, containers: `node --initial-old-space-size=64
 * dist/node-server.js`). V8 counts every socket read buffer allocated since the last full GC against the old
 * generation's limit, which after a full GC settles near the live heap plus ~8 MB: for a gateway whose live
 * heap is ~8 MB, streaming large objects then forces a full GC every ~8-30 MB moved (measured: 3 per 100
 * 1 MiB GETs, a quarter of the throughput lost). A preconfigured initial old space is also the floor below
 * which V8 skips full GCs. Not accepted in NODE_OPTIONS, hence the command line.
 */
export const NODE_SERVER_FLAGS: readonly string[] = ['--initial-old-space-size=64'];

export interface RunningServer {
  readonly url: string;
  readonly server: Server;
  /** The backend connections the server forwards on. */
  readonly backend: NodeBackend;
  readonly close: () => Promise<void>;
}

export async function serve(env: Environment = processEnvironment()): Promise<RunningServer> {
  const settings = readNodeServerSettings(env);
  const bufferBytes = settings.streamBufferBytes;
  const backend = nodeBackend({ bufferBytes, idleTimeoutMs: settings.idleTimeoutMs });
  const gateway = newGateway(loadConfig(settings.configPath, env), { client: backend.client, log: logEvent, crc32: nodeCrc32() }, (line) => console.error(line));
  const server = createServer({ gateway, backend }, { bufferBytes });
  server.keepAliveTimeout = 65_000;
  const { host, port } = settings;
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
  return { url, server, backend, close };
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
