import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { Crc32, Crc32c, Crc64Nvme, Md5, Sha1, base64Digest, checksumAlgorithmOf, createDigest, streamDigest, useNativeCrc32, useNativeHash, type Digest, type HashAlgorithm } from '../../functions/core/checksums';
import { Sha256, toBase64 } from '../../functions/core/bytes';

const CHECK = new TextEncoder().encode('123456789');
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** Feeds `data` in pieces of the given sizes, cycling, to exercise every buffering path. */
function digestInPieces(d: Digest, data: Uint8Array, sizes: readonly number[]): Uint8Array {
  let offset = 0;
  for (let i = 0; offset < data.length; i++) {
    const size = sizes[i % sizes.length];
    d.update(data.subarray(offset, offset + size));
    offset += size;
  }
  return d.digest();
}

describe('CRCs: the published check values of "123456789"', () => {
  it('CRC32 is 0xCBF43926', () => {
    const c = new Crc32();
    c.update(CHECK);
    expect(c.value()).toBe(0xcbf43926);
    expect(hex(c.digest())).toBe('cbf43926');
  });

  it('CRC32C is 0xE3069283', () => {
    const c = new Crc32c();
    c.update(CHECK);
    expect(c.value()).toBe(0xe3069283);
  });

  it('CRC64NVME is 0xAE8B14860A799888', () => {
    const c = new Crc64Nvme();
    c.update(CHECK);
    expect(hex(c.digest())).toBe('ae8b14860a799888');
  });

  it('the empty input has the CRC of nothing (0 for CRC32 and CRC32C)', () => {
    expect(new Crc32().value()).toBe(0);
    expect(new Crc32c().value()).toBe(0);
    expect(hex(new Crc64Nvme().digest())).toBe('0000000000000000');
  });
});

describe('CRCs as S3 writes them in x-amz-checksum-*', () => {
  it('CRC32 of "hello world" is DUoRhQ== (the aws-chunked example in the SigV4 documentation)', () => {
    expect(base64Digest('crc32', new TextEncoder().encode('hello world'))).toBe('DUoRhQ==');
  });

  it('CRC32 agrees with zlib on random data fed in odd pieces (slice-by-8 and the byte tail)', () => {
    const data = randomBytes(100_003);
    const zlib = require('node:zlib') as { crc32?: (d: Uint8Array) => number };
    const whole = new Crc32();
    whole.update(data);
    const pieces = digestInPieces(new Crc32(), data, [1, 7, 8, 9, 4096, 13]);
    expect(hex(pieces)).toBe(hex(whole.digest()));
    if (zlib.crc32) expect(whole.value()).toBe(zlib.crc32(data));
  });

  it('CRC32C and CRC64NVME give the same result in pieces as in one call', () => {
    const data = randomBytes(50_001);
    for (const alg of ['crc32c', 'crc64nvme'] as const) {
      const whole = createDigest(alg);
      whole.update(data);
      expect(hex(digestInPieces(createDigest(alg), data, [3, 8, 1000, 1]))).toBe(hex(whole.digest()));
    }
  });
});

describe('CRC32 from a native implementation (what the Node runtimes plug in)', () => {
  afterEach(() => useNativeCrc32(undefined));

  it('GIVEN zlib.crc32 THEN a digest fed in pieces goes through it and matches the tables', () => {
    const data = randomBytes(100_003);
    const tables = new Crc32();
    tables.update(data);
    const seen: number[] = [];
    useNativeCrc32((piece, value) => {
      seen.push(piece.length);
      return crc32(piece, value);
    });
    expect(hex(digestInPieces(new Crc32(), data, [1, 7, 4096, 13]))).toBe(hex(tables.digest()));
    expect(seen.slice(0, 4)).toEqual([1, 7, 4096, 13]);
    expect(base64Digest('crc32', new TextEncoder().encode('hello world'))).toBe('DUoRhQ==');
  });

  it('GIVEN the implementation changes mid-digest THEN the digest finishes with the one it began with', () => {
    const begun = new Crc32();
    begun.update(CHECK.subarray(0, 4));
    useNativeCrc32(() => 0);
    begun.update(CHECK.subarray(4));
    expect(begun.value()).toBe(0xcbf43926);
  });
});

