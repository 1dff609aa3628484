/**
 * The Node server's start: settings, configuration, backend connections, the listener and its drain. The
 * server entry (node-server.ts) adds the Prometheus listener; the Web Function entry its CloudWatch EMF
 * metrics. Kept apart from both so neither bundle carries the other's metrics library.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Environment } from '../../core/config/parse';
import type { PlatformHeaders } from '../../core/sigv4/platform-headers';
import { nodeBackend, type NodeBackend } from './backend';
import { nodeCrc32, nodeHash } from './checksums';
import { loadConfig } from './config-file';
import { ServerDrain, type DrainOutcome } from './drain';
import { createServer } from './listener';
import { logEvent } from './stdout';
import { newGateway } from '../shared/lazy-gateway';
import type { LoggedMetrics } from '../shared/observe';
import { processEnvironment, readNodeServerSettings } from '../shared/settings';

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
 * Starts the server; `metrics` receives every request's sample and the OIDC exchanges' outcomes.
 * `platformHeaders`: what a platform in front of the server changes in requests (the Web Function's
 * endpoint), for signature verification; absent: clients reach the server directly.
 */
export async function serveGateway(env: Environment = processEnvironment(), metrics?: LoggedMetrics, platformHeaders?: PlatformHeaders): Promise<RunningServer> {
  const settings = readNodeServerSettings(env);
  const bufferBytes = settings.streamBufferBytes;
  const backend = nodeBackend({ bufferBytes, idleTimeoutMs: settings.idleTimeoutMs });
  const gateway = newGateway(loadConfig(settings.configPath, env), { client: backend.client, log: logEvent, crc32: nodeCrc32(), hash: nodeHash(), metrics }, (line) => console.error(line));
  const drain = new ServerDrain();
  const server = createServer({ gateway, backend }, { bufferBytes, drain, metrics, ...(platformHeaders ? { platformHeaders } : {}) });
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

