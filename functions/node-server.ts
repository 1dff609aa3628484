/**
 * `npm run serve`: the gateway on node:http. Reads CONFIG_PATH (default proxy.toml), HOST (default
 * 127.0.0.1), PORT (default 8080) and the spec's SESSION_TOKEN_KEY, OIDC_PROVIDER_KEY,
 * OIDC_PROVIDER_ISSUER and MAX_UPLOAD_BYTES (and the OIDC_PROVIDER_CERT / _PREVIOUS_* / session settings of
 * docs/oidc-provider.md), GATEWAY_STREAM_BUFFER_BYTES and GATEWAY_DRAIN_TIMEOUT_MS. Refuses to start on an invalid
 * configuration, including an unusable OIDC provider key.
 *
 * On SIGTERM (or SIGINT) it drains: `/.health` answers 503, the listening socket closes, keep-alive clients are
 * told to close, and requests in flight finish for up to GATEWAY_DRAIN_TIMEOUT_MS; then it exits 0. A second
 * signal ends the remaining connections at once.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gateway } from './core/gateway';
import { ConfigError } from './core/config/parse';
import { loadConfig } from './runtime/load-config';
import { sessionUnsealer } from './core/sts';
import { logEvent } from './runtime/access-log';
import { useNodeChecksums } from './runtime/node-checksums';
import { nodeBackendClient, useBackendBuffers } from './runtime/node-http';
import { drainTimeoutMs, ServerDrain, type DrainOutcome } from './runtime/node-drain';
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
  /** Stops at once, ending idle connections (tests, the local front): no drain. */
  readonly close: () => Promise<void>;
  /**
   * SIGTERM's shutdown: health reports draining, no new connections, requests in flight finish. Resolves once
   * none is left or GATEWAY_DRAIN_TIMEOUT_MS ran out (the rest are then cut and counted).
   */
  readonly drain: () => Promise<DrainOutcome>;
  /** Cuts what a drain still waits for (a second signal). */
  readonly cut: () => void;
  /** The grace period `drain` gives requests in flight, from GATEWAY_DRAIN_TIMEOUT_MS. */
  readonly drainTimeoutMs: number;
}

export async function serve(env: NodeJS.ProcessEnv = process.env): Promise<RunningServer> {
  const { config, key } = withSessionKey(loadConfig(env), (line) => console.error(line));
  const bufferBytes = streamBufferBytes(env);
  const graceMs = drainTimeoutMs(env);
  useBackendBuffers(bufferBytes);
  useNodeChecksums();
  const gateway = new Gateway(config, { client: nodeBackendClient, unseal: sessionUnsealer(key), log: logEvent });
  const drain = new ServerDrain();
  const server = createServer(gateway, { bufferBytes, drain });
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
  const startDrain = (): Promise<DrainOutcome> => {
    gateway.startDraining();
    return drain.start(server, graceMs);
  };
  return { url, server, close, drain: startDrain, cut: () => drain.cut(), drainTimeoutMs: graceMs };
}

function logLine(fields: Readonly<Record<string, unknown>>): void {
  console.error(JSON.stringify({ time: new Date().toISOString(), ...fields }));
}

if (require.main === module) {
  serve().then(
    (running) => {
      logLine({ message: 'gateway listening', url: running.url });
      let draining = false;
      const onSignal = (signal: NodeJS.Signals): void => {
        if (draining) {
          logLine({ message: `${signal} again: ending the remaining connections` });
          running.cut();
          return;
        }
        draining = true;
        logLine({ message: `${signal}: draining connections`, graceMs: running.drainTimeoutMs });
        void running.drain().then(({ cut }) => {
          if (cut > 0) logLine({ level: 'warn', message: 'drained: connections cut at the end of the grace period', cut });
          else logLine({ message: 'drained: every request finished' });
          process.exit(0);
        });
      };
      for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, onSignal);
    },
    (err: unknown) => {
      console.error(err instanceof ConfigError ? err.message : err);
      process.exit(1);
    },
  );
}
