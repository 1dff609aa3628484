import { CompleteMultipartUploadCommand, CreateMultipartUploadCommand, UploadPartCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { startS3rver, type S3rver } from '../../scripts/s3rver';
import { jsClient } from '../support/clients';
import { MULTIPART_ACTIONS, bucketToml, credentialToml, everywhere, s3Options } from '../support/config-toml';
import { RUNTIME_LIMITS, startGateway, type RunningGateway } from '../support/gateway';
import { S3RVER_KEYS, peakRssGrowth, streamPut } from '../support/large-bodies';
import { ADMIN } from './fixtures';

/**
 * What is specific to the edge worker, under miniflare (workerd): bodies stream through the isolate in both
 * directions with the worker's memory flat (RSS of the runner and its workerd), and UploadPart streams, so
 * parts up to the platform's request limit work instead of being buffered against the 128 MB isolate limit.
 */
const MiB = 1024 * 1024;
const RSS_BUDGET = 64 * MiB;
const GET_SIZE = 150 * 1000 * 1000;
/** The largest part that passes Cloudflare's smallest request limit (100 MB), headers included. */
const LARGEST_PART = (RUNTIME_LIMITS.edge.platformMaxRequestBodyBytes ?? 0) - 1000 * 1000;

let backend: S3rver;
let gw: RunningGateway;
let admin: S3Client;

function pattern(size: number): Generator<Buffer> {
  const block = Buffer.alloc(MiB);
  for (let i = 0; i < MiB; i++) block[i] = (i * 31) & 0xff;
  return (function* () {
    for (let sent = 0; sent < size; sent += MiB) yield sent + MiB <= size ? block : block.subarray(0, size - sent);
  })();
}

function sha256Of(size: number): string {
  const hash = createHash('sha256');
  for (const piece of pattern(size)) hash.update(piece);
  return hash.digest('hex');
}

function putDirect(key: string, size: number): Promise<void> {
  return streamPut(`${backend.endpoint}/edge/${key}`, S3RVER_KEYS, size, pattern(size));
}

/** sha256 of an object as the backend holds it. */
async function backendSha(key: string): Promise<string> {
  const res = await fetch(`${backend.endpoint}/edge/${key}`);
  const hash = createHash('sha256');
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
  return hash.digest('hex');
}

beforeAll(async () => {
  backend = await startS3rver({ buckets: ['edge'] });
  await putDirect('150mb.bin', GET_SIZE);
  gw = await startGateway('edge', {
    config: [
      bucketToml({ name: 'edge', backend_type: 's3', anonymous_access: true }, s3Options(backend.endpoint, 'edge', S3RVER_KEYS)),
      credentialToml(ADMIN, {}, [
        everywhere(['get_object', 'head_object', 'put_object', 'list_bucket', ...MULTIPART_ACTIONS]),
      ]),
    ].join('\n'),
  });
  admin = jsClient(gw.endpoint, ADMIN);
}, 180_000);

afterAll(async () => {
  admin?.destroy();
  await gw?.stop();
  await backend?.stop();
});

describe('the edge worker under miniflare', () => {
  it('streams a 150 MB GET with the worker’s RSS growth under 64 MB, byte for byte', async () => {
    const hash = createHash('sha256');
    let received = 0;
    const growth = await peakRssGrowth(gw, 
      () =>
        new Promise<void>((resolve, reject) => {
          http.get(`${gw.endpoint}/edge/150mb.bin`, (res) => {
            expect(res.statusCode).toBe(200);
            expect(res.headers['content-length']).toBe(String(GET_SIZE));
            res.on('data', (chunk: Buffer) => {
              received += chunk.length;
              hash.update(chunk);
            });
            res.on('end', resolve);
            res.on('error', reject);
          }).on('error', reject);
        }),
    );
    expect(received).toBe(GET_SIZE);
    expect(hash.digest('hex')).toBe(sha256Of(GET_SIZE));
    expect(growth).toBeLessThan(RSS_BUDGET);
  }, 300_000);

  it('uploads 64 MiB in 16 MiB parts (lib-storage) with RSS growth under 64 MB', async () => {
    const size = 64 * MiB;
    const growth = await peakRssGrowth(gw, async () => {
      await new Upload({ client: admin, params: { Bucket: 'edge', Key: 'multipart-64mib.bin', Body: Readable.from(pattern(size)) }, partSize: 16 * MiB, queueSize: 1 }).done();
    });
    expect(await backendSha('multipart-64mib.bin')).toBe(sha256Of(size));
    expect(growth).toBeLessThan(RSS_BUDGET);
  }, 300_000);

  it(`streams a ${Math.round(LARGEST_PART / 1e6)} MB part, just under the platform's 100 MB request limit, with RSS growth under 64 MB`, async () => {
    const { UploadId } = await admin.send(new CreateMultipartUploadCommand({ Bucket: 'edge', Key: 'largest-part.bin' }));
    const parts: Array<{ PartNumber: number; ETag?: string }> = [];
    const growth = await peakRssGrowth(gw, async () => {
      const part = await admin.send(
        new UploadPartCommand({ Bucket: 'edge', Key: 'largest-part.bin', UploadId, PartNumber: 1, Body: Readable.from(pattern(LARGEST_PART)), ContentLength: LARGEST_PART }),
      );
      parts.push({ PartNumber: 1, ETag: part.ETag });
    });
    await admin.send(new CompleteMultipartUploadCommand({ Bucket: 'edge', Key: 'largest-part.bin', UploadId, MultipartUpload: { Parts: parts } }));
    expect(await backendSha('largest-part.bin')).toBe(sha256Of(LARGEST_PART));
    expect(growth).toBeLessThan(RSS_BUDGET);
  }, 300_000);
});
