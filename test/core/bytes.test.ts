import { createHash, createHmac } from 'node:crypto';
import { hmac, importHmacKey, sha256Hex, timingSafeEqual, toHex, uriEncode } from '../../functions/core/bytes';

describe('uriEncode (RFC 3986, as SigV4 requires)', () => {
  it('keeps the unreserved characters and returns the same string when nothing needs encoding', () => {
    const unreserved = 'ABCXYZabcxyz0189-._~';
    expect(uriEncode(unreserved, true)).toBe(unreserved);
  });

  it('encodes every reserved and other ASCII character with upper-case hex', () => {
    expect(uriEncode(" !\"#$%&'()*+,:;<=>?@[\\]^`{|}", true)).toBe(
      '%20%21%22%23%24%25%26%27%28%29%2A%2B%2C%3A%3B%3C%3D%3E%3F%40%5B%5C%5D%5E%60%7B%7C%7D',
    );
  });

  it('keeps a slash in paths and encodes it in query components', () => {
    expect(uriEncode('a/b c', false)).toBe('a/b%20c');
    expect(uriEncode('a/b c', true)).toBe('a%2Fb%20c');
  });

  it('encodes non-ASCII text as its UTF-8 bytes, astral characters included', () => {
    expect(uriEncode('é€😀', true)).toBe('%C3%A9%E2%82%AC%F0%9F%98%80');
  });

  it('encodes a lone surrogate as U+FFFD, as TextEncoder would', () => {
    expect(uriEncode('a\uD800b', true)).toBe('a%EF%BF%BDb');
    expect(uriEncode('\uDC00', true)).toBe('%EF%BF%BD');
  });

  it('agrees with encodeURIComponent plus the RFC 3986 extras on every BMP character', () => {
    const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    for (let code = 0; code < 0x10000; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const ch = String.fromCharCode(code);
      if (uriEncode(ch, true) !== rfc3986(ch)) throw new Error(`U+${code.toString(16)} differs`);
    }
  });
});

describe('toHex', () => {
  it('writes lower-case, zero-padded hex of bytes or an ArrayBuffer', () => {
    expect(toHex(new Uint8Array([0, 1, 15, 16, 171, 255]))).toBe('00010f10abff');
    expect(toHex(new Uint8Array([1, 2]).buffer)).toBe('0102');
    expect(toHex(new Uint8Array(0))).toBe('');
  });
});

describe('sha256Hex and hmac (Web Crypto)', () => {
  it('hash text as UTF-8 and bytes as given', async () => {
    expect(await sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(await sha256Hex('héllo')).toBe(createHash('sha256').update('héllo').digest('hex'));
    const bytes = new Uint8Array([0, 255, 7]);
    expect(await sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('computes HMAC-SHA256 with a raw key or an imported one (RFC 4231 test case 2)', async () => {
    const expected = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';
    expect(toHex(await hmac('Jefe', 'what do ya want for nothing?'))).toBe(expected);
    const key = await importHmacKey(new TextEncoder().encode('Jefe'));
    expect(toHex(await hmac(key, 'what do ya want for nothing?'))).toBe(expected);
    expect(toHex(await hmac(new Uint8Array([1, 2, 3]), 'x'))).toBe(
      createHmac('sha256', Buffer.from([1, 2, 3])).update('x').digest('hex'),
    );
  });
});

describe('timingSafeEqual', () => {
  it('is true only for identical strings', () => {
    expect(timingSafeEqual('abc', 'abc')).toBe(true);
    expect(timingSafeEqual('', '')).toBe(true);
    expect(timingSafeEqual('abc', 'abd')).toBe(false);
    expect(timingSafeEqual('abc', 'ab')).toBe(false);
    expect(timingSafeEqual('xbc', 'abc')).toBe(false);
  });
});
