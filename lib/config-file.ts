import { readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { ConfigError, parseConfig } from '../functions/core/config/parse';

/**
 * The deployed configuration file, checked at synth time so a bad file fails `cdk synth` instead of every
 * cold start. Secrets written as `{ env = "NAME" }` are not needed for the check: their names are collected
 * so the deployment can pass them to the function.
 */
export interface ConfigFile {
  readonly path: string;
  /** Environment variables the file reads through `{ env = "NAME" }`, sorted. */
  readonly environmentNames: readonly string[];
}

/** Settings the stack provides itself; placeholders stand in for them while the file is checked. */
const PROVIDED_BY_STACK = {
  OIDC_PROVIDER_KEY: 'provided at cold start',
  OIDC_PROVIDER_ISSUER: 'https://function-url.invalid',
  SESSION_TOKEN_KEY: Buffer.alloc(32).toString('base64'),
};

export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`Cannot read the gateway configuration ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'}); pass another with -c config=PATH`);
  }
  const environmentNames = referencedEnvironment(text);
  const placeholders = Object.fromEntries(environmentNames.map((name) => [name, `placeholder-for-${name}`]));
  try {
    parseConfig(text, { ...placeholders, ...PROVIDED_BY_STACK });
  } catch (err) {
    if (err instanceof ConfigError) throw new Error(`${path}: ${err.message}`);
    throw err;
  }
  return { path, environmentNames };
}

/** Every `{ env = "NAME" }` table anywhere in the TOML document. */
export function referencedEnvironment(tomlText: string): string[] {
  let doc: unknown;
  try {
    doc = parseToml(tomlText);
  } catch {
    return [];
  }
  const names = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
      const entries = Object.entries(value);
      if (entries.length === 1 && entries[0][0] === 'env' && typeof entries[0][1] === 'string') names.add(entries[0][1]);
      else entries.forEach(([, v]) => walk(v));
    }
  };
  walk(doc);
  return [...names].sort();
}
