import type { Config } from '../../core/config/types';
import { Gateway, type GatewayDeps } from '../../core/gateway';
import { withSessionKey } from './session-key';

/**
 * The gateway of a process (or isolate): the configuration with its session key settled (without
 * SESSION_TOKEN_KEY a random one, said so on `warn`) and the runtime's abilities as its dependencies.
 *
 * @param holder What a random session key belongs to, in the warning's words: `process` or `isolate`.
 */
export function newGateway(config: Config, deps: GatewayDeps, warn: (line: string) => void, holder?: string): Gateway {
  return new Gateway(withSessionKey(config, warn, holder).config, deps);
}

/**
 * Builds a runtime's gateway on first use and keeps it for every later call: the STS JWKS cache, the backend
 * credentials of `auth_type = "oidc"` buckets and the pooled connections live as long as the sandbox or
 * isolate. A failed build is reported, forgotten and rethrown, so the next call builds again: a transient
 * failure (SSM unreachable) does not poison the runtime.
 *
 * @param report Logs a failure. It must not print values: a ConfigError names variables and fields only.
 * @example const coldStart = lazyGateway(build, (err) => console.error(describeError(err)));
 */
export function lazyGateway<T, A = void>(build: (arg: A) => Promise<T>, report: (err: unknown) => void): (arg: A) => Promise<T> {
  let built: Promise<T> | undefined;
  return (arg) => {
    built ??= build(arg).catch((err: unknown) => {
      built = undefined;
      report(err);
      throw err;
    });
    return built;
  };
}
