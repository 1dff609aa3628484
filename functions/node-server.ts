/**
 * `npm run serve`: the gateway on node:http. Reads CONFIG_PATH (default proxy.toml), HOST (default
 * 127.0.0.1), PORT (default 8080) and the spec's SESSION_TOKEN_KEY, OIDC_PROVIDER_KEY,
 * OIDC_PROVIDER_ISSUER and MAX_UPLOAD_BYTES (and the OIDC_PROVIDER_CERT / _PREVIOUS_* / session settings of
 * docs/oidc.md). Refuses to start on an invalid configuration, including an unusable OIDC provider key.
 */
import type { AddressInfo } from 'node:net';
import { Gateway } from './core/gateway';
import { ConfigError } from './core/config/parse';
import { loadConfig } from './runtime/load-config';
import { sessionUnsealer } from './core/sts';
import { logEvent } from './runtime/access-log';
import { useNodeChecksums } from './runtime/node-checksums';
import { nodeBackendClient } from './runtime/node-http';
import { createServer } from './runtime/node-server';
import { withSessionKey } from './runtime/session-key';

export async function serve(env: NodeJS.ProcessEnv = process.env): Promise<{ url: string; close: () => Promise<void> }> {
  const { config, key } = withSessionKey(loadConfig(env), (line) => console.error(line));
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
