import { ListTokens, type ListHint } from '../../../functions/core/listing/token';

/** The gateway's listing positions: the last name shown in the clear, a store's marker sealed. */

const KEY = new Uint8Array(32).fill(1);
const LISTING = { prefix: 'data/' };
const hint: ListHint = { bucket: 'priv', range: 'data/', delimiter: '', after: 'data/a.txt', token: 'tenant-a/data/a.txt' };

describe('ListTokens', () => {
  it('round-trips a position: the name shown, and the hint only under the same key', async () => {
    const tokens = new ListTokens(KEY);
    const token = await tokens.encode(LISTING, { after: 'data/a.txt', hint });
    expect(await tokens.decode(LISTING, token)).toEqual({ after: 'data/a.txt', hint });
    expect(await new ListTokens(KEY).decode(LISTING, token)).toEqual({ after: 'data/a.txt', hint });
    expect(await new ListTokens(new Uint8Array(32).fill(2)).decode(LISTING, token)).toEqual({ after: 'data/a.txt' });
  });

  it('shows nothing of the store marker: the token decodes to the name shown and sealed bytes', async () => {
    const token = await new ListTokens(KEY).encode(LISTING, { after: 'data/a.txt', hint });
    const text = Buffer.from(token, 'base64url').toString('latin1');
    expect(text).toContain('data/a.txt');
    expect(text).not.toContain('tenant-a');
  });

  it('drops a hint moved to another position: it is bound to the name it was issued after', async () => {
    const tokens = new ListTokens(KEY);
    const body = JSON.parse(Buffer.from(await tokens.encode(LISTING, { after: 'data/a.txt', hint }), 'base64url').toString()) as { a: string; h: string };
    const moved = Buffer.from(JSON.stringify({ p: 'data/', d: '', a: 'data/zzz', h: body.h })).toString('base64url');
    expect(await tokens.decode(LISTING, moved)).toEqual({ after: 'data/zzz' });
  });

  it.each([
    ['not base64url', 'a b'],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['a JSON array', Buffer.from('[]').toString('base64url')],
    ['a name that is not text', Buffer.from('{"a":1}').toString('base64url')],
  ])('refuses %s as InvalidArgument', async (_what, token) => {
    await expect(new ListTokens(KEY).decode(LISTING, token)).rejects.toMatchObject({ code: 'InvalidArgument' });
  });

  it('reads a V1 marker it tagged as a position, and any other marker (tagged or not) as a key', async () => {
    const tokens = new ListTokens(KEY);
    const token = await tokens.encode(LISTING, { after: 'data/a.txt', hint });
    expect(await tokens.marker(LISTING, `gw1.${token}`)).toEqual({ after: 'data/a.txt', hint });
    expect(await tokens.marker(LISTING, 'data/a.txt')).toEqual({ after: 'data/a.txt' });
    expect(await tokens.marker(LISTING, 'gw1.not a token')).toEqual({ after: 'gw1.not a token' });
    expect(await tokens.marker({ prefix: 'other/' }, `gw1.${token}`)).toEqual({ after: `gw1.${token}` });
  });

  it('without SESSION_TOKEN_KEY seals with a key of its own, which another instance cannot open', async () => {
    const token = await new ListTokens().encode(LISTING, { after: 'x', hint: { ...hint, after: 'x' } });
    expect(await new ListTokens().decode(LISTING, token)).toEqual({ after: 'x' });
  });
});
