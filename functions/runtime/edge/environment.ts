import type { Environment } from '../../core/config/parse';

/**
 * A Worker's bindings, as the platform passes them to `fetch(request, env, ctx)`: variables and secrets are
 * strings; KV namespaces, services and the like are objects the gateway does not use.
 */
export type EdgeBindings = Readonly<Record<string, unknown>>;

/**
 * The Environment record `parseConfig` takes, from the Worker's bindings: every string binding under its
 * own name. Variables (`[vars]` in wrangler.toml) and secrets (`wrangler secret put SESSION_TOKEN_KEY`)
 * are both strings, so SESSION_TOKEN_KEY, OIDC_PROVIDER_KEY, OIDC_PROVIDER_ISSUER, MAX_UPLOAD_BYTES and the
 * names a configuration refers to with `{ env = "NAME" }` arrive exactly as on the Node server.
 *
 * @example edgeEnvironment({ MAX_UPLOAD_BYTES: '104857600', BUCKET: kvNamespace }) // { MAX_UPLOAD_BYTES: '104857600' }
 */
export function edgeEnvironment(bindings: EdgeBindings): Environment {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(bindings)) {
    if (typeof value === 'string') environment[name] = value;
  }
  return environment;
}
