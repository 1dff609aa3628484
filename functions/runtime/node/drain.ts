import type http from 'node:http';

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