describe('SHA-256, SHA-1 and MD5 of streamed bodies from a native implementation (what the runtimes plug in)', () => {
  afterEach(() => useNativeHash(undefined));

  /** node:crypto as the platform's hash, recording which algorithms were asked for. */
  function nativeRecording(asked: HashAlgorithm[]): void {
    useNativeHash((algorithm) => {
      asked.push(algorithm);
      const hash = createHash(algorithm);
      return { update: (data) => void hash.update(data), digest: () => hash.digest() };
    });
  }

  /** A stream digest of `data` in two pieces, base64. */
  async function streamed(algorithm: 'sha256' | 'sha1' | 'md5' | 'crc32', data: Uint8Array): Promise<string> {
    const digest = streamDigest(algorithm);
    digest.update(data.subarray(0, 1000));
    digest.update(data.subarray(1000));
    return toBase64(await digest.digest());
  }

  it('GIVEN a native hash THEN streamed bodies hand it SHA-256, SHA-1 and MD5, with the same digests as TypeScript', async () => {
    const data = randomBytes(70_001);
    const typescript = (['sha256', 'sha1', 'md5'] as const).map((algorithm) => base64Digest(algorithm, data));
    const asked: HashAlgorithm[] = [];
    nativeRecording(asked);
    expect(await Promise.all((['sha256', 'sha1', 'md5'] as const).map((algorithm) => streamed(algorithm, data)))).toEqual(typescript);
    expect(asked).toEqual(['sha256', 'sha1', 'md5']);
  });

  it('GIVEN a native hash THEN the CRCs, and the synchronous digests of collected bodies, stay with TypeScript', async () => {
    const asked: HashAlgorithm[] = [];
    nativeRecording(asked);
    expect(await streamed('crc32', new TextEncoder().encode('hello world'))).toBe('DUoRhQ==');
    for (const algorithm of ['crc32', 'crc32c', 'crc64nvme', 'sha256', 'sha1', 'md5'] as const) base64Digest(algorithm, CHECK);
    expect(createDigest('sha256')).toBeInstanceOf(Sha256);
    expect(asked).toEqual([]);
  });

  it('GIVEN none THEN TypeScript hashes streamed bodies too', () => {
    const asked: HashAlgorithm[] = [];
    nativeRecording(asked);
    useNativeHash(undefined);
    expect(streamDigest('sha256')).toBeInstanceOf(Sha256);
    expect(asked).toEqual([]);
  });
});

describe('incremental SHA-256, SHA-1 and MD5 match node:crypto', () => {
  const cases: Array<[string, () => Digest]> = [
    ['sha256', () => new Sha256()],
    ['sha1', () => new Sha1()],
    ['md5', () => new Md5()],
  ];

  it.each(cases)('%s of the empty string, "abc" and lengths around the padding boundary', (name, make) => {
    for (const length of [0, 3, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000]) {
      const data = randomBytes(length);
      const d = make();
      d.update(data);
      expect(hex(d.digest())).toBe(createHash(name).update(data).digest('hex'));
    }
  });

  it.each(cases)('%s of 1 MB fed in uneven pieces', (name, make) => {
    const data = randomBytes(1_000_000);
    expect(hex(digestInPieces(make(), data, [1, 63, 64, 65, 100_000, 7]))).toBe(createHash(name).update(data).digest('hex'));
  });
});

describe('checksum header names and base64', () => {
  it('names the algorithm of each x-amz-checksum-* header, case-insensitively', () => {
    expect(checksumAlgorithmOf('x-amz-checksum-crc32')).toBe('crc32');
    expect(checksumAlgorithmOf('X-Amz-Checksum-CRC64NVME')).toBe('crc64nvme');
    expect(checksumAlgorithmOf('x-amz-checksum-algorithm')).toBeUndefined();
    expect(checksumAlgorithmOf('x-amz-checksum-md5')).toBeUndefined();
  });

  it('base64 matches Buffer', () => {
    const data = randomBytes(33);
    expect(toBase64(data)).toBe(data.toString('base64'));
    expect(toBase64(new Uint8Array())).toBe('');
  });
});
