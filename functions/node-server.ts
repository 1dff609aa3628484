/**
 * `npm run serve`: the gateway on node:http. Reads HOST (default 127.0.0.1), PORT (default 8080), CONFIG_PATH
 * (default proxy.toml), GATEWAY_IDLE_TIMEOUT_MS, GATEWAY_STREAM_BUFFER_BYTES and GATEWAY_DRAIN_TIMEOUT_MS
 * (runtime/shared/settings.ts), and the spec's SESSION_TOKEN_KEY, OIDC_PROVIDER_KEY, OIDC_PROVIDER_ISSUER and
 * MAX_UPLOAD_BYTES (and the OIDC_PROVIDER_CERT / _PREVIOUS_* / session settings of docs/oidc-provider.md).
 * Refuses to start on an invalid setting or configuration, including an unusable OIDC provider key.
 *
 * On SIGTERM (or SIGINT) it drains: `/.health` answers 503, the listening socket closes, keep-alive clients are
 * told to close, and requests in flight finish for up to GATEWAY_DRAIN_TIMEOUT_MS; then it exits 0. A second
 * signal ends the remaining connections at once.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, type Environment } from './core/config/parse';
import type { PlatformHeaders } from './core/sigv4/platform-headers';
import { nodeBackend, type NodeBackend } from './runtime/node/backend';
import { nodeCrc32 } from './runtime/node/checksums';
import { loadConfig } from './runtime/node/config-file';
import { ServerDrain, type DrainOutcome } from './runtime/node/drain';
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

/**
 * @param platformHeaders What a platform in front of the server changes in requests (the Web Function's
 *   endpoint), for signature verification; absent: clients reach the server directly.
 */
export async function serve(env: Environment = processEnvironment(), platformHeaders?: PlatformHeaders): Promise<RunningServer> {
  const settings = readNodeServerSettings(env);
  const bufferBytes = settings.streamBufferBytes;
  const backend = nodeBackend({ bufferBytes, idleTimeoutMs: settings.idleTimeoutMs });
  const gateway = newGateway(loadConfig(settings.configPath, env), { client: backend.client, log: logEvent, crc32: nodeCrc32() }, (line) => console.error(line));
  const drain = new ServerDrain();
  const server = createServer({ gateway, backend }, { bufferBytes, drain, ...(platformHeaders ? { platformHeaders } : {}) });
  server.keepAliveTimeout = 65_000;
  // Node's default (300 s) would cut a slow large PUT that is still moving; the gateway's idle timeout
  // (GATEWAY_IDLE_TIMEOUT_MS) ends a body that stops arriving, and headersTimeout a request that never
  // finishes its head, as on every runtime.
  server.requestTimeout = 0;
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
  const startDrain = (): Promise<DrainOutcome> => {
    gateway.startDraining();
    return drain.start(server, settings.drainTimeoutMs);
  };
  return { url, server, backend, close, drain: startDrain, cut: () => drain.cut(), drainTimeoutMs: settings.drainTimeoutMs };
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
