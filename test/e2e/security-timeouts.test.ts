import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import net from 'node:net';
import { RUNTIME_LIMITS, RUNTIMES, startGateway, type RunningGateway } from '../support/gateway';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../support/rgw';
import { ADMIN, ADMIN_CREDENTIALS, codeOf, putDirect } from './fixtures';

/**
 * Every request body the gateway reads follows one idle timeout (GATEWAY_IDLE_TIMEOUT_MS, shortened here),
 * the bodies it collects whole (DeleteObjects, STS forms) as much as the uploads it streams
 * (stalled-upload.test.ts): a client that stops sending mid-body is answered once the body has been idle
 * that long, with S3's 400 RequestTimeout (the STS error shape for an STS form) and the connection closed,
 * where it used to hold the connection for the server's 300 s request timeout. On Lambda the platform hands
 * the function the body whole, so the platform answers a stalled one (RUNTIME_LIMITS.stalledBodyStatus); the
 * local Function URL does so after the same idle time instead of Node's request timeout. A body that keeps
 * arriving, however slowly in all, is read to its end.
 */
const IDLE_MS = 1500;
/** Time allowed beyond the idle timeout for the answer to arrive on a loaded machine. */
const SLACK_MS = 3000;

let rgw: Rgw;
let direct: S3Client;

beforeAll(async () => {
  rgw = await startRgw();
  await createBucket(rgw, 'data');
  direct = rgwS3Client(rgw);
}, 120_000);

afterAll(async () => {
  direct?.destroy();
  await rgw?.stop();
});

function config(): string {
  return `
[[buckets]]
name = "files"
backend_type = "s3"
[buckets.backend_options]
endpoint = "${rgw.endpoint}"
bucket_name = "data"
region = "us-east-1"
access_key_id = "${rgw.accessKeyId}"
secret_access_key = "${rgw.secretAccessKey}"

${ADMIN_CREDENTIALS}`;
}

interface Answer {
  /** Everything the gateway sent back. */
  readonly text: string;
  /** From the last byte the client sent to the end of the answer. */
  readonly afterLastByteMs: number;
  /** Whether the gateway closed the connection after answering. */
  readonly closed: boolean;
}

/**
 * Sends a request head and its body in `pieces` (each after `gapMs`) on a raw socket, then nothing more,
 * and resolves once the answer is complete (its declared length read) or 15 s have passed.
 */
function send(endpoint: string, head: string, pieces: readonly Buffer[], gapMs = 0): Promise<Answer> {
  const { port } = new URL(endpoint);
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    let lastSent = Date.now();
    let answered: number | undefined;
    let closed = false;
    const socket = net.connect(Number(port), '127.0.0.1', async () => {
      socket.write(head);
      for (const piece of pieces) {
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        if (socket.destroyed) return;
        socket.write(piece);
        lastSent = Date.now();
      }
    });
    const done = (): void => {
      clearTimeout(deadline);
      resolve({ text: received.toString('latin1'), afterLastByteMs: (answered ?? Date.now()) - lastSent, closed });
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (answered === undefined && isComplete(received)) {
        answered = Date.now();
        // A gateway that closes does so right after the answer; give it a moment, then stop waiting.
        setTimeout(() => {
          socket.destroy();
          done();
        }, 300);
      }
    });
    socket.on('end', () => (closed = true));
    socket.on('close', () => {
      closed = true;
      if (answered === undefined) done();
    });
    socket.on('error', () => undefined);
    const deadline = setTimeout(() => socket.destroy(), 15_000);
  });
}

/** Whether `bytes` hold a whole HTTP response (head and its Content-Length of body). */
function isComplete(bytes: Buffer): boolean {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(bytes.subarray(0, end).toString('latin1'));
  return bytes.length - (end + 4) >= Number(length?.[1] ?? 0);
}

