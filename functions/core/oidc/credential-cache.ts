/**
 * Cached temporary backend credentials (decisions: keyed by role and subject, renewed 60 s before expiry, one
 * exchange in flight per key). Pure logic over an injected clock and exchange function.
 */
import type { StaticKeys } from '../config/types';

/** Credentials from a token service, with their expiry in milliseconds since the epoch. */
export interface TemporaryCredentials extends StaticKeys {
  readonly sessionToken: string;
  readonly expiresAt: number;
}

export interface CredentialCacheOptions {
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /**
   * A renewal starts this long before expiry, in the background: the current credential keeps serving
   * until the new one arrives. @default 60_000
   */
  readonly refreshAheadMs?: number;
  /**
   * A credential with less than this left is never handed out, so it cannot expire while a request signed
   * with it is on its way; callers wait for the renewal instead. @default 15_000
   */
  readonly minRemainingMs?: number;
  /**
   * After a failed background renewal, the next one starts no sooner than this (the current credential
   * still serves meanwhile), so a failing token service is not asked again on every request. @default 5_000
   */
  readonly retryAfterMs?: number;
}

interface Entry {
  credentials?: TemporaryCredentials;
  inFlight?: Promise<TemporaryCredentials>;
  /** No background renewal before this time (set after one failed). */
  retryAt: number;
}

/**
 * One entry per key. `get` returns the cached credential while it has more than `minRemainingMs` left,
 * starting a background renewal once it is within `refreshAheadMs` of expiry; otherwise every caller waits
 * for the one exchange in flight. A failed exchange leaves the entry as it was: its error goes to the
 * callers that waited for it, and the next call tries again.
 */
export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly refreshAheadMs: number;
  private readonly minRemainingMs: number;
  private readonly retryAfterMs: number;

  constructor(options: CredentialCacheOptions) {
    this.now = options.now;
    this.refreshAheadMs = options.refreshAheadMs ?? 60_000;
    this.minRemainingMs = options.minRemainingMs ?? 15_000;
    this.retryAfterMs = options.retryAfterMs ?? 5_000;
  }

  /**
   * Credentials for `key`, exchanging with `exchange` when there are none worth handing out.
   *
   * @example
   * const creds = await cache.get('role|subject', () => exchangeAtTokenService());
   */
  get(key: string, exchange: () => Promise<TemporaryCredentials>): Promise<TemporaryCredentials> {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { retryAt: 0 };
      this.entries.set(key, entry);
    }
    const now = this.now();
    const current = entry.credentials;
    if (current !== undefined && now < current.expiresAt - this.minRemainingMs) {
      if (now >= current.expiresAt - this.refreshAheadMs && entry.inFlight === undefined && now >= entry.retryAt) {
        const renewing = entry;
        // The exchange reports its own failure (logging); here it only delays the next attempt.
        this.start(renewing, exchange).catch(() => {
          renewing.retryAt = this.now() + this.retryAfterMs;
        });
      }
      return Promise.resolve(current);
    }
    return entry.inFlight ?? this.start(entry, exchange);
  }

  /** Whether `key` has an exchange in flight (for tests and diagnostics). */
  pending(key: string): boolean {
    return this.entries.get(key)?.inFlight !== undefined;
  }

  private start(entry: Entry, exchange: () => Promise<TemporaryCredentials>): Promise<TemporaryCredentials> {
    // Callbacks of `then` always run later, so `inFlight` is recorded before it can settle, even when
    // `exchange` throws synchronously: a settled exchange never stays behind as the one in flight.
    const inFlight = Promise.resolve()
      .then(exchange)
      .then(
        (credentials) => {
          entry.credentials = credentials;
          entry.retryAt = 0;
          entry.inFlight = undefined;
          return credentials;
        },
        (err: unknown) => {
          entry.inFlight = undefined;
          throw err;
        },
      );
    entry.inFlight = inFlight;
    return inFlight;
  }
}
