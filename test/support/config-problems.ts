import { ConfigError, parseConfig, type Environment } from '../../functions/core/config/parse';

/** The problems a configuration is refused with; fails the spec when the configuration is accepted. */
export function problemsOf(toml: string, env: Environment = {}): readonly string[] {
  try {
    parseConfig(toml, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('the configuration was accepted');
}
