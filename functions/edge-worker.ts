/**
 * The edge entry: a Workers module (`export default { fetch }`), bundled by `npm run build:edge` into
 * dist/edge/worker.js and deployed with wrangler (docs/edge.md). Configuration is the `CONFIG_TOML` binding
 * or the TOML bundled at build time; every string binding (variables and secrets: SESSION_TOKEN_KEY,
 * OIDC_PROVIDER_KEY, OIDC_PROVIDER_ISSUER, MAX_UPLOAD_BYTES, the names `{ env = "NAME" }` refers to) is
 * the environment the configuration is read with, as `process.env` is on the Node server.
 */
import bundledConfig from 'gateway:config';
import { ConfigError, parseConfig } from './core/config/parse';
import { Gateway } from './core/gateway';
import { describeError } from './runtime/shared/access-log';
import { configText, edgeEnvironment, type EdgeBindings } from './runtime/edge/environment';
import { fetchBackendClient } from './runtime/edge/fetch';
import { edgeHandler } from './runtime/edge/handler';
import { withSessionKey } from './runtime/shared/session-key';

let gateway: Promise<Gateway> | undefined;

/**
 * The isolate's gateway, built on its first request (a Worker's global scope may not generate keys or do
 * I/O, and its bindings arrive with the request) and kept for every later one: the STS JWKS cache and the
 * backend credential cache of `auth_type = "oidc"` buckets live as long as the isolate. A failure is logged
 * and retried by the next request.
 */
function isolateGateway(bindings: EdgeBindings): Promise<Gateway> {
  gateway ??= build(bindings).catch((err: unknown) => {
    gateway = undefined;
    // A ConfigError lists every problem, one per line, as the Node server prints it; it names fields, never values.
    console.error(err instanceof ConfigError ? err.message : JSON.stringify({ time: new Date().toISOString(), message: 'gateway start failed', error: describeError(err) }));
    throw err;
  });
  return gateway;
}

async function build(bindings: EdgeBindings): Promise<Gateway> {
  const environment = edgeEnvironment(bindings);
  const parsed = parseConfig(configText(environment, bundledConfig), environment);
  const { config } = withSessionKey(parsed, (line) => console.error(line), 'isolate');
  return new Gateway(config, { client: fetchBackendClient(), log: (event) => console.log(JSON.stringify({ time: new Date().toISOString(), ...event })) });
}

export default { fetch: edgeHandler(isolateGateway) };
