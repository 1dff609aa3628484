import http from 'node:http';
import { startS3rver, type S3rver } from '../../scripts/s3rver';
import { bucketToml, s3Options } from '../support/config-toml';
import { ADAPTER_RUNTIMES, RUNTIME_LIMITS, startGateway, type RunningGateway } from '../support/gateway';
import { GiB, S3RVER_KEYS, streamPut } from '../support/large-bodies';
import { rawRequest } from '../support/raw-request';
import { startRecordingHop, type RecordingHop } from '../support/recording-hop';

/**
 * Bodies stream: the gateway's memory stays flat however large the object. Measured as the gateway
 * process's RSS growth while 1 GiB flows through it, never as a timing.
 */
const RSS_BUDGET = 64 * 1024 * 1024;

let backend: S3rver;
/** Between the gateway and s3rver for the bucket `big-hop`: shows how much of each answer the gateway read. */
let hop: RecordingHop;

beforeAll(async () => {
  backend = await startS3rver({ buckets: ['big'] });
  await streamPut(`${backend.endpoint}/big/one-gib.bin`, S3RVER_KEYS, GiB);
  hop = await startRecordingHop(backend.endpoint);
}, 180_000);

afterAll(async () => {
  await hop?.stop();
  await backend?.stop();
});

function config(): string {
  return [
    bucketToml({ name: 'big', backend_type: 's3', anonymous_access: true }, s3Options(backend.endpoint, 'big', S3RVER_KEYS)),
    bucketToml({ name: 'big-hop', backend_type: 's3', anonymous_access: true }, s3Options(hop.endpoint, 'big', S3RVER_KEYS)),
  ].join('\n');
}

describe.each(ADAPTER_RUNTIMES)('streaming through the %s runtime', (runtime) => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config() });
    await rawRequest(gw.endpoint, { method: 'HEAD', target: '/big/one-gib.bin' });
  }, 60_000);

  afterAll(() => gw?.stop());

  // A runtime that caps responses (a Function URL: 200 MB) streams the largest response it allows instead.
  const limit = RUNTIME_LIMITS[runtime].maxResponseBodyBytes;
  const size = Math.min(GiB, limit ?? GiB);
  const ranged = size < GiB;

  it(`streams a ${ranged ? `${size / 1024 ** 2} MiB ranged` : '1 GiB'} GET with RSS growth under 64 MB`, async () => {
    const baseline = gw.rss();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, gw.rss())), 50);
    let received = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        http.get(`${gw.endpoint}/big/one-gib.bin`, { headers: ranged ? { range: `bytes=0-${size - 1}` } : {} }, (res) => {
          expect(res.statusCode).toBe(ranged ? 206 : 200);
          res.on('data', (chunk: Buffer) => (received += chunk.length));
          res.on('end', resolve);
          res.on('error', reject);
        }).on('error', reject);
      });
    } finally {
      clearInterval(sampler);
    }
    expect(received).toBe(size);
    expect(peak - baseline).toBeLessThan(RSS_BUDGET);
  }, 300_000);

  if (limit !== undefined && limit < GiB) {
    it('cuts a longer response at the platform limit, never ending it as if complete', async () => {
      let received = 0;
      const outcome = await new Promise<string>((resolve) => {
        http
          .get(`${gw.endpoint}/big/one-gib.bin`, (res) => {
            res.on('data', (chunk: Buffer) => (received += chunk.length));
            res.on('end', () => resolve('end'));
            res.on('error', () => resolve('error'));
            res.on('aborted', () => resolve('error'));
          })
          .on('error', () => resolve('error'));
      });
      expect(outcome).toBe('error');
      expect(received).toBeLessThanOrEqual(limit);
    }, 300_000);
  }

  it('gives up a backend answer it does not send (the whole object for a part it lacks) rather than reading 1 GiB to its end', async () => {
    // s3rver ignores partNumber and answers the whole object; part 2 of an object uploaded whole is 416.
    const answer = await rawRequest(gw.endpoint, { method: 'GET', target: '/big-hop/one-gib.bin?partNumber=2' });
    expect(answer.status).toBe(416);
    const read = hop.requests.filter((r) => r.path.startsWith('/big/one-gib.bin?partNumber=2')).at(-1);
    expect(await read?.answered).toBe('cut');
    expect(read?.responseBytes()).toBeLessThan(64 * 1024 * 1024);
    // The gateway still serves, on a fresh backend connection.
    expect((await rawRequest(gw.endpoint, { method: 'HEAD', target: '/big-hop/one-gib.bin' })).status).toBe(200);
  }, 60_000);

  it('stops reading from the backend when the client goes away', async () => {
    await new Promise<void>((resolve) => {
      const req = http.get(`${gw.endpoint}/big/one-gib.bin`, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => undefined);
    });
    // The access-log line is written when the exchange ends: it appears although 1 GiB was not sent.
    const ended = async (): Promise<boolean> => /"path":"\/big\/one-gib.bin","status":200[^\n]*"error"/.test(gw.logs());
    for (let i = 0; i < 100 && !(await ended()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await ended()).toBe(true);
    const still = await rawRequest(gw.endpoint, { method: 'HEAD', target: '/big/one-gib.bin' });
    expect(still.status).toBe(200);
  }, 60_000);
});
