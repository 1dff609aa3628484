import { createHash, createHmac } from 'node:crypto';
import { decodeUtf8, hmac, importHmacKey, sha256Hex, timingSafeEqual, toHex, uriEncode, Utf8ChunkDecoder, utf8Length, utf8Pieces } from '../../functions/core/bytes';
import { seededRandom } from '../support/random';

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

describe('utf8Length', () => {
  it.each(['', 'plain', 'été', '日本語', '😀 and 😀', 'a\u0080\u07ff\u0800\uffff\u{10000}\u{10ffff}'])('counts %j as its UTF-8 bytes', (text) => {
    expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
  });
});

describe('Utf8ChunkDecoder: chunks decoded as TextDecoder with { stream: true } does', () => {
  const bytes = new TextEncoder().encode('<Key>caf\u00e9 \u{1F600} a%2Fb</Key>'.repeat(3) + 'ascii tail');

  it.each([1, 2, 3, 7, 64])('GIVEN UTF-8 cut into %i-byte chunks, across characters THEN the text is the same', (size) => {
    const decoder = new Utf8ChunkDecoder();
    const reference = new TextDecoder();
    let text = '';
    let expected = '';
    for (let at = 0; at < bytes.length; at += size) {
      text += decoder.decode(bytes.subarray(at, at + size));
      expected += reference.decode(bytes.subarray(at, at + size), { stream: true });
    }
    expect(text + decoder.end()).toBe(expected + reference.decode());
    expect(text + decoder.end()).toContain('\u{1F600}');
  });

  it('GIVEN ASCII chunks, then others THEN each part reads as UTF-8', () => {
    const decoder = new Utf8ChunkDecoder();
    expect(decoder.decode(new TextEncoder().encode('plain '))).toBe('plain ');
    expect(decoder.decode(new Uint8Array([0xc3]))).toBe('');
    expect(decoder.decode(new Uint8Array([0xa9, 0x21]))).toBe('\u00e9!');
    expect(decoder.end()).toBe('');
  });

  it('GIVEN a body that ends inside a character THEN the rest is U+FFFD, as TextDecoder gives', () => {
    const decoder = new Utf8ChunkDecoder();
    expect(decoder.decode(new Uint8Array([0x61, 0xe2, 0x82]))).toBe('a');
    expect(decoder.end()).toBe('\ufffd');
  });

  it('GIVEN bytes that are not UTF-8 THEN they read as U+FFFD, never as latin1', () => {
    const decoder = new Utf8ChunkDecoder();
    expect(decoder.decode(new Uint8Array([0x41, 0xe9, 0x42])) + decoder.end()).toBe('A\ufffdB');
  });

  it('GIVEN a byte order mark THEN only the one at the very start is dropped, even when it arrives a byte at a time', () => {
    const decoder = new Utf8ChunkDecoder();
    const text = [[0xef], [0xbb], [0xbf, 0x61], [0xef, 0xbb, 0xbf]].map((b) => decoder.decode(new Uint8Array(b))).join('');
    expect(text + decoder.end()).toBe('a\ufeff');
  });

  // Bytes drawn to hit every case of the decoder: ASCII, lead bytes of every length, continuation bytes,
  // bytes no UTF-8 holds, and the mark.
  const ALPHABET = [0x61, 0x3c, 0xc2, 0xc3, 0xdf, 0xe0, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0x80, 0x9f, 0xa0, 0xbb, 0xbf, 0xc0, 0xff];

  it('GIVEN 2,000 random byte strings, valid UTF-8 or not, cut at random places THEN the text is what one streaming TextDecoder gives', () => {
    const random = seededRandom(25);
    const pick = (n: number): number => Math.floor(random() * n);
    for (let round = 0; round < 2000; round++) {
      const bytes = new Uint8Array(Array.from({ length: 1 + pick(24) }, () => ALPHABET[pick(ALPHABET.length)]));
      const decoder = new Utf8ChunkDecoder();
      const reference = new TextDecoder();
      let text = '';
      let expected = '';
      for (let at = 0; at < bytes.length; ) {
        const next = Math.min(bytes.length, at + pick(6));
        text += decoder.decode(bytes.subarray(at, next));
        expected += reference.decode(bytes.subarray(at, next), { stream: true });
        at = next;
      }
      expect([...bytes, text + decoder.end()]).toEqual([...bytes, expected + reference.decode()]);
    }
  });
});

describe('utf8Pieces: the pieces\' UTF-8 in one array', () => {
  const utf8 = (text: string): number[] => [...new TextEncoder().encode(text)];

  it.each([
    ['ASCII only', ['<a>', 'b', '</a>']],
    ['a two-byte character in the first piece', ['caf\u00e9', ' au lait', '!']],
    ['characters of every width in the last piece', ['ascii ', 'then \u00e9\u20ac\u{1F600}']],
    ['a lone surrogate (written as U+FFFD)', ['x\ud800', 'y']],
    ['empty pieces', ['', 'a', '']],
    ['no pieces', []],
  ])('GIVEN %s THEN the bytes are those of the joined text', (_, pieces) => {
    expect([...utf8Pieces(pieces)]).toEqual(utf8(pieces.join('')));
  });
});

describe('decodeUtf8', () => {
  it.each([
    ['ASCII', [0x3c, 0x61, 0x3e], '<a>'],
    ['UTF-8', [0x63, 0x61, 0x66, 0xc3, 0xa9], 'caf\u00e9'],
    ['bytes that are not UTF-8', [0x41, 0xe9, 0x42], 'A\ufffdB'],
  ])('GIVEN %s THEN it reads as TextDecoder does', (_, bytes, text) => {
    expect(decodeUtf8(new Uint8Array(bytes))).toBe(text);
  });
});
