import { createHash } from 'node:crypto';
import { base64Digest, useNativeHash } from '../../../functions/core/checksums';
import { checkBytes, type BodyChecker } from '../../../functions/core/payload/checked-stream';
import { declaredDigests, verifyDigests, withDigests, type DeclaredDigest } from '../../../functions/core/payload/integrity';
import { PlainBodyChecker } from '../../../functions/core/payload/plain';
import { S3Error } from '../../../functions/core/errors';

const body = Buffer.from('a body of some length, sent in pieces');
const md5 = (data: Buffer): string => createHash('md5').update(data).digest('base64');

/** The refusal `run` threw, as `Code: Message`, or 'accepted'. */
function refusal(run: () => unknown): string {
  try {
    run();
    return 'accepted';
  } catch (err) {
    return err instanceof S3Error ? `${err.code}: ${err.message}` : 'not an S3Error';
  }
}

const declared = (headers: Record<string, string>, trailers: string[] = []): string => refusal(() => declaredDigests(new Headers(headers), trailers));

describe('declaredDigests: what an upload declares, read as S3 reads it before the body', () => {
  it('reads one checksum header and Content-MD5, trimmed', () => {
    const headers = new Headers({ 'x-amz-checksum-crc32': ' DUoRhQ== ', 'content-md5': md5(body), 'x-amz-sdk-checksum-algorithm': 'CRC32' });
    expect(declaredDigests(headers)).toEqual([
      { algorithm: 'crc32', value: 'DUoRhQ==' },
      { algorithm: 'md5', value: md5(body) },
    ]);
  });

  it('takes a value of each algorithm\'s digest length, and no other', () => {
    const valid: Record<string, string> = {
      crc32: base64Digest('crc32', body),
      crc32c: base64Digest('crc32c', body),
      crc64nvme: base64Digest('crc64nvme', body),
      sha1: base64Digest('sha1', body),
      sha256: base64Digest('sha256', body),
    };
    for (const [algorithm, value] of Object.entries(valid)) {
      expect(declared({ [`x-amz-checksum-${algorithm}`]: value })).toBe('accepted');
      for (const wrong of ['', '!', value.slice(1), `${value}A`, value.replace(/=/g, 'A'), value.replace(/^./, '*'), valid[algorithm === 'sha1' ? 'crc32' : 'sha1']]) {
        expect(declared({ [`x-amz-checksum-${algorithm}`]: wrong })).toBe(`InvalidRequest: Value for x-amz-checksum-${algorithm} header is invalid.`);
      }
    }
  });

  it('refuses two checksums, also one as a header and one as a trailer, whatever their values', () => {
    const multiple = 'InvalidRequest: Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.';
    expect(declared({ 'x-amz-checksum-crc32': '', 'x-amz-checksum-sha1': '' })).toBe(multiple);
    expect(declared({ 'x-amz-checksum-crc32': 'DUoRhQ==' }, ['x-amz-checksum-crc32c'])).toBe(multiple);
    expect(declared({}, ['x-amz-checksum-crc32', 'x-amz-checksum-sha256'])).toBe(multiple);
    expect(declared({}, ['x-amz-checksum-crc32'])).toBe('accepted');
  });

  it('needs x-amz-sdk-checksum-algorithm to name the checksum sent, in any case', () => {
    expect(declared({ 'x-amz-checksum-crc32': 'DUoRhQ==', 'x-amz-sdk-checksum-algorithm': 'crc32' })).toBe('accepted');
    expect(declared({ 'x-amz-sdk-checksum-algorithm': 'CRC64NVME' }, ['x-amz-checksum-crc64nvme'])).toBe('accepted');
    const invalid = 'InvalidRequest: Value for x-amz-sdk-checksum-algorithm header is invalid.';
    expect(declared({ 'x-amz-checksum-crc32': 'DUoRhQ==', 'x-amz-sdk-checksum-algorithm': 'SHA256' })).toBe(invalid);
    expect(declared({ 'x-amz-sdk-checksum-algorithm': 'MD5' }, ['x-amz-checksum-crc32'])).toBe(invalid);
    const none = 'InvalidRequest: x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.';
    expect(declared({ 'x-amz-sdk-checksum-algorithm': 'CRC32' })).toBe(none);
    expect(declared({ 'x-amz-sdk-checksum-algorithm': 'CRC32', 'content-md5': md5(body) })).toBe(none);
  });

  it('refuses a Content-MD5 that is not the base64 of 16 bytes with InvalidDigest', () => {
    const invalid = 'InvalidDigest: The Content-MD5 you specified was invalid.';
    for (const value of ['', 'abc', md5(body).slice(0, 22), createHash('md5').update(body).digest('hex'), `${md5(body).slice(0, 22)}A=`]) {
      expect(declared({ 'content-md5': value })).toBe(invalid);
    }
  });

  it('reads only Content-MD5 when the checksum headers describe something else (CompleteMultipartUpload)', () => {
    const headers = new Headers({ 'x-amz-checksum-crc32': 'not one', 'x-amz-checksum-sha1': '', 'content-md5': md5(body) });
    expect(declaredDigests(headers, [], false)).toEqual([{ algorithm: 'md5', value: md5(body) }]);
  });

  it('ignores headers that name no checksum algorithm', () => {
    expect(declaredDigests(new Headers({ 'x-amz-checksum-mode': 'ENABLED', 'x-amz-checksum-type': 'FULL_OBJECT', 'x-amz-checksum-algorithm': 'CRC32' }))).toEqual([]);
  });
});

