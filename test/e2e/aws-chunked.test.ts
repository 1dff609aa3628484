import { HeadObjectCommand, PutObjectCommand, type ChecksumAlgorithm, type S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { buildChunkedUpload, sendUpload, type ChunkedPayload, type TrailerChecksum } from '../support/aws-chunked';
import { boto3, jsClient } from '../support/clients';
import { RUNTIMES, startGateway, type RunningGateway } from '../support/gateway';
import { seededRandom } from '../support/random';
import { errorCode } from '../support/raw-request';
import { ADMIN, gatewayEnv, putDirect, readText, startBackends, type Backends } from './fixtures';
import { exists, readBytes, versionsOf, writeConfig } from './write-fixtures';

/**
 * aws-chunked uploads: what current SDKs send by default, the signed forms, and every way one can be
 * wrong. RGW rejects trailer uploads and s3rver would store the framing, so a byte-identical read from the
 * backend itself proves the gateway decoded. After each refusal RGW holds no object, or on the versioned
 * bucket no new version (s3rver writes into the object's file as bytes arrive, so it cannot show that).
 */
let backends: Backends;

const TARGETS = [
  { bucket: 'strict', backendBucket: 'data', backend: 'rgw' },
  { bucket: 'private', backendBucket: 'private', backend: 's3rver' },
] as const;
const PAYLOADS: readonly ChunkedPayload[] = ['STREAMING-AWS4-HMAC-SHA256-PAYLOAD', 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER', 'STREAMING-UNSIGNED-PAYLOAD-TRAILER'];
const hasTrailer = (p: ChunkedPayload): boolean => p !== 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
const direct = (backend: 'rgw' | 's3rver'): S3Client => backends.direct[backend];

beforeAll(async () => {
  backends = await startBackends();
}, 120_000);

afterAll(() => backends?.stop());

describe.each(RUNTIMES)('aws-chunked uploads (%s runtime)', (runtime) => {
  let gw: RunningGateway;
  let admin: S3Client;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: writeConfig(backends), env: gatewayEnv(backends) });
    admin = jsClient(gw.endpoint, ADMIN);
  }, 60_000);

  afterAll(async () => {
    admin?.destroy();
    await gw?.stop();
  });

  describe('what the SDKs send by default', () => {
    it('JS SDK PutObject with a stream body (STREAMING-UNSIGNED-PAYLOAD-TRAILER, CRC32) is stored byte-identical', async () => {
      const data = randomBytes(1024 * 1024 + 17);
      for (const t of TARGETS) {
        const key = `js-stream/${runtime}.bin`;
        const pieces = [data.subarray(0, 100_000), data.subarray(100_000, 700_001), data.subarray(700_001)];
        await admin.send(new PutObjectCommand({ Bucket: t.bucket, Key: key, Body: Readable.from(pieces), ContentLength: data.length }));
        expect((await readBytes(direct(t.backend), t.backendBucket, key)).equals(data)).toBe(true);
        expect((await readBytes(admin, t.bucket, key)).equals(data)).toBe(true);
      }
    });

    it.each(['CRC32C', 'SHA1', 'SHA256'] as ChecksumAlgorithm[])('JS SDK with ChecksumAlgorithm %s in the trailer', async (algorithm) => {
      const data = randomBytes(300_000);
      const key = `js-stream/${runtime}-${algorithm}.bin`;
      await admin.send(new PutObjectCommand({ Bucket: 'strict', Key: key, Body: Readable.from([data]), ContentLength: data.length, ChecksumAlgorithm: algorithm }));
      expect((await readBytes(direct('rgw'), 'data', key)).equals(data)).toBe(true);
    });

    it('boto3 (new) put_object with a file-like body over plain HTTP (checksum header, signed SHA-256)', async () => {
      const out = await boto3('boto3-new', gw.endpoint, ADMIN, `
import io
s3.put_object(Bucket='private', Key='boto-stream/${runtime}.bin', Body=io.BytesIO(b'x' * 100000))
result = len(s3.get_object(Bucket='private', Key='boto-stream/${runtime}.bin')['Body'].read())`);
      expect(out).toBe(100000);
    });
  });

  describe.each(PAYLOADS)('%s', (payload) => {
    it.each([false, true])('decodes a multi-chunk body on both backends (transfer-encoding chunked: %s)', async (te) => {
      const data = randomBytes(200_000);
      for (const t of TARGETS) {
        const key = `signed/${runtime}/${payload}-${te}.bin`;
        const upload = await buildChunkedUpload(gw.endpoint, ADMIN, {
          target: `/${t.bucket}/${key}`,
          payload,
          data,
          checksum: hasTrailer(payload) ? { algorithm: 'crc32' } : undefined,
          transferEncodingChunked: te,
          headers: { 'x-amz-meta-origin': 'hand-built', 'content-type': 'application/x-test' },
        });
        const res = await sendUpload(gw.endpoint, upload);
        expect(res.status).toBe(200);
        expect((await readBytes(direct(t.backend), t.backendBucket, key)).equals(data)).toBe(true);
        const head = await admin.send(new HeadObjectCommand({ Bucket: t.bucket, Key: key }));
        expect(head.Metadata).toEqual({ origin: 'hand-built' });
        expect(head.ContentType).toBe('application/x-test');
        expect(head.ContentEncoding ?? '').not.toContain('aws-chunked');
      }
    });

    it('an empty body', async () => {
      const key = `signed/${runtime}/${payload}-empty.bin`;
      const upload = await buildChunkedUpload(gw.endpoint, ADMIN, {
        target: `/strict/${key}`,
        payload,
        data: Buffer.alloc(0),
        checksum: hasTrailer(payload) ? { algorithm: 'crc32' } : undefined,
      });
      expect((await sendUpload(gw.endpoint, upload)).status).toBe(200);
      expect((await readBytes(direct('rgw'), 'data', key)).length).toBe(0);
    });

    it('If-None-Match: * on an existing key and a stale If-Match are signed and answered 412 by RGW', async () => {
      const key = `conditional/${runtime}/${payload}.txt`;
      await putDirect(direct('rgw'), 'data', key, 'original');
      for (const condition of [{ 'if-none-match': '*' }, { 'if-match': '"00000000000000000000000000000000"' }] as Array<Record<string, string>>) {
        const upload = await buildChunkedUpload(gw.endpoint, ADMIN, {
          target: `/strict/${key}`,
          payload,
          data: Buffer.from('replacement'),
          checksum: hasTrailer(payload) ? { algorithm: 'crc32' } : undefined,
          headers: condition,
        });
        const res = await sendUpload(gw.endpoint, upload);
        expect(res.status).toBe(412);
        expect(errorCode(res.body)).toBe('PreconditionFailed');
      }
      expect(await readText(direct('rgw'), 'data', key)).toBe('original');
    });
  });

  it.each(['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'] as TrailerChecksum[])('a signed trailer carrying %s is verified', async (algorithm) => {
    const data = randomBytes(150_000);
    const key = `trailers/${runtime}/${algorithm}.bin`;
    const upload = await buildChunkedUpload(gw.endpoint, ADMIN, { target: `/strict/${key}`, payload: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER', data, checksum: { algorithm } });
    expect((await sendUpload(gw.endpoint, upload)).status).toBe(200);
    expect((await readBytes(direct('rgw'), 'data', key)).equals(data)).toBe(true);
  });

  it('keeps Content-Encoding other than aws-chunked', async () => {
    const key = `encoding/${runtime}.gz`;
    const upload = await buildChunkedUpload(gw.endpoint, ADMIN, {
      target: `/strict/${key}`,
      payload: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      data: Buffer.from('not really gzip'),
      checksum: { algorithm: 'crc32' },
      headers: { 'content-encoding': 'aws-chunked,gzip' },
    });
    expect((await sendUpload(gw.endpoint, upload)).status).toBe(200);
    const head = await direct('rgw').send(new HeadObjectCommand({ Bucket: 'data', Key: key }));
    expect(head.ContentEncoding).toBe('gzip');
  });

  describe('refusals leave nothing behind', () => {
    const data = randomBytes(200_000);
    let serial = 0;

    /** Sends a spoiled upload to a new key on both backends and to an existing key on the versioned bucket. */
    async function refused(
      payload: ChunkedPayload,
      spoil: (body: Buffer) => Buffer,
      options: { checksum?: string; te?: boolean } = {},
    ): Promise<Array<{ status: number; code: string | undefined }>> {
      const results: Array<{ status: number; code: string | undefined }> = [];
      const send = async (bucket: string, key: string): Promise<void> => {
        const upload = await buildChunkedUpload(gw.endpoint, ADMIN, {
          target: `/${bucket}/${key}`,
          payload,
          data,
          checksum: hasTrailer(payload) ? { algorithm: 'crc32', value: options.checksum } : undefined,
          transferEncodingChunked: options.te,
        });
        const res = await sendUpload(gw.endpoint, upload, spoil(upload.body));
        results.push({ status: res.status, code: errorCode(res.body) });
      };
      for (const t of TARGETS) {
        const key = `refused/${runtime}/${t.backend}-${++serial}.bin`;
        await send(t.bucket, key);
        expect(await exists(direct(t.backend), t.backendBucket, key)).toBe(false);
      }
      const key = `refused/${runtime}/versioned-${payload}.txt`;
      await putDirect(direct('rgw'), 'versioned', key, 'kept');
      const before = await versionsOf(direct('rgw'), 'versioned', key);
      await send('versioned', key);
      expect(await versionsOf(direct('rgw'), 'versioned', key)).toEqual(before);
      expect(await readText(direct('rgw'), 'versioned', key)).toBe('kept');
      return results;
    }

    /** Flips one hex digit of the second chunk's signature. */
    const tamperSecondChunkSignature = (body: Buffer): Buffer => {
      const text = body.toString('latin1');
      const at = text.indexOf('chunk-signature=', text.indexOf('chunk-signature=') + 1) + 'chunk-signature='.length;
      const copy = Buffer.from(body);
      copy[at] = copy[at] === 0x30 ? 0x31 : 0x30;
      return copy;
    };

    it.each(['STREAMING-AWS4-HMAC-SHA256-PAYLOAD', 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER'] as const)(
      'a tampered chunk signature (%s) is 403 SignatureDoesNotMatch',
      async (payload) => {
        for (const r of await refused(payload, tamperSecondChunkSignature)) expect(r).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
      },
    );

    it('a tampered data byte in a signed chunk is 403 SignatureDoesNotMatch', async () => {
      const flipByte = (body: Buffer): Buffer => {
        const copy = Buffer.from(body);
        copy[body.indexOf('\r\n') + 100] ^= 1;
        return copy;
      };
      for (const r of await refused('STREAMING-AWS4-HMAC-SHA256-PAYLOAD', flipByte)) expect(r).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    });

    it.each(['STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER', 'STREAMING-UNSIGNED-PAYLOAD-TRAILER'] as const)(
      'a wrong trailing CRC32 (%s) is 400 BadDigest',
      async (payload) => {
        for (const r of await refused(payload, (b) => b, { checksum: 'AAAAAA==' })) expect(r).toEqual({ status: 400, code: 'BadDigest' });
      },
    );

    it.each(PAYLOADS)('a body cut off before its final chunk (%s) is 400 IncompleteBody', async (payload) => {
      const cut = (body: Buffer): Buffer => body.subarray(0, 70_000);
      for (const r of await refused(payload, cut, { te: true })) expect(r).toEqual({ status: 400, code: 'IncompleteBody' });
    });

    it('a refusal mid-body keeps the connection: the next request on it is answered', async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let round = 0; round < 3; round++) {
          const upload = await buildChunkedUpload(gw.endpoint, ADMIN, { target: '/strict/refused/next.bin', payload: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD', data });
          const refusal = await sendUpload(gw.endpoint, upload, tamperSecondChunkSignature(upload.body), agent);
          expect(refusal.status).toBe(403);
          const next = await buildChunkedUpload(gw.endpoint, ADMIN, { target: `/strict/refused/${runtime}-after.bin`, payload: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD', data });
          expect(await sendUpload(gw.endpoint, next, next.body, agent)).toMatchObject({ status: 200, reusedSocket: true });
        }
      } finally {
        agent.destroy();
      }
    });

    /**
     * One random change to a valid body: a flipped bit, a byte or a line break inserted or removed, a cut, a
     * line repeated, a chunk size changed.
     */
    function mutation(random: () => number, body: Buffer): { readonly body: Buffer; readonly what: string } {
      const at = Math.floor(random() * body.length);
      const text = body.toString('latin1');
      const splice = (cut: number, insert: string): Buffer => Buffer.concat([body.subarray(0, at), Buffer.from(insert, 'latin1'), body.subarray(at + cut)]);
      switch (Math.floor(random() * 6)) {
        case 0: {
          const copy = Buffer.from(body);
          copy[at] ^= 1 << Math.floor(random() * 8);
          return { body: copy, what: `bit flipped at ${at}` };
        }
        case 1:
          return { body: splice(0, ['\r\n', ';', '0', '\n', 'x-amz-checksum-crc32:AAAAAA==\r\n'][Math.floor(random() * 5)]), what: `inserted at ${at}` };
        case 2:
          return { body: splice(1 + Math.floor(random() * 4), ''), what: `bytes removed at ${at}` };
        case 3:
          return { body: body.subarray(0, at), what: `cut at ${at}` };
        case 4: {
          const lines = text.split('\r\n');
          const i = Math.floor(random() * lines.length);
          lines.splice(i, 0, lines[i]);
          return { body: Buffer.from(lines.join('\r\n'), 'latin1'), what: `line ${i} repeated` };
        }
        default: {
          const sizes = [...text.matchAll(/(?:^|\r\n)([0-9a-f]+)(?=;|\r\n)/g)];
          const size = sizes[Math.floor(random() * sizes.length)];
          const start = (size.index ?? 0) + size[0].length - size[1].length;
          const changed = [1, -1, 0x7fffffff][Math.floor(random() * 3)] + parseInt(size[1], 16);
          return { body: Buffer.from(text.slice(0, start) + Math.max(0, changed).toString(16) + text.slice(start + size[1].length), 'latin1'), what: `chunk size ${size[1]} changed` };
        }
      }
    }

    it('any one change to a signed or trailed body is refused with an S3 error and nothing written, or stored byte for byte', async () => {
      const random = seededRandom(RUNTIMES.indexOf(runtime) + 1);
      const sizes = [0, 100, 8192, 70_000];
      const faults: string[] = [];
      for (let i = 0; i < 100; i++) {
        const payload = PAYLOADS[i % PAYLOADS.length];
        const body = data.subarray(0, sizes[Math.floor(random() * sizes.length)]);
        const key = `mutated/${runtime}-${i}.bin`;
        const checksum = hasTrailer(payload) ? { algorithm: (['crc32', 'crc32c', 'sha256'] as const)[i % 3] } : undefined;
        // Sent with Transfer-Encoding: chunked, as the JS SDK sends it: the signed head (which would
        // state a Content-Length) stays valid whatever the change does to the body's length.
        const upload = await buildChunkedUpload(gw.endpoint, ADMIN, { target: `/strict/${key}`, payload, data: body, chunkSize: 8192, checksum, transferEncodingChunked: true });
        const changed = mutation(random, upload.body);
        const res = await sendUpload(gw.endpoint, upload, changed.body);
        const stored = (await exists(direct('rgw'), 'data', key)) ? await readBytes(direct('rgw'), 'data', key) : undefined;
        const refusedCleanly = res.status >= 400 && res.status < 500 && errorCode(res.body) !== undefined && stored === undefined;
        const storedWhole = res.status === 200 && stored?.equals(body) === true;
        if (!refusedCleanly && !storedWhole) faults.push(`${payload}, ${body.length} bytes, ${changed.what}: ${res.status} ${errorCode(res.body) ?? ''}, stored ${stored?.length ?? 'nothing'}`);
      }
      expect(faults).toEqual([]);
    }, 120_000);
  });
});
