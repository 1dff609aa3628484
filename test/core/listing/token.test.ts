import { ListTokens, type ListHint } from '../../../functions/core/listing/token';

/** The gateway's listing positions: the last name shown and a store's marker, sealed whole and bound to their listing. */

const KEY = new Uint8Array(32).fill(1);
const LISTING = { prefix: 'data/' };
const hint: ListHint = { bucket: 'priv', range: 'data/', token: 'tenant-a/data/a.txt' };
const INCORRECT = { code: 'InvalidArgument', message: 'The continuation token provided is incorrect' };

/** The token with one byte of its sealed bytes changed. */
function flipped(token: string, at: number): string {
  const bytes = Buffer.from(token, 'base64url');
  bytes[at] ^= 0x01;
  return bytes.toString('base64url');
}

describe('ListTokens', () => {
  it('GIVEN a token it issued WHEN read back under the same key, by this or another instance THEN it is the same position', async () => {
    const token = await new ListTokens(KEY).encode(LISTING, { after: 'data/a.txt', hint });
    expect(await new ListTokens(KEY).decode(LISTING, token)).toEqual({ after: 'data/a.txt', hint });
    const bare = await new ListTokens(KEY).encode(LISTING, { after: 'data/a.txt' });
    expect(await new ListTokens(KEY).decode(LISTING, bare)).toEqual({ after: 'data/a.txt' });
    const none = await new ListTokens(KEY).encode(LISTING, { hint: { bucket: 'priv', range: 'data/' } });
    expect(await new ListTokens(KEY).decode(LISTING, none)).toEqual({ hint: { bucket: 'priv', range: 'data/' } });
  });

  it('GIVEN a token WHEN decoded as a client could (base64url, as text) THEN neither the name shown nor the store marker shows', async () => {
    const token = await new ListTokens(KEY).encode(LISTING, { after: 'data/a.txt', hint });
    const text = Buffer.from(token, 'base64url').toString('latin1');
    expect(text).not.toContain('data/a.txt');
    expect(text).not.toContain('tenant-a');
  });

  it('GIVEN the same position WHEN sealed twice THEN the tokens differ (a fresh nonce each time)', async () => {
    const tokens = new ListTokens(KEY);
    expect(await tokens.encode(LISTING, { after: 'x' })).not.toEqual(await tokens.encode(LISTING, { after: 'x' }));
  });

  it.each(['', 'a', 'ab'])('GIVEN the shortest positions (after %j) WHEN read back as a token or a tagged V1 marker THEN the same position', async (after) => {
    const tokens = new ListTokens(KEY);
    const token = await tokens.encode(LISTING, { after });
    expect(await tokens.decode(LISTING, token)).toEqual({ after });
    expect(await tokens.marker(LISTING, `gw1.${token}`)).toEqual({ after });
  });

  it('GIVEN a token for a name WHEN measured THEN it stays compact: the name and 28 bytes of nonce and tag, in base64url', async () => {
    const token = await new ListTokens(KEY).encode(LISTING, { after: 'data/a.txt' });
    // ["data/a.txt"] is 14 bytes; with the 12-byte nonce and the 16-byte tag, 42 bytes are 56 characters.
    expect(token).toHaveLength(56);
  });

  it('GIVEN a token forged in the old plain form WHEN used THEN it is InvalidArgument, never a position', async () => {
    const forged = Buffer.from(JSON.stringify({ p: 'data/', d: '', a: 'data/zzz' })).toString('base64url');
    await expect(new ListTokens(KEY).decode(LISTING, forged)).rejects.toMatchObject(INCORRECT);
  });

  it('GIVEN a token it issued WHEN any one byte is flipped THEN it is InvalidArgument', async () => {
    const tokens = new ListTokens(KEY);
    const token = await tokens.encode(LISTING, { after: 'data/a.txt', hint });
    const length = Buffer.from(token, 'base64url').length;
    for (let at = 0; at < length; at++) await expect(tokens.decode(LISTING, flipped(token, at))).rejects.toMatchObject(INCORRECT);
  });

  it('GIVEN a token it issued WHEN cut short THEN it is InvalidArgument', async () => {
    const tokens = new ListTokens(KEY);
    const token = await tokens.encode(LISTING, { after: 'data/a.txt', hint });
    for (const cut of [1, 4, token.length - 10]) await expect(tokens.decode(LISTING, token.slice(0, -cut))).rejects.toMatchObject(INCORRECT);
  });

  it('GIVEN a token sealed under another deployment\'s key, or another process\'s random key, WHEN used THEN it is InvalidArgument', async () => {
    const token = await new ListTokens(KEY).encode(LISTING, { after: 'data/a.txt', hint });
    await expect(new ListTokens(new Uint8Array(32).fill(2)).decode(LISTING, token)).rejects.toMatchObject(INCORRECT);
    const random = await new ListTokens().encode(LISTING, { after: 'x' });
    await expect(new ListTokens().decode(LISTING, random)).rejects.toMatchObject(INCORRECT);
  });

  it('GIVEN a token issued for one prefix and delimiter WHEN used with another THEN it is InvalidArgument', async () => {
    const tokens = new ListTokens(KEY);
    const token = await tokens.encode(LISTING, { after: 'data/a.txt' });
    await expect(tokens.decode({ prefix: 'other/' }, token)).rejects.toMatchObject(INCORRECT);
    await expect(tokens.decode({ prefix: 'data/', delimiter: '/' }, token)).rejects.toMatchObject(INCORRECT);
    await expect(tokens.decode({ prefix: 'data' }, token)).rejects.toMatchObject(INCORRECT);
  });

  it.each([
    ['not base64url', 'a b'],
    ['too short to be sealed', Buffer.from('nope').toString('base64url')],
    ['longer than any token', 'A'.repeat(9000)],
  ])('GIVEN a token %s WHEN used THEN it is InvalidArgument', async (_what, token) => {
    await expect(new ListTokens(KEY).decode(LISTING, token)).rejects.toMatchObject(INCORRECT);
  });

  it('GIVEN V1 markers WHEN read THEN its own tagged ones are positions, altered ones refused, and any other marker a key', async () => {
    const tokens = new ListTokens(KEY);
    const token = await tokens.encode(LISTING, { after: 'data/a.txt', hint });
    expect(await tokens.marker(LISTING, `gw1.${token}`)).toEqual({ after: 'data/a.txt', hint });
    await expect(tokens.marker(LISTING, `gw1.${flipped(token, 20)}`)).rejects.toMatchObject(INCORRECT);
    await expect(tokens.marker({ prefix: 'other/' }, `gw1.${token}`)).rejects.toMatchObject(INCORRECT);
    // S3 defines a marker as a key: one without the tag, or whose tail could not be a sealed position, is one.
    expect(await tokens.marker(LISTING, 'data/a.txt')).toEqual({ after: 'data/a.txt' });
    expect(await tokens.marker(LISTING, 'gw1.not a token')).toEqual({ after: 'gw1.not a token' });
    expect(await tokens.marker(LISTING, 'gw1.backup')).toEqual({ after: 'gw1.backup' });
  });
});
