import { readFileSync } from 'node:fs';
import { ConfigError, parseConfig, type Environment } from '../../core/config/parse';
import type { Config } from '../../core/config/types';

/**
 * Reads and validates the configuration file at `path` (CONFIG_PATH), with `env` for the core's settings and
 * the names `{ env = "NAME" }` refers to. A file that cannot be read is a ConfigError naming it.
 */
export function loadConfig(path: string, env: Environment): Config {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`]);
  }
  return parseConfig(text, env);
}
