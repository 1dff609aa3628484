import { createHash, createHmac } from 'node:crypto';
import {
  AwsChunkedDecoder,
  STREAMING_SIGNED,
  STREAMING_SIGNED_TRAILER,
  STREAMING_UNSIGNED_TRAILER,
  parseTrailerHeader,
  type AwsChunkedOptions,
  type ChunkSigningSeed,
} from '../../../../functions/core/payload/aws-chunked';
import { base64Digest } from '../../../../functions/core/checksums';
import { S3Error } from '../../../../functions/core/errors';
import { checkBytes, checkedStream } from '../../../../functions/core/payload/checked-stream';
import { importHmacKey } from '../../../../functions/core/bytes';

/**
 * The aws-chunked decoder against AWS's published example (sigv4-streaming.html) and against bodies this file
 * encodes itself with node:crypto, an implementation independent of the gateway's.
 */

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const AMZ_DATE = '20130524T000000Z';
const SCOPE = '20130524/us-east-1/s3/aws4_request';
const EMPTY = createHash('sha256').update('').digest('hex');

function rawSigningKey(): Buffer {
  const h = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();
  return h(h(h(h(`AWS4${SECRET}`, '20130524'), 'us-east-1'), 's3'), 'aws4_request');
}

async function seedFor(signature: string): Promise<ChunkSigningSeed> {
  return { signature, signingKey: await importHmacKey(rawSigningKey()), scope: SCOPE, amzDate: AMZ_DATE };
}

const hex = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');
const sign = (toSign: string): string => createHmac('sha256', rawSigningKey()).update(toSign).digest('hex');
const chunkSig = (previous: string, data: Buffer): string =>
  sign(`AWS4-HMAC-SHA256-PAYLOAD\n${AMZ_DATE}\n${SCOPE}\n${previous}\n${EMPTY}\n${hex(data)}`);

/** Encodes signed chunks up to the final chunk's header line (trailers or a CRLF follow); returns its signature too. */
function encodeSigned(seed: string, chunks: readonly Buffer[]): { body: Buffer; last: string } {
  const parts: Buffer[] = [];
  let previous = seed;
  for (const data of [...chunks, Buffer.alloc(0)]) {
    previous = chunkSig(previous, data);
    parts.push(Buffer.from(`${data.length.toString(16)};chunk-signature=${previous}\r\n`), data, Buffer.from(data.length > 0 ? '\r\n' : ''));
  }
  return { body: Buffer.concat(parts), last: previous };
}

function encodeSignedTrailer(seed: string, chunks: readonly Buffer[], trailer: string): Buffer {
  const { body, last } = encodeSigned(seed, chunks);
  const trailerSig = sign(`AWS4-HMAC-SHA256-TRAILER\n${AMZ_DATE}\n${SCOPE}\n${last}\n${hex(`${trailer}\n`)}`);
  return Buffer.concat([body, Buffer.from(`${trailer}\r\nx-amz-trailer-signature:${trailerSig}\r\n\r\n`)]);
}

function encodeUnsigned(chunks: readonly Buffer[], trailer?: string): Buffer {
  const parts = chunks.map((c) => Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]));
  parts.push(Buffer.from(`0\r\n${trailer === undefined ? '' : `${trailer}\r\n`}\r\n`));
  return Buffer.concat(parts);
}

/** Runs the decoder over `body` delivered in pieces of `pieceSize` bytes; resolves with what reached the backend. */
async function decode(options: AwsChunkedOptions, body: Buffer, pieceSize = body.length || 1): Promise<Buffer> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < body.length; i += pieceSize) controller.enqueue(new Uint8Array(body.subarray(i, i + pieceSize)));
      controller.close();
    },
  });
  const out: Buffer[] = [];
  const reader = checkedStream(source, new AwsChunkedDecoder(options)).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(out);
    out.push(Buffer.from(value));
  }
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof S3Error) return err.code;
    throw err;
  }
  return 'no error';
}

