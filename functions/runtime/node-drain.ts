import type http from 'node:http';
import { ConfigError } from '../core/config/parse';

/**
 * How long the Node server lets requests in flight finish once SIGTERM arrived: 25 s unless
 * GATEWAY_DRAIN_TIMEOUT_MS says otherwise. Below the 30 s that Kubernetes (terminationGracePeriodSeconds) and
 * ECS (stopTimeout) wait by default before SIGKILL, so the server ends its connections and exits 0 on its own.
 */
export const DEFAULT_DRAIN_TIMEOUT_MS = 25_000;

/** An hour: a grace period is minutes at most, and timers above 2^31-1 ms fire at once. */
export const MAX_DRAIN_TIMEOUT_MS = 3_600_000;

/** GATEWAY_DRAIN_TIMEOUT_MS, checked at start-up: a typo must not surface only at the next deployment. */
export function drainTimeoutMs(env: NodeJS.ProcessEnv): number {
  const raw = env.GATEWAY_DRAIN_TIMEOUT_MS;
  if (raw === undefined || raw === '') return DEFAULT_DRAIN_TIMEOUT_MS;
  const ms = Number(raw);
  if (!/^\d+$/.test(raw) || ms > MAX_DRAIN_TIMEOUT_MS) {
    throw new ConfigError([`GATEWAY_DRAIN_TIMEOUT_MS must be a whole number of milliseconds from 0 to ${MAX_DRAIN_TIMEOUT_MS} (got "${raw}")`]);
  }
  return ms;
}

/** What the server adapter reads per response: whether to send it with `Connection: close`. */
export interface DrainState {
  readonly draining: boolean;
}

export interface DrainOutcome {
  /** Connections still open when the grace period ran out (or a second signal came), ended unfinished. */
  readonly cut: number;
}

/**
 * A server's graceful shutdown. `start` stops accepting connections and closes the idle ones. The adapter
 * does the rest through `draining`: responses not yet begun go out with `Connection: close` (Node then ends
 * the connection after them), and a connection whose response had begun with keep-alive is closed once that
 * response is complete. (Node's own close() does neither.) `start` resolves once no connection is left, or
 * when the grace period runs out: the remaining connections are then ended unfinished and counted.
 */
export class ServerDrain implements DrainState {
  draining = false;
  private outcome?: Promise<DrainOutcome>;
  private cutNow?: () => void;

  /** Begins draining `server` (the one created with this state); a drain already begun is returned again. */
  start(server: http.Server, timeoutMs: number): Promise<DrainOutcome> {
    if (this.outcome) return this.outcome;
    this.draining = true;
    this.outcome = new Promise((resolve) => {
      let cut = 0;
      const timer = setTimeout(() => this.cut(), timeoutMs);
      this.cutNow = () => {
        clearTimeout(timer);
        server.getConnections((_err, count) => {
          cut = count;
          server.closeAllConnections();
        });
      };
      // Since Node 19 close() also ends the idle keep-alive connections (closeIdleConnections).
      server.close(() => {
        clearTimeout(timer);
        resolve({ cut });
      });
    });
    return this.outcome;
  }

  /** Ends every remaining connection now (a second SIGTERM or SIGINT while draining). */
  cut(): void {
    this.cutNow?.();
  }
}
