import { createHash } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { startS3rver, type S3rver } from '../../scripts/s3rver';
import type { Keys } from '../support/clients';
import { bucketToml, credentialToml, s3Options } from '../support/config-toml';
import { GiB, MiB, S3RVER_KEYS, repeated, signedPutHeaders, streamPut } from '../support/large-bodies';

/**
 * The Node server's drain on SIGTERM, specified once and run wherever that server runs: started as a
 * process (drain.test.ts) and as the container image (container.test.ts). The backend is s3rver holding a
 * 1 GiB object; clients are raw sockets and node:http, so every byte and every connection is accounted for.
 */
export { GiB };
export const BIG_KEY = 'one-gib.bin';
export const DRAIN_WRITER: Keys = { accessKeyId: 'DRAINWRITER000000000', secretAccessKey: 'drain/writer/secret/00000000000000000000' };

/** A gateway being drained: where it listens, how it is told to stop, and how it ended. */
export interface DrainTarget {
  /** `http://127.0.0.1:PORT`. */
  readonly endpoint: string;
  /** What a container engine or orchestrator does to stop it: SIGTERM (SIGKILL only far later). */
  terminate(): void;
  /** The exit code once it ended. */
  readonly exited: Promise<number | null>;
  /** What it logged so far. */
  logs(): string;
  /** Ends it whatever its state (after a failed spec). */
  stop(): Promise<void>;
}

export type LaunchTarget = (config: string, env: Readonly<Record<string, string>>) => Promise<DrainTarget>;

/** s3rver with bucket `big` holding `BIG_KEY` (1 GiB), streamed in as it is streamed out. */
export async function startDrainBackend(): Promise<S3rver> {
  const backend = await startS3rver({ buckets: ['big'] });
  await streamPut(`${backend.endpoint}/big/${BIG_KEY}`, S3RVER_KEYS, GiB);
  return backend;
}

/** Anonymous reads of `big`; DRAIN_WRITER may also write to it. */
export function drainConfig(backend: S3rver): string {
  return [
    bucketToml({ name: 'big', backend_type: 's3', anonymous_access: true }, s3Options(backend.endpoint, 'big', S3RVER_KEYS)),
    credentialToml(DRAIN_WRITER, { principal_name: 'drain-writer' }, [{ bucket: 'big', actions: ['get_object', 'head_object', 'put_object'] }]),
  ].join('\n');
}

const CHUNK = Buffer.alloc(MiB, 'x');

export interface ParsedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly bodyBytes: number;
  /** The body as text, when it is small. */
  readonly body: string;
}

/**
 * One client connection read byte by byte: responses are parsed as they arrive (Content-Length bodies),
 * large bodies counted rather than kept, and the connection can stop reading (backpressure) and resume.
 */
