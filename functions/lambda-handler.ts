/**
 * The Lambda entry (Function URL, invoke mode RESPONSE_STREAM). Reads CONFIG_PATH (the stack points it at the
 * proxy.toml bundled with the function), OIDC_PROVIDER_KEY, SESSION_TOKEN_KEY and OIDC_PROVIDER_ISSUER, each
 * either directly or through NAME_PARAMETER (an SSM parameter name), and MAX_UPLOAD_BYTES.
 */
import { Gateway } from './core/gateway';
import { ConfigError } from './core/config/parse';
import { loadConfig } from './runtime/node/config-file';
import { resolveEnvironment, ssmParameterReader } from './runtime/lambda/environment';
import { streamingHandler } from './runtime/lambda/streaming';
import { describeError, logEvent } from './runtime/shared/access-log';
import { useNodeChecksums } from './runtime/node/checksums';
import { nodeBackend } from './runtime/node/backend';
import type { NodeGateway } from './runtime/node/executor';
import { withSessionKey } from './runtime/shared/session-key';

let gateway: Promise<NodeGateway> | undefined;

/**
 * Builds the gateway once per cold start: secrets from SSM, then the validated configuration. A failure is
 * logged (never a value: ConfigError names variables and fields only) and retried by the next invocation,
 * so a transient SSM error does not poison the sandbox.
 */
export function coldStart(): Promise<NodeGateway> {
  gateway ??= build().catch((err: unknown) => {
    gateway = undefined;
    console.error(JSON.stringify({ time: new Date().toISOString(), message: 'cold start failed', error: err instanceof ConfigError ? err.message : describeError(err) }));
    throw err;
  });
  return gateway;
}

async function build(): Promise<NodeGateway> {
  const env = await resolveEnvironment(process.env, ssmParameterReader());
  // The stack always provisions SESSION_TOKEN_KEY; without it (a hand-made deployment, the local front) each
  // execution environment seals with its own key and says so, exactly as the Node server does per process.
  const { config } = withSessionKey(loadConfig(env), (line) => console.error(line));
  useNodeChecksums();
  const backend = nodeBackend({ idleTimeoutMs: Number(env.GATEWAY_IDLE_TIMEOUT_MS) || undefined });
  return { gateway: new Gateway(config, { client: backend.client, log: logEvent }), backend };
}

export const handler = awslambda.streamifyResponse(streamingHandler(coldStart));
