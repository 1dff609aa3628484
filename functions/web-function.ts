/**
 * The Lambda Web Function entry: the Node server, unchanged, listening where the platform says
 * (AWS_LAMBDA_HTTP_ENDPOINT). Lambda proxies HTTP/1.1 to it, streamed both ways, so nothing here translates
 * requests. Reads the same variables as `npm run serve`, except that HOST and PORT come from
 * AWS_LAMBDA_HTTP_ENDPOINT, CONFIG_PATH defaults to the proxy.toml bundled beside this file, and
 * OIDC_PROVIDER_KEY, SESSION_TOKEN_KEY and OIDC_PROVIDER_ISSUER may each come through NAME_PARAMETER (an SSM
 * parameter name, read once at start from PARAMETER_REGION: a multi-Region endpoint runs in Regions whose
 * SSM does not hold the parameters).
 */
import { join } from 'node:path';
import { ConfigError } from './core/config/parse';
import { EmfMetrics } from './runtime/lambda/emf';
import { serveGateway, type RunningServer } from './runtime/node/serve';
import { resolveEnvironment, ssmParameterReader } from './runtime/lambda/environment';
import { WEB_FUNCTION_HEADERS } from './runtime/lambda/platform-headers';
import { ssmEndpoint } from './runtime/lambda/ssm';
import { nodeBackend } from './runtime/node/backend';
import { describeError } from './runtime/shared/access-log';
import { processEnvironment, readWebFunctionSettings } from './runtime/shared/settings';

/**
 * After SIGTERM Lambda gives the process at most a second before it ends the environment; requests still in
 * flight then are cut whatever the server does, so it stops waiting a little before.
 */
const SHUTDOWN_GRACE_MS = 900;

/** Reads the parameters, then listens. Lambda requires the listen within 10 s of the start (init). */
async function start(env = processEnvironment()): Promise<RunningServer> {
  const { listen, parameters, parameterRegion } = readWebFunctionSettings(env);
  const resolved = await resolveEnvironment(env, parameters, ssmParameterReader(nodeBackend().client, () => ssmEndpoint(env, parameterRegion)));
  // CloudWatch metrics as EMF fields in each access-log line; METRICS_PORT (Prometheus) is the container's.
  return serveGateway({ ...resolved, METRICS_PORT: undefined, CONFIG_PATH: resolved.CONFIG_PATH || join(__dirname, 'proxy.toml'), HOST: listen.host, PORT: String(listen.port) }, new EmfMetrics(), WEB_FUNCTION_HEADERS);
}

/**
 * Runs on load, whatever loads it: the Web Function runtime starts the package's entry file itself, and
 * nothing says it does so as Node's main module.
 */
start().then(
  ({ server, close }) => {
    // Not the Node server's `url`: the endpoint's domain, not this address, is what clients use.
    console.error(JSON.stringify({ time: new Date().toISOString(), message: 'gateway listening', httpEndpoint: processEnvironment().AWS_LAMBDA_HTTP_ENDPOINT, runtime: 'web function' }));
    process.once('SIGTERM', () => {
      const timer = setTimeout(() => {
        server.closeAllConnections();
        process.exit(0);
      }, SHUTDOWN_GRACE_MS);
      // Logged once the listener is closed, so the line means no new connection is taken.
      const closed = close();
      console.error(JSON.stringify({ time: new Date().toISOString(), message: 'SIGTERM: draining connections' }));
      void closed.then(() => {
        clearTimeout(timer);
        process.exit(0);
      });
    });
  },
  (err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : describeError(err));
    process.exit(1);
  },
);