describe('AWS published example: STREAMING-AWS4-HMAC-SHA256-PAYLOAD (65536 + 1024 bytes of "a")', () => {
  const SEED = '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9';
  const CHUNK_SIGS = [
    'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648',
    '0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497',
    'b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9',
  ];
  const data = [Buffer.alloc(65536, 'a'), Buffer.alloc(1024, 'a')];
  const published = Buffer.concat([
    Buffer.from(`10000;chunk-signature=${CHUNK_SIGS[0]}\r\n`), data[0], Buffer.from('\r\n'),
    Buffer.from(`400;chunk-signature=${CHUNK_SIGS[1]}\r\n`), data[1], Buffer.from('\r\n'),
    Buffer.from(`0;chunk-signature=${CHUNK_SIGS[2]}\r\n\r\n`),
  ]);

  it('this file\'s encoder reproduces the published chunk signatures', () => {
    const { body } = encodeSigned(SEED, data);
    expect(Buffer.concat([body, Buffer.from('\r\n')]).equals(published)).toBe(true);
  });

  it('decodes to the 66560 bytes, whatever the piece size', async () => {
    const options = { payload: STREAMING_SIGNED, seed: await seedFor(SEED), decodedLength: 66560, trailers: [] } as const;
    for (const piece of [published.length, 1, 7, 8192, 65536 + 90]) {
      expect((await decode(options, published, piece)).equals(Buffer.concat(data))).toBe(true);
    }
  });

  it('refuses a tampered chunk signature, a tampered byte and a different seed with SignatureDoesNotMatch', async () => {
    const options = { payload: STREAMING_SIGNED, seed: await seedFor(SEED), decodedLength: 66560, trailers: [] } as const;
    const badSig = Buffer.from(published);
    badSig.write('f', published.indexOf(CHUNK_SIGS[1]));
    expect(await failure(decode(options, badSig))).toBe('SignatureDoesNotMatch');
    const badByte = Buffer.from(published);
    badByte[200] = 'b'.charCodeAt(0);
    expect(await failure(decode(options, badByte))).toBe('SignatureDoesNotMatch');
    const otherSeed = { ...options, seed: await seedFor(EMPTY) };
    expect(await failure(decode(otherSeed, published))).toBe('SignatureDoesNotMatch');
  });
});

describe('signed chunks with a signed trailer', () => {
  const SEED = 'a'.repeat(64);
  const data = [Buffer.from('hello '), Buffer.from('world')];
  const trailer = `x-amz-checksum-crc32:${base64Digest('crc32', Buffer.from('hello world'))}`;
  const options = async (): Promise<AwsChunkedOptions> => ({
    payload: STREAMING_SIGNED_TRAILER,
    seed: await seedFor(SEED),
    decodedLength: 11,
    trailers: ['x-amz-checksum-crc32'],
  });

  it('decodes and checks the trailer signature and the CRC32', async () => {
    expect((await decode(await options(), encodeSignedTrailer(SEED, data, trailer), 3)).toString()).toBe('hello world');
  });

  it('a wrong CRC32 that is correctly signed is BadDigest', async () => {
    const body = encodeSignedTrailer(SEED, data, 'x-amz-checksum-crc32:AAAAAA==');
    expect(await failure(decode(await options(), body))).toBe('BadDigest');
  });

  it('a tampered trailer (signature no longer matches) is SignatureDoesNotMatch', async () => {
    const body = encodeSignedTrailer(SEED, data, trailer);
    const tampered = Buffer.from(body.toString('latin1').replace(trailer, 'x-amz-checksum-crc32:AAAAAA=='), 'latin1');
    expect(await failure(decode(await options(), tampered))).toBe('SignatureDoesNotMatch');
  });

  it('a missing trailer signature is IncompleteBody', async () => {
    const { body } = encodeSigned(SEED, data);
    const noSig = Buffer.concat([body, Buffer.from(`${trailer}\r\n\r\n`)]);
    expect(await failure(decode(await options(), noSig))).toBe('IncompleteBody');
  });
});

