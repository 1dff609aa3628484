import { randomBytes } from 'node:crypto';
import type { Config } from '../core/config/types';

/**
 * The key that seals STS session tokens. SESSION_TOKEN_KEY (base64 of 32 bytes) is read with the rest of the
 * configuration; without it a Node runtime makes a random key for this process and says so, because every
 * token it issues stops working when the process restarts and is refused by every other instance.
 *
 * @param warn Where the warning goes (one JSON log line).
 * @returns The configuration with `settings.sessionTokenKey` set, and that key.
 */
export function withSessionKey(config: Config, warn: (line: string) => void): { config: Config; key: Uint8Array } {
  const configured = config.settings.sessionTokenKey;
  if (configured) return { config, key: configured };
  const key = new Uint8Array(randomBytes(32));
  warn(
    JSON.stringify({
      time: new Date().toISOString(),
      level: 'warn',
      message:
        'SESSION_TOKEN_KEY is not set: STS session tokens are sealed with a random per-process key, so they stop ' +
        'working when this process restarts and are not accepted by other instances. Set SESSION_TOKEN_KEY to ' +
        'the base64 of 32 random bytes (openssl rand -base64 32).',
    }),
  );
  return { config: { ...config, settings: { ...config.settings, sessionTokenKey: key } }, key };
}
