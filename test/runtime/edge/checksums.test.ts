import { createHash, randomBytes } from 'node:crypto';
import { edgeHash } from '../../../functions/runtime/edge/checksums';

/**
 * A stand-in for workerd's `crypto.DigestStream` over node:crypto (Node has none): a WritableStream that
 * hashes what it is given and settles `digest` once closed. The real one is exercised by the edge runtime's
 * end-to-end specs (a 384 MiB PUT with a signed SHA-256, mismatched hashes refused).
 */
class StandInDigestStream extends WritableStream<Uint8Array> {
  static names: string[] = [];
  readonly digest: Promise<ArrayBuffer>;

  constructor(algorithm: string) {
    const hash = createHash(algorithm.replace('-', '').toLowerCase());
    let settle: (digest: ArrayBuffer) => void = () => undefined;
    super({
      write: async (chunk) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        hash.update(chunk);
      },
      close: () => settle(new Uint8Array(hash.digest()).buffer),
    });
    StandInDigestStream.names.push(algorithm);
    this.digest = new Promise((resolve) => (settle = resolve));
  }
}

describe('edgeHash: workerd DigestStream as the gateway\'s native hash', () => {
  beforeEach(() => (StandInDigestStream.names = []));

  it('GIVEN no DigestStream (Node, a browser) THEN there is none, and TypeScript hashes', () => {
    expect(edgeHash({})).toBeUndefined();
  });

  it.each([
    ['sha256', 'SHA-256'],
    ['sha1', 'SHA-1'],
    ['md5', 'MD5'],
  ] as const)('GIVEN DigestStream THEN %s is asked for by its Web Crypto name (%s) and digests what was written', async (algorithm, name) => {
    const hash = edgeHash({ DigestStream: StandInDigestStream });
    const data = randomBytes(10_000);
    const digest = hash!(algorithm);
    digest.update(data.subarray(0, 3000));
    digest.update(data.subarray(3000));
    expect(Buffer.from(await digest.digest()).toString('hex')).toBe(createHash(algorithm).update(data).digest('hex'));
    expect(StandInDigestStream.names).toEqual([name]);
  });

  it('GIVEN a piece changed after it was handed over (its buffer reused downstream) THEN the digest is of the bytes as handed over', async () => {
    const hash = edgeHash({ DigestStream: StandInDigestStream });
    const piece = Buffer.from('the bytes the client sent');
    const expected = createHash('sha256').update(piece).digest('hex');
    const digest = hash!('sha256');
    digest.update(piece);
    piece.fill(0);
    expect(Buffer.from(await digest.digest()).toString('hex')).toBe(expected);
  });
});