export class RawConnection {
  readonly responses: ParsedResponse[] = [];
  /** Body bytes of the response being read. */
  received = 0;
  private head = Buffer.alloc(0);
  private current?: { status: number; headers: Record<string, string>; length: number; kept: Buffer[] };
  private waiters: Array<() => void> = [];
  readonly closed: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (data: Buffer) => this.consume(data));
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('close', () => this.wake());
    socket.on('error', () => undefined);
  }

  static open(endpoint: string): Promise<RawConnection> {
    const { hostname, port } = new URL(endpoint);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  send(method: string, target: string, headers: Readonly<Record<string, string>> = {}): void {
    const lines = [`${method} ${target} HTTP/1.1`, 'Host: gateway.test', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  }

  /** Resolves once `predicate` holds (checked on every arriving chunk); rejects if the connection closes first. */
  async until(predicate: () => boolean, what: string): Promise<void> {
    while (!predicate()) {
      if (this.socket.closed) throw new Error(`the connection closed before ${what}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private consume(data: Buffer): void {
    let rest = data;
    while (rest.length > 0) {
      if (this.current === undefined) {
        this.head = Buffer.concat([this.head, rest]);
        const end = this.head.indexOf('\r\n\r\n');
        if (end < 0) break;
        const [statusLine, ...lines] = this.head.subarray(0, end).toString('latin1').split('\r\n');
        rest = this.head.subarray(end + 4);
        this.head = Buffer.alloc(0);
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        if (headers['content-length'] === undefined) throw new Error(`a response without Content-Length: ${statusLine}`);
        this.current = { status: Number(statusLine.split(' ')[1]), headers, length: Number(headers['content-length']), kept: [] };
        this.received = 0;
      }
      const take = Math.min(rest.length, this.current.length - this.received);
      if (this.received < 64 * 1024) this.current.kept.push(rest.subarray(0, take));
      this.received += take;
      rest = rest.subarray(take);
      if (this.received === this.current.length) {
        const { status, headers, kept } = this.current;
        this.responses.push({ status, headers, bodyBytes: this.received, body: Buffer.concat(kept).toString() });
        this.current = undefined;
      }
    }
    this.wake();
  }
}

/** Whether a new connection is refused (ECONNREFUSED) at once, rather than accepted or left hanging. */
export function connectionRefused(endpoint: string): Promise<string> {
  const { hostname, port } = new URL(endpoint);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('no answer within 5 s');
    }, 5000);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(err.code ?? err.message);
    });
  });
}

async function eventually(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const DRAINING_LOGGED = /SIGTERM: draining connections/;

/**
 * The drain specifications. `launch` starts a fresh gateway per spec (each ends it); `backend` is the
 * seeded s3rver.
 */
export function describeDrain(name: string, launch: () => LaunchTarget, backend: () => S3rver): void {
  describe(`drain on SIGTERM (${name})`, () => {
    let target: DrainTarget | undefined;

    afterEach(async () => {
      await target?.stop();
      target = undefined;
    });

    async function start(env: Readonly<Record<string, string>> = {}): Promise<DrainTarget> {
      target = await launch()(drainConfig(backend()), env);
      return target;
    }

    async function terminated(gw: DrainTarget): Promise<void> {
      gw.terminate();
      await eventually(() => DRAINING_LOGGED.test(gw.logs()), 'the draining log line');
    }

    it('GIVEN a 1 GiB GET in flight WHEN SIGTERM arrives THEN new connections are refused, the GET completes, a request pipelined behind it hears "draining", and the exit code is 0', async () => {
      const gw = await start();
      const client = await RawConnection.open(gw.endpoint);
      client.send('GET', `/big/${BIG_KEY}`);
      await client.until(() => client.received >= 8 * MiB, 'the first 8 MiB');
      client.socket.pause();

      await terminated(gw);
      expect(await connectionRefused(gw.endpoint)).toBe('ECONNREFUSED');
      // Sent on the connection still open: answered once the GET is complete, as HTTP/1.1 pipelining requires.
      client.send('GET', '/.health');
      client.socket.resume();
      await client.until(() => client.responses.length === 2, 'both responses');
      await client.closed;

      const [get, health] = client.responses;
      expect({ status: get.status, bytes: get.bodyBytes }).toEqual({ status: 200, bytes: GiB });
      expect({ status: health.status, body: health.body, connection: health.headers.connection }).toEqual({
        status: 503,
        body: '{"status":"draining"}',
        connection: 'close',
      });
      expect(await gw.exited).toBe(0);
      expect(gw.logs()).toMatch(/drained: every request finished/);
    }, 120_000);

    it('GIVEN an upload in flight WHEN SIGTERM arrives THEN it is stored whole, its answer says Connection: close, and the exit code is 0', async () => {
      const gw = await start();
      const size = 32 * MiB;
      const key = `upload-${Date.now()}.bin`;
      const url = `${gw.endpoint}/big/${key}`;
      const headers = await signedPutHeaders(url, DRAIN_WRITER, size);
      const req = http.request(url, { method: 'PUT', headers, agent: new http.Agent({ keepAlive: true }) });
      const answer = new Promise<http.IncomingMessage>((resolve, reject) => req.once('response', resolve).once('error', reject));
      const write = async (megabytes: number): Promise<void> => {
        for (let i = 0; i < megabytes; i++) if (!req.write(CHUNK)) await once(req, 'drain');
      };
      // Half the body, flushed: with 16 MiB through, the gateway is reading it (no socket buffer holds that).
      await write(size / MiB / 2);
      await new Promise((resolve) => req.write('', resolve));
      await terminated(gw);
      await write(size / MiB / 2);
      req.end();
      const res = await answer;
      res.resume();
      await new Promise((resolve) => res.on('end', resolve));
      expect({ status: res.statusCode, connection: res.headers.connection }).toEqual({ status: 200, connection: 'close' });
      expect(await gw.exited).toBe(0);

      const stored = await new Promise<{ bytes: number; sha: string }>((resolve, reject) => {
        http.get(`${backend().endpoint}/big/${key}`, (r) => {
          const hash = createHash('sha256');
          let bytes = 0;
          r.on('data', (c: Buffer) => {
            bytes += c.length;
            hash.update(c);
          });
          r.on('end', () => resolve({ bytes, sha: hash.digest('hex') }));
        }).on('error', reject);
      });
      const expected = createHash('sha256');
      for (const c of repeated(size)) expected.update(c);
      expect(stored).toEqual({ bytes: size, sha: expected.digest('hex') });
    }, 120_000);

    it('GIVEN only an idle keep-alive connection WHEN SIGTERM arrives THEN that connection is closed and the exit code is 0 at once', async () => {
      const gw = await start();
      const client = await RawConnection.open(gw.endpoint);
      client.send('GET', '/.health');
      await client.until(() => client.responses.length === 1, 'the health answer');
      expect(client.responses[0]).toMatchObject({ status: 200, body: '{"status":"ok"}' });
      expect(client.responses[0].headers.connection).toBe('keep-alive');
      const started = Date.now();
      gw.terminate();
      await client.closed;
      expect(await gw.exited).toBe(0);
      expect(Date.now() - started).toBeLessThan(5000);
    }, 60_000);

    it('GIVEN a client that stops reading WHEN GATEWAY_DRAIN_TIMEOUT_MS runs out THEN its connection is cut, the cut is logged, and the exit code is still 0', async () => {
      const gw = await start({ GATEWAY_DRAIN_TIMEOUT_MS: '1500' });
      const client = await RawConnection.open(gw.endpoint);
      client.send('GET', `/big/${BIG_KEY}`);
      await client.until(() => client.received > 0, 'the first bytes');
      client.socket.pause();
      const started = Date.now();
      await terminated(gw);
      expect(await gw.exited).toBe(0);
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(1400);
      expect(took).toBeLessThan(10_000);
      expect(gw.logs()).toMatch(/"level":"warn","message":"drained: connections cut at the end of the grace period","cut":1/);
      client.socket.resume();
      await client.closed;
      expect(client.responses).toHaveLength(0);
    }, 60_000);
  });
}
