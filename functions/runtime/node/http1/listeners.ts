import type { EventEmitter } from 'node:events';
import type net from 'node:net';

/** Any listener, as EventEmitter takes it. */
type Listener = Parameters<EventEmitter['on']>[1];

/** Adds `listeners` to `socket`; returns what removes exactly them (Node's own listeners stay). */
export function listen(socket: net.Socket, listeners: ReadonlyArray<readonly [string, Listener]>): () => void {
  for (const [event, listener] of listeners) socket.on(event, listener);
  return () => {
    for (const [event, listener] of listeners) socket.off(event, listener);
  };
}
