/**
 * `npm run serve`: the gateway on node:http. Reads HOST (default 127.0.0.1), PORT (default 8080), CONFIG_PATH
 * (default proxy.toml), GATEWAY_IDLE_TIMEOUT_MS, GATEWAY_STREAM_BUFFER_BYTES and GATEWAY_DRAIN_TIMEOUT_MS
 * (runtime/shared/settings.ts), and the spec's SESSION_TOKEN_KEY, OIDC_PROVIDER_KEY, OIDC_PROVIDER_ISSUER and
 * MAX_UPLOAD_BYTES (and the OIDC_PROVIDER_CERT / _PREVIOUS_* / session settings of docs/oidc-provider.md),
 * and METRICS_PORT: when set, Prometheus metrics at `/metrics` on a listener of its own (docs/observability.md).
 * Refuses to start on an invalid setting or configuration, including an unusable OIDC provider key.
 *
 * On SIGTERM (or SIGINT) it drains: `/.health` answers 503, the listening socket closes, keep-alive clients are
 * told to close, and requests in flight finish for up to GATEWAY_DRAIN_TIMEOUT_MS; then it exits 0. A second
 * signal ends the remaining connections at once.
 */
import { ConfigError, type Environment } from './core/config/parse';
import { PrometheusMetrics, listenMetrics } from './runtime/node/prometheus';
import { serveGateway, type RunningServer } from './runtime/node/serve';
import { processEnvironment, readNodeServerSettings } from './runtime/shared/settings';

export { NODE_SERVER_FLAGS, type RunningServer } from './runtime/node/serve';

/** The server, and with METRICS_PORT set its Prometheus listener (`metricsUrl`), closed with it. */
export async function serve(env: Environment = processEnvironment()): Promise<RunningServer & { readonly metricsUrl?: string }> {
  const { host, metricsPort } = readNodeServerSettings(env);
  if (metricsPort === undefined) return serveGateway(env);
  const metrics = new PrometheusMetrics();
  const running = await serveGateway(env, metrics);
  const listener = await listenMetrics(metrics, host, metricsPort).catch(async (err: unknown) => {
    await running.close();
    throw err;
  });
  const closeMetrics = (): Promise<void> => new Promise((resolve) => listener.server.close(() => resolve()));
  return {
    ...running,
    metricsUrl: listener.url,
    close: () => Promise.all([running.close(), closeMetrics()]).then(() => undefined),
    drain: async () => {
      const outcome = await running.drain();
      await closeMetrics();
      return outcome;
    },
  };
}

function logLine(fields: Readonly<Record<string, unknown>>): void {
  console.error(JSON.stringify({ time: new Date().toISOString(), ...fields }));
}

if (require.main === module) {
  serve().then(
    (running) => {
      logLine({ message: 'gateway listening', url: running.url, ...(running.metricsUrl ? { metricsUrl: running.metricsUrl } : {}) });
      let draining = false;
      const onSignal = (signal: NodeJS.Signals): void => {
        if (draining) {
          logLine({ message: `${signal} again: ending the remaining connections` });
          running.cut();
          return;
        }
        draining = true;
        // Logged once the listener is closed, so the line means no new connection is taken.
        const drained = running.drain();
        logLine({ message: `${signal}: draining connections`, graceMs: running.drainTimeoutMs });
        void drained.then(({ cut }) => {
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
