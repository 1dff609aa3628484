import { readFileSync } from 'node:fs';
import { ConfigError, parseConfig, type Environment } from '../../core/config/parse';
import type { Config } from '../../core/config/types';

/** Reads and validates the configuration file; the one place a Node runtime touches CONFIG_PATH. */
export function loadConfig(env: Environment = process.env): Config {
  const path = env.CONFIG_PATH || 'proxy.toml';
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`]);
  }
  return parseConfig(text, env);
}
