import { UploadIds } from '../../../functions/core/operations/upload-id';

/** Upload ids the gateway seals for stores it carries multipart uploads out on itself (Azure). */

const KEY = new Uint8Array(32).fill(1);
const HEADERS = { 'x-ms-blob-content-type': 'text/plain', 'x-ms-meta-origin': 'cli' };

describe('UploadIds', () => {
  it('GIVEN an id sealed for a bucket and key WHEN opened for them THEN it gives back the headers and a 12-byte nonce', async () => {
    const ids = new UploadIds(KEY);
    const id = await ids.seal('azure', 'big/file.bin', HEADERS);
    expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
    const upload = await new UploadIds(KEY).open('azure', 'big/file.bin', id);
    expect(upload.key).toBe('big/file.bin');
    expect(upload.headers).toEqual(HEADERS);
    expect(upload.nonce).toHaveLength(12);
    expect(Buffer.from(id, 'base64url').toString('latin1')).not.toContain('text/plain');
  });

  it('GIVEN two uploads of one key THEN their ids and nonces differ', async () => {
    const ids = new UploadIds(KEY);
    const [a, b] = [await ids.seal('azure', 'k', {}), await ids.seal('azure', 'k', {})];
    expect(a).not.toBe(b);
    expect((await ids.open('azure', 'k', a)).nonce).not.toEqual((await ids.open('azure', 'k', b)).nonce);
  });

  it('GIVEN headers that would make an id too long to open (ten of the longest escaped tags and 2 KiB of metadata) THEN InvalidArgument, and no id', async () => {
    const tags = Array.from({ length: 10 }, (_, i) => `${'%2B'.repeat(127)}${i}=${'%2B'.repeat(256)}`).join('&');
    const sealing = new UploadIds(KEY).seal('azure', 'k', { 'x-ms-tags': tags, 'x-ms-meta-m': 'v'.repeat(2000) });
    await expect(sealing).rejects.toMatchObject({ code: 'InvalidArgument', status: 400 });
  });

  it('GIVEN no metadata THEN the id stays short', async () => {
    expect((await new UploadIds(KEY).seal('azure', 'k'.repeat(1024), {})).length).toBeLessThan(48);
  });

  it.each([
    ['another key', 'azure', 'other.bin', (id: string) => id],
    ['another bucket', 'azure-tenant', 'big/file.bin', (id: string) => id],
    ['an altered id', 'azure', 'big/file.bin', (id: string) => (id[0] === 'A' ? 'B' : 'A') + id.slice(1)],
    ['a truncated id', 'azure', 'big/file.bin', (id: string) => id.slice(0, 20)],
    ['a forged id', 'azure', 'big/file.bin', () => 'forged'],
    ['an id that is not base64url', 'azure', 'big/file.bin', () => 'a+b/c='],
  ])('GIVEN %s WHEN opened THEN 404 NoSuchUpload', async (_name, bucket, key, change) => {
    const ids = new UploadIds(KEY);
    const id = change(await ids.seal('azure', 'big/file.bin', HEADERS));
    await expect(ids.open(bucket, key, id)).rejects.toMatchObject({ code: 'NoSuchUpload', status: 404 });
  });

  it('GIVEN an id from another deployment (another SESSION_TOKEN_KEY) THEN NoSuchUpload', async () => {
    const id = await new UploadIds(new Uint8Array(32).fill(2)).seal('azure', 'k', {});
    await expect(new UploadIds(KEY).open('azure', 'k', id)).rejects.toMatchObject({ code: 'NoSuchUpload' });
  });
});
