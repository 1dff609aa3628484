/**
 * The Lambda entry (Function URL, invoke mode RESPONSE_STREAM). Reads CONFIG_PATH (the stack points it at the
 * proxy.toml bundled with the function), OIDC_PROVIDER_KEY, SESSION_TOKEN_KEY and OIDC_PROVIDER_ISSUER, each
 * either directly or through NAME_PARAMETER (an SSM parameter name), MAX_UPLOAD_BYTES and
 * GATEWAY_IDLE_TIMEOUT_MS.
 */
import { ConfigError } from './core/config/parse';
import { EmfMetrics } from './runtime/lambda/emf';
import { resolveEnvironment, ssmParameterReader } from './runtime/lambda/environment';
import { ssmEndpoint } from './runtime/lambda/ssm';
import { streamingHandler } from './runtime/lambda/streaming';
import { nodeBackend } from './runtime/node/backend';
import { nodeCrc32, nodeHash } from './runtime/node/checksums';
import { loadConfig } from './runtime/node/config-file';
import type { NodeGateway } from './runtime/node/executor';
import { logEvent } from './runtime/node/stdout';
import { describeError } from './runtime/shared/access-log';
import { lazyGateway, newGateway } from './runtime/shared/lazy-gateway';
import { processEnvironment, readLambdaSettings } from './runtime/shared/settings';

/**
 * Builds the gateway once per cold start: settings, secrets from SSM, then the validated configuration. A
 * failure is logged (never a value: ConfigError names variables and fields only) and retried by the next
 * invocation, so a transient SSM error does not poison the sandbox.
 */
/** CloudWatch metrics, as EMF fields in each access-log line (docs/observability.md). */
const metrics = new EmfMetrics();

export const coldStart = lazyGateway(build, (err) =>
  console.error(JSON.stringify({ time: new Date().toISOString(), message: 'cold start failed', error: err instanceof ConfigError ? err.message : describeError(err) })),
);

async function build(): Promise<NodeGateway> {
  const env = processEnvironment();
  const settings = readLambdaSettings(env);
  const backend = nodeBackend({ idleTimeoutMs: settings.idleTimeoutMs });
  const config = loadConfig(settings.configPath, await resolveEnvironment(env, settings.parameters, ssmParameterReader(backend.client, () => ssmEndpoint(env))));
  // The stack always provisions SESSION_TOKEN_KEY; without it (a hand-made deployment, the local front) each
  // execution environment seals with its own key and says so, exactly as the Node server does per process.
  const gateway = newGateway(config, { client: backend.client, log: logEvent, crc32: nodeCrc32(), hash: nodeHash(), metrics }, (line) => console.error(line));
  return { gateway, backend };
}

export const handler = awslambda.streamifyResponse(streamingHandler(coldStart, undefined, metrics));
