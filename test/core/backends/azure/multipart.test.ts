import { createHash } from 'node:crypto';
import { AzureMultipart, BLOCK_ID_BYTES, MAX_BLOCK_BYTES, MIN_PART_BYTES, blockId, completion, partAttempts, readBlockId } from '../../../../functions/core/backends/azure/multipart';
import { s3EtagOfAnswer } from '../../../../functions/core/backends/azure/etag';

/** Parts as Azure blocks: the block ids, what Get Block List gives back, and Complete's checks. */

const nonce = new Uint8Array(12).fill(7);
const other = new Uint8Array(12).fill(8);
const attempt = (n: number): Uint8Array => new Uint8Array(8).fill(n);
const md5 = (text: string): Buffer => createHash('md5').update(text).digest();
const hex = (text: string): string => md5(text).toString('hex');
const MiB = 1024 * 1024;

/** The blocks of one finished part: its data block (unless empty) and its marker. */
function part(n: number, body: string, size: number, tries = 1, upload = nonce): [string, number][] {
  const blocks: [string, number][] = [];
  if (size > 0) blocks.push([blockId(upload, n, attempt(tries)), size]);
  blocks.push([blockId(upload, n, attempt(tries), md5(body)), 1]);
  return blocks;
}

describe('block ids', () => {
  it('GIVEN any part THEN data and marker ids have one length (Azure requires it per blob), at most 64 bytes', () => {
    const ids = [blockId(nonce, 1, attempt(1)), blockId(nonce, 10000, attempt(9), md5('x'))];
    expect(new Set(ids.map((id) => id.length))).toEqual(new Set([52]));
    expect(BLOCK_ID_BYTES).toBeLessThanOrEqual(64);
  });

  it('GIVEN a marker id THEN it reads back as its upload, part, attempt and MD5', () => {
    expect(readBlockId(blockId(nonce, 10000, attempt(3), md5('x')))).toEqual({
      kind: 'marker', nonce, partNumber: 10000, attempt: '0303030303030303', md5: hex('x'),
    });
    expect(readBlockId(blockId(nonce, 2, attempt(3)))).toMatchObject({ kind: 'data', partNumber: 2, md5: undefined });
  });

  it.each(['', 'not base64!', Buffer.from('short').toString('base64'), Buffer.alloc(39, 0x58).toString('base64')])('GIVEN a block id not of the gateway (%j) THEN it is not read', (id) => {
    expect(readBlockId(id)).toBeUndefined();
  });
});

describe('partAttempts: parts from the uncommitted block list', () => {
  it('GIVEN parts of two uploads, a retried part, a failed attempt and an empty part THEN each finished attempt of this upload, latest last', () => {
    const failed: [string, number] = [blockId(nonce, 3, attempt(5)), 10];
    const blocks = [...part(1, 'a', 1), ...part(1, 'b', 1, 2), ...part(1, 'z', 1, 1, other), failed, ...part(2, '', 0)];
    const parts = partAttempts(blocks, nonce);
    expect([...parts.keys()]).toEqual([1, 2]);
    expect(parts.get(1)?.map((a) => [a.md5, a.size])).toEqual([[hex('a'), 1], [hex('b'), 1]]);
    expect(parts.get(2)).toEqual([{ partNumber: 2, md5: hex(''), size: 0, dataId: undefined }]);
  });

  it('GIVEN a marker whose data block is gone THEN the part is missing', () => {
    expect(partAttempts(part(1, 'a', 1).slice(1), nonce).size).toBe(0);
  });
});

