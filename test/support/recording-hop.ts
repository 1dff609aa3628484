import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A transparent HTTP hop in front of a real backend that records the request heads passing through. It
 * changes nothing (the Host header included, so signatures still verify): it only lets a suite see what
 * the gateway sent where the backend would not show it, e.g. preconditions RGW ignores, and how much of
 * each answer the gateway read.
 */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The backend's body bytes the hop has passed back so far. */
  readonly responseBytes: () => number;
  /** How the answer ended: sent whole, or cut (the gateway gave up the connection before its end). */
  readonly answered: Promise<'whole' | 'cut'>;
}

export interface RecordingHop {
  readonly endpoint: string;
  readonly requests: RecordedRequest[];
  /** Where requests go from now on, for a hop started before its target (until then they get 502). */
  relayTo(target: string): void;
  stop(): Promise<void>;
}

export async function startRecordingHop(target?: string): Promise<RecordingHop> {
  let upstream = target === undefined ? undefined : new URL(target);
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    let bytes = 0;
    const answered = new Promise<'whole' | 'cut'>((resolve) => {
      res.once('finish', () => resolve('whole'));
      res.once('close', () => resolve('cut'));
    });
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, responseBytes: () => bytes, answered });
    if (upstream === undefined) {
      res.writeHead(502).end();
      return;
    }
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('data', (chunk: Buffer) => (bytes += chunk.length));
        answer.pipe(res);
        res.once('close', () => answer.destroy());
      },
    );
    forward.on('error', () => res.destroy());
    req.on('aborted', () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    relayTo: (next) => {
      upstream = new URL(next);
    },
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