describe('verifyDigests', () => {
  it('passes content that matches, and names the digest that does not', () => {
    expect(refusal(() => verifyDigests(body, [{ algorithm: 'sha256', value: base64Digest('sha256', body) }, { algorithm: 'md5', value: md5(body) }]))).toBe('accepted');
    expect(refusal(() => verifyDigests(body, [{ algorithm: 'md5', value: md5(Buffer.from('x')) }]))).toBe(
      'BadDigest: The Content-MD5 you specified did not match what we received.',
    );
    expect(refusal(() => verifyDigests(body, [{ algorithm: 'crc32c', value: 'AAAAAA==' }]))).toBe(
      'BadDigest: The CRC32C you specified did not match the calculated checksum.',
    );
  });
});

describe('withDigests: the declared digests over what a framing checker passes on', () => {
  /** Feeds `body` in pieces of 5; returns the bytes passed on before the end and in all, or the refusal's code. */
  async function run(digests: DeclaredDigest[], inner: BodyChecker = new PlainBodyChecker({ length: body.length })): Promise<{ before: number; after: Buffer } | string> {
    const checker = withDigests(inner, digests);
    const out: Uint8Array[] = [];
    try {
      for (let i = 0; i < body.length; i += 5) await checker.write(body.subarray(i, i + 5), (b) => void out.push(b));
      const before = out.reduce((n, b) => n + b.length, 0);
      await checker.end((b) => void out.push(b));
      return { before, after: Buffer.concat(out) };
    } catch (err) {
      return err instanceof S3Error ? err.code : 'not an S3Error';
    }
  }

  it('is the framing checker itself when nothing is declared', () => {
    const inner = new PlainBodyChecker({ length: 1 });
    expect(withDigests(inner, [])).toBe(inner);
  });

  it('passes every byte on, holding the last two pieces back (one more than the framing checker) until the digests match', async () => {
    const result = await run([{ algorithm: 'crc32', value: base64Digest('crc32', body) }, { algorithm: 'md5', value: md5(body) }]);
    expect(result).toEqual({ before: body.length - (body.length % 5 || 5) - 5, after: body });
  });

  it('a different checksum or MD5 is BadDigest, and nothing held back is passed on', async () => {
    expect(await run([{ algorithm: 'sha1', value: base64Digest('sha1', Buffer.from('x')) }])).toBe('BadDigest');
    expect(await run([{ algorithm: 'md5', value: md5(Buffer.from('x')) }])).toBe('BadDigest');
  });

  it('keeps the framing checker\'s refusals', async () => {
    expect(await run([{ algorithm: 'md5', value: md5(body) }], new PlainBodyChecker({ length: body.length, sha256: '0'.repeat(64) }))).toBe('XAmzContentSHA256Mismatch');
  });

  it('waits for a native hash whose digest settles later, as workerd\'s does', async () => {
    useNativeHash((algorithm) => {
      const hash = createHash(algorithm);
      return { update: (data) => void hash.update(data), digest: () => new Promise((resolve) => setTimeout(() => resolve(hash.digest()), 5)) };
    });
    try {
      expect(await run([{ algorithm: 'sha1', value: base64Digest('sha1', body) }, { algorithm: 'md5', value: md5(body) }])).toEqual({ before: expect.any(Number), after: body });
      expect(await run([{ algorithm: 'md5', value: md5(Buffer.from('x')) }])).toBe('BadDigest');
    } finally {
      useNativeHash(undefined);
    }
  });

  it('runs over a collected body too', async () => {
    expect(Buffer.from(await checkBytes(body, withDigests(new PlainBodyChecker({ length: body.length }), [{ algorithm: 'md5', value: md5(body) }])))).toEqual(body);
  });
});
