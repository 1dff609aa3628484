/**
 * The edge entry: a Workers module (`export default { fetch }`), bundled by `npm run build:edge` into
 * dist/edge/worker.js and deployed with wrangler (docs/deploy-edge.md). Configuration is the `CONFIG_TOML` binding
 * or the TOML bundled at build time; every string binding (variables and secrets: SESSION_TOKEN_KEY,
 * OIDC_PROVIDER_KEY, OIDC_PROVIDER_ISSUER, MAX_UPLOAD_BYTES, EDGE_ZONE_COMPRESSION, the names
 * `{ env = "NAME" }` refers to) is the environment the configuration is read with, as `process.env` is on the
 * Node server.
 */
import bundledConfig from 'gateway:config';
import { ConfigError, parseConfig } from './core/config/parse';
import { edgeHash } from './runtime/edge/checksums';
import { edgeEnvironment, type EdgeBindings } from './runtime/edge/environment';
import { fetchBackendClient } from './runtime/edge/fetch';
import { edgeHandler, type EdgeGateway } from './runtime/edge/handler';
import { describeError } from './runtime/shared/access-log';
import { lazyGateway, newGateway } from './runtime/shared/lazy-gateway';
import { readEdgeSettings } from './runtime/shared/settings';

/**
 * The isolate's gateway, built on its first request (a Worker's global scope may not generate keys or do
 * I/O, and its bindings arrive with the request) and kept for every later one. A failure is logged and
 * retried by the next request; a ConfigError lists every problem, one per line, as the Node server prints it.
 */
const isolateGateway = lazyGateway(build, (err) =>
  console.error(err instanceof ConfigError ? err.message : JSON.stringify({ time: new Date().toISOString(), message: 'gateway start failed', error: describeError(err) })),
);

async function build(bindings: EdgeBindings): Promise<EdgeGateway> {
  const environment = edgeEnvironment(bindings);
  const { configText, idleTimeoutMs, zoneCompression } = readEdgeSettings(environment, bundledConfig);
  const log = (event: Readonly<Record<string, unknown>>): void => console.log(JSON.stringify({ time: new Date().toISOString(), ...event }));
  const gateway = newGateway(parseConfig(configText, environment), { client: fetchBackendClient(), log, hash: edgeHash() }, (line) => console.error(line), 'isolate');
  return { gateway, idleTimeoutMs, zoneCompression };
}

export default { fetch: edgeHandler(isolateGateway) };
