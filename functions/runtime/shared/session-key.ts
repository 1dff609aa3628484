import type { Config } from '../../core/config/types';

/**
 * The key that seals STS session tokens (and, derived from it, listing tokens). SESSION_TOKEN_KEY (base64 of
 * 32 bytes) is read with the rest of the configuration; without it a runtime makes a random key for this
 * process (or isolate) and says so, because every token it issues stops working when the process restarts
 * and is refused by every other instance.
 *
 * @param warn Where the warning goes (one JSON log line).
 * @param holder What the random key belongs to, in the warning's words: `process` (Node) or `isolate` (edge).
 * @returns The configuration with `settings.sessionTokenKey` set, and that key.
 */
export function withSessionKey(config: Config, warn: (line: string) => void, holder = 'process'): { config: Config; key: Uint8Array } {
  const configured = config.settings.sessionTokenKey;
  if (configured) return { config, key: configured };
  const key = crypto.getRandomValues(new Uint8Array(32));
  warn(
    JSON.stringify({
      time: new Date().toISOString(),
      level: 'warn',
      message:
        `SESSION_TOKEN_KEY is not set: STS session tokens and listing tokens are sealed with a random per-${holder} ` +
        `key, so they stop working when this ${holder} restarts and are not accepted by other instances. Set ` +
        'SESSION_TOKEN_KEY to the base64 of 32 random bytes (openssl rand -base64 32).',
    }),
  );
  return { config: { ...config, settings: { ...config.settings, sessionTokenKey: key } }, key };
}
