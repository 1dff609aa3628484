/**
 * `npm run serve`: the gateway on node:http. Reads CONFIG_PATH (default proxy.toml), HOST (default
 * 127.0.0.1), PORT (default 8080) and the spec's SESSION_TOKEN_KEY, OIDC_PROVIDER_KEY,
 * OIDC_PROVIDER_ISSUER and MAX_UPLOAD_BYTES (and the OIDC_PROVIDER_CERT / _PREVIOUS_* / session settings of
 * docs/oidc.md), and GATEWAY_STREAM_BUFFER_BYTES. Refuses to start on an invalid configuration, including an
 * unusable OIDC provider key.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gateway } from './core/gateway';
import { ConfigError } from './core/config/parse';
import { loadConfig } from './runtime/node/config-file';
import { sessionUnsealer } from './core/sts';
import { logEvent } from './runtime/shared/access-log';
import { useNodeChecksums } from './runtime/node/checksums';
import { nodeBackend, type NodeBackend } from './runtime/node/backend';
import { createServer } from './runtime/node/listener';
import { withSessionKey } from './runtime/shared/session-key';

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
 * How much of a body each connection, client or backend, holds before it pushes back on its source: 1 MiB
 * unless GATEWAY_STREAM_BUFFER_BYTES says otherwise (Envoy's default per-connection buffer limit). With Node's
 * own 16 KiB a large body stops and restarts its source every few reads. Measured on 1 MiB GETs at
 * concurrency 8: a fifth less CPU per GET (A/B, alternating order) and 14% more throughput in the bench; the
 * RSS growth of a 1 GiB GET unchanged (40-46 MB against 42-45 in fresh processes; 35-48 in the e2e spec).
 * The cost is memory for slow clients: one whose backend sends faster than it reads holds up to twice this.
 * Only the connections: every other stream keeps Node's default (setting it process-wide moved no more and
 * once took the e2e spec's RSS growth to 66 MB).
 */
export const DEFAULT_STREAM_BUFFER_BYTES = 1024 * 1024;

export function streamBufferBytes(env: NodeJS.ProcessEnv): number {
  const raw = env.GATEWAY_STREAM_BUFFER_BYTES;
  if (raw === undefined || raw === '') return DEFAULT_STREAM_BUFFER_BYTES;
  const bytes = Number(raw);
  if (!Number.isSafeInteger(bytes) || bytes < 16 * 1024) {
    const problem = `GATEWAY_STREAM_BUFFER_BYTES must be a whole number of bytes, at least 16384 (got "${raw}")`;
    throw new ConfigError([problem]);
  }
  return bytes;
}

export interface RunningServer {
  readonly url: string;
  readonly server: Server;
  /** The backend connections the server forwards on. */
  readonly backend: NodeBackend;
  readonly close: () => Promise<void>;
}

export async function serve(env: NodeJS.ProcessEnv = process.env): Promise<RunningServer> {
  const { config, key } = withSessionKey(loadConfig(env), (line) => console.error(line));
  const bufferBytes = streamBufferBytes(env);
  const backend = nodeBackend({ bufferBytes, idleTimeoutMs: Number(env.GATEWAY_IDLE_TIMEOUT_MS) || undefined });
  useNodeChecksums();
  const gateway = new Gateway(config, { client: backend.client, unseal: sessionUnsealer(key), log: logEvent });
  const server = createServer({ gateway, backend }, { bufferBytes });
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