describe('completion: CompleteMultipartUpload\'s checks', () => {
  const attempts = partAttempts([...part(1, 'one', 5 * MiB), ...part(2, 'two', 5 * MiB), ...part(3, 'three', 2), ...part(4, 'small', 3)], nonce);
  const ref = (n: number, body: string) => ({ partNumber: n, etag: `"${hex(body)}"` });

  it('GIVEN the parts\' ETags THEN their data blocks in order, and S3\'s ETag of the MD5s', () => {
    const done = completion([ref(1, 'one'), ref(2, 'two'), ref(3, 'three')], attempts);
    expect(done.blocks).toEqual([blockId(nonce, 1, attempt(1)), blockId(nonce, 2, attempt(1)), blockId(nonce, 3, attempt(1))]);
    const all = createHash('md5').update(Buffer.concat([md5('one'), md5('two'), md5('three')])).digest('hex');
    expect(done.etag).toBe(`"${all}-3"`);
  });

  it('GIVEN an ETag bare or in capitals THEN it matches as S3 matches it', () => {
    expect(completion([{ partNumber: 1, etag: hex('one').toUpperCase() }], attempts).blocks).toHaveLength(1);
  });

  it.each([
    ['a missing part', [ref(1, 'one'), ref(5, 'one')]],
    ['a wrong ETag', [ref(1, 'one'), ref(2, 'one')]],
    ['a missing part after a small one', [ref(4, 'small'), ref(5, 'x')]],
  ])('GIVEN %s THEN 400 InvalidPart', (_name, parts) => {
    expect(() => completion(parts, attempts)).toThrow(expect.objectContaining({ code: 'InvalidPart', status: 400 }));
  });

  it('GIVEN a part under 5 MiB before the last THEN 400 EntityTooSmall with its size; the last may be small', () => {
    expect(() => completion([ref(1, 'one'), ref(3, 'three'), ref(4, 'small')], attempts)).toThrow(
      expect.objectContaining({ code: 'EntityTooSmall', detail: expect.objectContaining({ ProposedSize: '2', MinSizeAllowed: String(MIN_PART_BYTES), PartNumber: '3' }) }),
    );
    expect(completion([ref(4, 'small')], attempts).etag).toMatch(/-1"$/);
  });

  it('GIVEN an empty part THEN it adds no block but counts in the ETag', () => {
    const done = completion([{ partNumber: 1, etag: hex('') }], partAttempts(part(1, '', 0), nonce));
    expect(done.blocks).toEqual([]);
    expect(done.etag).toMatch(/-1"$/);
  });
});

describe('s3EtagOfAnswer', () => {
  it('GIVEN a blob a multipart upload made THEN its S3 ETag, before its MD5 or Azure\'s', () => {
    expect(s3EtagOfAnswer(200, new Headers({ etag: '"0x8D"', 'content-md5': '1B2M2Y8AsgTpgAmY7PhCfg==', 'x-ms-meta-_s3etag': '"abc-2"' }))).toBe('"abc-2"');
    expect(s3EtagOfAnswer(200, new Headers({ etag: '"0x8D"' }))).toBe('"0x8D"');
  });
});

describe('AzureMultipart.uploadPart', () => {
  it('GIVEN a part over Azure\'s 4000 MiB block limit THEN 400 EntityTooLarge before anything is sent', async () => {
    const sent: string[] = [];
    const store = new AzureMultipart({
      blobUrl: (key) => `http://azure.invalid/c/${key}`,
      send: async (method, url) => {
        sent.push(`${method} ${url}`);
        return { status: 201, headers: new Headers(), body: null };
      },
      head: async () => undefined,
      objectHeaders: () => ({}),
      copySource: async () => ({ size: 0, read: async () => new ReadableStream() }),
      now: () => 0,
    });
    const upload = { key: 'k', nonce, headers: {} };
    await expect(store.uploadPart(upload, 1, new Uint8Array(0), MAX_BLOCK_BYTES + 1, {})).rejects.toMatchObject({
      code: 'EntityTooLarge',
      status: 400,
      detail: { ProposedSize: String(MAX_BLOCK_BYTES + 1), MaxSizeAllowed: String(MAX_BLOCK_BYTES) },
    });
    expect(sent).toEqual([]);
  });
});