describe('STREAMING-UNSIGNED-PAYLOAD-TRAILER', () => {
  const options: AwsChunkedOptions = { payload: STREAMING_UNSIGNED_TRAILER, decodedLength: 11, trailers: ['x-amz-checksum-crc32'] };

  it('decodes the documentation example with its CRC32 trailer', async () => {
    const body = Buffer.from('b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n');
    expect((await decode(options, body)).toString()).toBe('hello world');
    expect((await decode(options, body, 1)).toString()).toBe('hello world');
  });

  it.each([
    ['crc32c', 'x-amz-checksum-crc32c'],
    ['crc64nvme', 'x-amz-checksum-crc64nvme'],
    ['sha1', 'x-amz-checksum-sha1'],
    ['sha256', 'x-amz-checksum-sha256'],
  ] as const)('checks a %s trailer', async (algorithm, name) => {
    const data = Buffer.alloc(100_000, 'z');
    const good = encodeUnsigned([data.subarray(0, 65536), data.subarray(65536)], `${name}:${base64Digest(algorithm, data)}`);
    const opts = { payload: STREAMING_UNSIGNED_TRAILER, decodedLength: data.length, trailers: [name] } as const;
    expect((await decode(opts, good, 4096)).equals(data)).toBe(true);
    const bad = encodeUnsigned([data], `${name}:${base64Digest(algorithm, Buffer.from('other'))}`);
    expect(await failure(decode(opts, bad))).toBe('BadDigest');
  });

  it('a wrong CRC32 is BadDigest and nothing of the last chunk is passed on', async () => {
    const body = Buffer.from('b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n');
    const passed: Uint8Array[] = [];
    const decoder = new AwsChunkedDecoder(options);
    await decoder.write(body, (b) => void passed.push(b));
    expect(passed).toEqual([]);
    await expect(Promise.resolve().then(() => decoder.end((b) => void passed.push(b)))).rejects.toMatchObject({ code: 'BadDigest' });
    expect(passed).toEqual([]);
  });

  it('a body cut off before the final chunk is IncompleteBody', async () => {
    expect(await failure(decode(options, Buffer.from('b\r\nhello world\r\n')))).toBe('IncompleteBody');
    expect(await failure(decode(options, Buffer.from('b\r\nhello wo')))).toBe('IncompleteBody');
    expect(await failure(decode(options, Buffer.from('b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n')))).toBe('IncompleteBody');
  });

  it('decoding to fewer bytes than declared is IncompleteBody; more is refused at the chunk header', async () => {
    const body = Buffer.from('b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n');
    expect(await failure(decode({ ...options, decodedLength: 12 }, body))).toBe('IncompleteBody');
    expect(await failure(decode({ ...options, decodedLength: 10 }, body))).toBe('InvalidRequest');
  });

  it('refuses malformed framing, data after the end and unannounced trailers', async () => {
    expect(await failure(decode(options, Buffer.from('zz\r\nhello')))).toBe('InvalidRequest');
    expect(await failure(decode(options, Buffer.from('b\r\nhello worldXX0\r\n\r\n')))).toBe('InvalidRequest');
    expect(await failure(decode(options, Buffer.from('b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\nextra')))).toBe('InvalidRequest');
    const other = Buffer.from('b\r\nhello world\r\n0\r\nx-amz-checksum-sha1:AAAA\r\n\r\n');
    expect(await failure(decode(options, other))).toBe('InvalidRequest');
    expect(await failure(decode(options, Buffer.from('b\r\nhello world\r\n0\r\n\r\n')))).toBe('IncompleteBody');
  });

  it('decodes an empty body from a collected buffer', async () => {
    const body = Buffer.from(`0\r\nx-amz-checksum-crc32:${base64Digest('crc32', new Uint8Array())}\r\n\r\n`);
    const out = await checkBytes(body, new AwsChunkedDecoder({ ...options, decodedLength: 0 }));
    expect(out.length).toBe(0);
  });
});

describe('what the decoder is told', () => {
  it('parses x-amz-trailer and refuses trailers that are not checksums', () => {
    expect(parseTrailerHeader(null)).toEqual([]);
    expect(parseTrailerHeader('X-Amz-Checksum-CRC32')).toEqual(['x-amz-checksum-crc32']);
    expect(() => parseTrailerHeader('x-amz-meta-a')).toThrow(S3Error);
  });

  it('signed forms need the request signature as seed', () => {
    expect(() => new AwsChunkedDecoder({ payload: STREAMING_SIGNED, decodedLength: 1, trailers: [] })).toThrow(S3Error);
  });

  it('a signed chunk larger than the bound is refused before it is buffered', async () => {
    const seed = await seedFor('b'.repeat(64));
    const body = Buffer.from(`100001;chunk-signature=${'c'.repeat(64)}\r\n`);
    const options = { payload: STREAMING_SIGNED, seed, decodedLength: 0x100001, trailers: [], maxSignedChunkBytes: 0x100000 } as const;
    expect(await failure(decode(options, body))).toBe('InvalidRequest');
  });
});
