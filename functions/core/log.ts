/**
 * Structured events from the core (for example each token-service exchange). Adapters decide where they
 * go: the Node server writes one JSON line each. Events never carry tokens, secrets or keys.
 */
export type Log = (event: Readonly<Record<string, unknown>>) => void;

/** The default when an adapter passes none: events are dropped. */
export const silent: Log = () => undefined;
