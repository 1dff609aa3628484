/**
 * A transparent loopback HTTP relay in front of a real token service, so suites can observe what the
 * gateway asks of it: every AssumeRoleWithWebIdentity passing through is recorded (with its decoded token
 * claims) and relayed unchanged. It can also hold exchanges (to observe a renewal in flight) and be stopped
 * and restarted on the same port (the token service becomes unreachable, then comes back).
 * Nothing is answered by the relay itself: this is not a mock.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RelayedExchange {
  readonly roleArn: string;
  readonly roleSessionName: string;
  readonly durationSeconds?: string;
  /** The raw token the gateway sent (tests verify it against the gateway's JWKS). */
  readonly token: string;
  /** Its payload, decoded without verification. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** The token service's answer status, once relayed. */
  status?: number;
}

export interface StsRelay {
  /** http://127.0.0.1:PORT, stable across stop() and start(). */
  readonly endpoint: string;
  readonly exchanges: RelayedExchange[];
  /** Exchanges so far for a JWT `sub`. */
  count(subject: string): number;
  /** Park exchanges until `release()`; other requests still pass. */
  hold(): void;
  release(): void;
  /** Refuse connections (the token service is unreachable) until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startStsRelay(target: string): Promise<StsRelay> {
  const upstream = new URL(target);
  const exchanges: RelayedExchange[] = [];
  let held: Array<() => void> | undefined;
  const sockets = new Set<Socket>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const form = new URLSearchParams(body.toString());
      const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
      const action = form.get('Action') ?? query.get('Action');
      let record: RelayedExchange | undefined;
      if (action === 'AssumeRoleWithWebIdentity') {
        const token = form.get('WebIdentityToken') ?? '';
        record = {
          roleArn: form.get('RoleArn') ?? '',
          roleSessionName: form.get('RoleSessionName') ?? '',
          durationSeconds: form.get('DurationSeconds') ?? undefined,
          token,
          claims: decodeClaims(token),
        };
        exchanges.push(record);
      }
      const forward = (): void => {
        const out = http.request(
          { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
          (answer) => {
            if (record) record.status = answer.statusCode;
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        out.on('error', () => res.destroy());
        out.end(body);
      };
      if (record && held) held.push(forward);
      else forward();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await listen(server, 0);
  const port = (server.address() as AddressInfo).port;

  const stop = async (): Promise<void> => {
    if (!server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  return {
    endpoint: `http://127.0.0.1:${port}`,
    exchanges,
    count: (subject) => exchanges.filter((e) => e.claims.sub === subject).length,
    hold: () => {
      held ??= [];
    },
    release: () => {
      const parked = held ?? [];
      held = undefined;
      for (const forward of parked) forward();
    },
    stop,
    start: () => listen(server, port),
    close: stop,
  };
}

function listen(server: http.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function decodeClaims(token: string): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
  } catch {
    return {};
  }
}
