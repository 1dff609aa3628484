import { createHash } from 'node:crypto';
import { useNativeHash } from '../../../functions/core/checksums';
import { PlainBodyChecker, type PlainBodyOptions } from '../../../functions/core/payload/plain';
import { checkBytes, checkedStream } from '../../../functions/core/payload/checked-stream';
import { withoutAwsChunked } from '../../../functions/core/payload/upload';
import { S3Error } from '../../../functions/core/errors';

const body = Buffer.from('a body of some length, sent in pieces');
const sha = createHash('sha256').update(body).digest('hex');

/** Feeds `data` to the checker in pieces; returns what it passed on before end() and after. */
async function run(options: PlainBodyOptions, data: Buffer, piece = 5): Promise<{ before: number; after: Buffer } | string> {
  const checker = new PlainBodyChecker(options);
  const out: Uint8Array[] = [];
  try {
    for (let i = 0; i < data.length; i += piece) await checker.write(data.subarray(i, i + piece), (b) => void out.push(b));
    const before = out.reduce((n, b) => n + b.length, 0);
    await checker.end((b) => void out.push(b));
    return { before, after: Buffer.concat(out) };
  } catch (err) {
    return err instanceof S3Error ? err.code : 'not an S3Error';
  }
}

describe('PlainBodyChecker', () => {
  it('passes every byte on, holding the last piece back until the end', async () => {
    const result = await run({ length: body.length, sha256: sha }, body);
    expect(result).toEqual({ before: body.length - (body.length % 5 || 5), after: body });
  });

  it('a different SHA-256 is XAmzContentSHA256Mismatch', async () => {
    expect(await run({ length: body.length, sha256: '0'.repeat(64) }, body)).toBe('XAmzContentSHA256Mismatch');
  });

  it('fewer bytes than declared is IncompleteBody, more is refused at once', async () => {
    expect(await run({ length: body.length + 1 }, body)).toBe('IncompleteBody');
    expect(await run({ length: body.length - 1 }, body)).toBe('InvalidRequest');
  });

  it('checks the signed SHA-256 with the platform\'s native hash when one is installed', async () => {
    let hashed = 0;
    useNativeHash((algorithm) => {
      const hash = createHash(algorithm);
      return { update: (data) => void ((hashed += data.length), hash.update(data)), digest: () => hash.digest() };
    });
    try {
      expect(await run({ length: body.length, sha256: sha }, body)).toEqual({ before: expect.any(Number), after: body });
      expect(await run({ length: body.length, sha256: '0'.repeat(64) }, body)).toBe('XAmzContentSHA256Mismatch');
      expect(hashed).toBe(2 * body.length);
    } finally {
      useNativeHash(undefined);
    }
  });

  it('waits for a native hash whose digest settles later, as workerd\'s does', async () => {
    useNativeHash((algorithm) => {
      const hash = createHash(algorithm);
      return { update: (data) => void hash.update(data), digest: () => new Promise((resolve) => setTimeout(() => resolve(hash.digest()), 5)) };
    });
    try {
      expect(await run({ length: body.length, sha256: sha }, body)).toEqual({ before: expect.any(Number), after: body });
      expect(await run({ length: body.length, sha256: '0'.repeat(64) }, body)).toBe('XAmzContentSHA256Mismatch');
    } finally {
      useNativeHash(undefined);
    }
  });

  it('runs over a collected body too', async () => {
    expect(Buffer.from(await checkBytes(body, new PlainBodyChecker({ length: body.length, sha256: sha })))).toEqual(body);
  });
});

describe('checkedStream', () => {
  it('errors the stream on a refusal and keeps reading (draining) the source instead of cancelling it', async () => {
    let cancelled = false;
    let pulled = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        if (pulled > 3) controller.close();
        else controller.enqueue(new Uint8Array(10));
      },
      cancel() {
        cancelled = true;
      },
    });
    const reader = checkedStream(source, new PlainBodyChecker({ length: 5 })).getReader();
    await expect(reader.read()).rejects.toMatchObject({ code: 'InvalidRequest' });
    await new Promise((r) => setTimeout(r, 10));
    expect(pulled).toBe(4);
    expect(cancelled).toBe(false);
  });
});

describe('withoutAwsChunked', () => {
  it('removes aws-chunked from a Content-Encoding list and keeps the rest', () => {
    expect(withoutAwsChunked('aws-chunked')).toBeUndefined();
    expect(withoutAwsChunked('aws-chunked, gzip')).toBe('gzip');
    expect(withoutAwsChunked('gzip,AWS-CHUNKED,br')).toBe('gzip,br');
    expect(withoutAwsChunked(null)).toBeUndefined();
  });
});
