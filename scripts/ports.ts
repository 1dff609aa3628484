import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Loopback ports for servers that must be told theirs before they start (RGW's monitor and gateway, a
 * gateway that must know its own URL, the Web Function stand-in's function). They are chosen below the
 * OS's ephemeral range: a port from that range that was free a moment ago can be taken at any time, as the
 * source port of an outgoing connection or by a `listen(0)`, before the server binds it (a gateway on such
 * a port failed in CI with EADDRINUSE). Below the range only another such choice can collide, and the
 * choice is random.
 */
const LOWEST = 20_000;

export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port;
}

/** `count` distinct ports, each free when chosen. */
export async function freePorts(count: number): Promise<number[]> {
  const end = ephemeralStart();
  const chosen = new Set<number>();
  for (let attempt = 0; chosen.size < count; attempt++) {
    if (attempt >= 200) throw new Error(`no free loopback port found between ${LOWEST} and ${end}`);
    const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    if (!chosen.has(port) && (await isFree(port).catch(() => false))) chosen.add(port);
  }
  return [...chosen];
}

/** Where the OS's ephemeral ports begin (Linux says; elsewhere the IANA range, 49152, begins above 32768). */
function ephemeralStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > LOWEST + 1000) return low;
  } catch {
    // not Linux
  }
  return 32_768;
}

/** Whether a server could listen on `port` at `host` now: false when it is in use; other failures reject. */
export function isFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(false) : reject(err)));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