/** A request head signed by ADMIN (the body unsigned), as it goes on the wire. */
async function signedHead(endpoint: string, method: string, target: string, headers: Record<string, string>): Promise<string> {
  const { signRequest } = await import('../../functions/core/sigv4');
  const signed = await signRequest({
    method,
    url: `${endpoint}${target}`,
    headers,
    payloadHash: 'UNSIGNED-PAYLOAD',
    credentials: ADMIN,
    region: 'us-east-1',
    service: 's3',
    now: Date.now(),
  });
  return `${method} ${target} HTTP/1.1\r\n${Object.entries(signed).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
}

function deleteBody(keys: readonly string[]): Buffer {
  return Buffer.from(`<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${keys.map((k) => `<Object><Key>${k}</Key></Object>`).join('')}</Delete>`);
}

async function deleteHead(endpoint: string, body: Buffer): Promise<string> {
  return signedHead(endpoint, 'POST', '/files?delete', {
    'content-length': String(body.length),
    'content-type': 'application/xml',
    'content-md5': createHash('md5').update(body).digest('base64'),
  });
}

const exists = async (key: string): Promise<boolean> => (await codeOf(direct.send(new HeadObjectCommand({ Bucket: 'data', Key: key })))) === undefined;

describe.each(RUNTIMES)('stalled request bodies on the %s runtime', (runtime) => {
  const { stalledBodyStatus } = RUNTIME_LIMITS[runtime];
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config(), env: { GATEWAY_IDLE_TIMEOUT_MS: String(IDLE_MS) } });
  }, 60_000);

  afterAll(() => gw?.stop());

  /** The answer arrived once the body had been idle for the timeout, not before and not much after. */
  function expectAnsweredAtIdleTimeout(answer: Answer): void {
    expect(answer.afterLastByteMs).toBeGreaterThanOrEqual(IDLE_MS - 100);
    expect(answer.afterLastByteMs).toBeLessThan(IDLE_MS + SLACK_MS);
    expect(answer.closed).toBe(true);
  }

  it('a DeleteObjects body that stops mid-way is answered at the idle timeout, and nothing is deleted', async () => {
    await putDirect(direct, 'data', 'kept/a.txt', 'a');
    const body = deleteBody(['kept/a.txt']);
    const answer = await send(gw.endpoint, await deleteHead(gw.endpoint, body), [body.subarray(0, 40)]);
    expectAnsweredAtIdleTimeout(answer);
    if (stalledBodyStatus === undefined) {
      expect(answer.text).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer.text).toContain('<Code>RequestTimeout</Code>');
      expect(answer.text).toContain('<Message>Your socket connection to the server was not read from or written to within the timeout period.</Message>');
    } else {
      expect(answer.text).toMatch(new RegExp(`^HTTP/1\\.1 ${stalledBodyStatus} `));
    }
    expect(await exists('kept/a.txt')).toBe(true);
  }, 30_000);

  it('an STS form that stops mid-way is answered at the idle timeout, in the STS error shape', async () => {
    const form = Buffer.from('Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A000000000000%3Arole%2Fci');
    const head = `POST / HTTP/1.1\r\nhost: ${new URL(gw.endpoint).host}\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: ${form.length}\r\n\r\n`;
    const answer = await send(gw.endpoint, head, [form.subarray(0, 20)]);
    expectAnsweredAtIdleTimeout(answer);
    if (stalledBodyStatus === undefined) {
      expect(answer.text).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer.text).toContain('<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>RequestTimeout</Code>');
    } else {
      expect(answer.text).toMatch(new RegExp(`^HTTP/1\\.1 ${stalledBodyStatus} `));
    }
  }, 30_000);

  it('a DeleteObjects body that keeps arriving, longer in all than the idle timeout, is read to its end', async () => {
    await putDirect(direct, 'data', 'slow/b.txt', 'b');
    const body = deleteBody(['slow/b.txt']);
    const pieces = [0, 1, 2, 3, 4, 5].map((i) => body.subarray(Math.floor((i * body.length) / 6), Math.floor(((i + 1) * body.length) / 6)));
    // Six pieces 600 ms apart: 3.6 s in all, never idle for the 1.5 s timeout.
    const answer = await send(gw.endpoint, await deleteHead(gw.endpoint, body), pieces, 600);
    expect(answer.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.text).toContain('<Deleted><Key>slow/b.txt</Key></Deleted>');
    expect(await exists('slow/b.txt')).toBe(false);
  }, 30_000);
});
