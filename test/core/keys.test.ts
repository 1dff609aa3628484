import { S3Error } from '../../functions/core/errors';
import { decodeListedKey, decodePathComponent, encodeKey, validateKey } from '../../functions/core/keys';
import { seededRandom } from '../support/random';

function refusal(key: string): S3Error {
  try {
    validateKey(key);
  } catch (err) {
    expect(err).toBeInstanceOf(S3Error);
    return err as S3Error;
  }
  throw new Error(`${JSON.stringify(key)} was accepted`);
}

const utf8 = (text: string): string => Buffer.from(text, 'utf8').toString('hex');

describe('validateKey: the keys the spec refuses with 400 InvalidRequest', () => {
  it.each([
    ['the empty key', ''],
    ['a lone dot', '.'],
    ['a lone dot-dot', '..'],
    ['a dot segment', 'a/./b'],
    ['a dot-dot segment', 'a/../b'],
    ['a trailing dot-dot segment', 'a/..'],
    ['a leading dot-dot segment', '../a'],
    ['a leading slash', '/a'],
    ['a trailing slash (a folder marker)', 'folder/'],
    ['an empty segment in the middle', 'a//b'],
    ['only a slash', '/'],
    ['a NUL byte', 'a\u0000b'],
    ['a newline', 'a\nb'],
    ['a carriage return', 'a\rb'],
    ['a tab', 'a\tb'],
    ['the unit separator U+001F', 'a\u001fb'],
    ['DEL U+007F', 'a\u007fb'],
  ])('refuses %s', (_, key) => {
    const err = refusal(key);
    expect(err.code).toBe('InvalidRequest');
    expect(err.status).toBe(400);
  });

  it('refuses every ASCII control character', () => {
    for (let code = 0; code <= 0x1f; code++) expect(refusal(`k${String.fromCharCode(code)}`).code).toBe('InvalidRequest');
    expect(refusal('k\u007f').code).toBe('InvalidRequest');
  });
});

describe('validateKey: S3\'s limit of 1,024 bytes', () => {
  it.each([
    ['1,025 ASCII characters', 'x'.repeat(1025), 1025],
    ['513 two-byte characters', 'é'.repeat(513), 1026],
    ['342 three-byte characters', '日'.repeat(342), 1026],
    ['257 four-byte characters (surrogate pairs)', '😀'.repeat(257), 1028],
    ['1,023 ASCII characters and one two-byte character', `${'x'.repeat(1023)}é`, 1025],
  ])('refuses %s with 400 KeyTooLongError, saying its size in bytes', (_, key, size) => {
    const err = refusal(key);
    expect(err.code).toBe('KeyTooLongError');
    expect(err.status).toBe(400);
    expect(err.detail).toEqual({ Size: String(size), MaxSizeAllowed: '1024' });
  });

  it.each([
    ['1,024 ASCII characters', 'x'.repeat(1024)],
    ['512 two-byte characters', 'é'.repeat(512)],
    ['341 three-byte characters and one ASCII', `${'日'.repeat(341)}x`],
    ['256 four-byte characters', '😀'.repeat(256)],
  ])('accepts %s: exactly 1,024 bytes', (_, key) => {
    expect(() => validateKey(key)).not.toThrow();
  });
});

describe('validateKey: every other key is accepted', () => {
  it.each([
    '*', '%', '~', '#', '?', '[', ']', '+', '=', ' ', '&', '!', "'", '(', ')', ',', ';', ':', '@', '$', '"', '<', '>', '\\', '^', '`', '{', '|', '}',
    'a b.txt', 'été/日本語/😀', '100%.txt', '100%25.txt', '...', '.hidden', 'a/.b', 'a..b/c', '..a', 'a.', 'dir/sub/file',
    'a/.../b', 'a/..b', 'a/b../c', '.../...',
    '\u0080', '\u00a0', '\u2028', 'x'.repeat(1024),
  ])('accepts %j', (key) => {
    expect(() => validateKey(key)).not.toThrow();
  });
});

describe('encodeKey: RFC 3986 percent-encoding', () => {
  it('keeps the unreserved characters as they are', () => {
    const unreserved = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';
    expect(encodeKey(unreserved)).toBe(unreserved);
  });

  it("encodes !'()* that encodeURIComponent would leave alone", () => {
    expect(encodeKey("!'()*")).toBe('%21%27%28%29%2A');
  });

  it('encodes every other ASCII character as %XX in upper case', () => {
    expect(encodeKey(' "#$%&+,:;<=>?@[\\]^`{|}')).toBe('%20%22%23%24%25%26%2B%2C%3A%3B%3C%3D%3E%3F%40%5B%5C%5D%5E%60%7B%7C%7D');
  });

  it('keeps "/" by default and encodes it when asked', () => {
    expect(encodeKey('a/b c/d')).toBe('a/b%20c/d');
    expect(encodeKey('a/b c/d', false)).toBe('a%2Fb%20c%2Fd');
    expect(encodeKey('a/b', false)).toBe('a%2Fb');
  });

  it('encodes non-ASCII text as its UTF-8 bytes', () => {
    expect(encodeKey('é€😀')).toBe('%C3%A9%E2%82%AC%F0%9F%98%80');
  });

  it('encodes a plus sign, so no backend reads it as a space', () => {
    expect(encodeKey('a+b')).toBe('a%2Bb');
  });

  it('encodes 100%.txt and 100%25.txt differently', () => {
    expect(encodeKey('100%.txt')).toBe('100%25.txt');
    expect(encodeKey('100%25.txt')).toBe('100%2525.txt');
  });

  it('agrees with the RFC 3986 encoding of every BMP character outside the surrogates', () => {
    const rfc3986 = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    for (let code = 0; code < 0x10000; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const ch = String.fromCharCode(code);
      const expected = ch === '/' ? '/' : rfc3986(ch);
      if (encodeKey(ch) !== expected) throw new Error(`U+${code.toString(16)}: ${encodeKey(ch)} instead of ${expected}`);
    }
  });
});

describe('keys survive encoding and decoding byte for byte', () => {
  it.each(['*', '%', '~', '#', '?', '[', ']', '+', '=', ' ', 'a b/c+d=e', '100%.txt', '100%25.txt', 'é/日本語/😀.txt', "it's (1)!.txt", '%2F'])(
    '%j',
    (key) => {
      const encoded = encodeKey(key);
      expect(encoded).toMatch(/^[A-Za-z0-9\-._~%/]*$/);
      expect(utf8(decodePathComponent(encoded))).toBe(utf8(key));
      expect(decodePathComponent(encodeKey(key, false))).toBe(key);
    },
  );
});

describe('decodePathComponent', () => {
  it('decodes percent escapes, including an encoded slash', () => {
    expect(decodePathComponent('a%2Fb%20c')).toBe('a/b c');
  });

  it('leaves a plus sign a plus', () => {
    expect(decodePathComponent('a+b')).toBe('a+b');
  });

  it('accepts lower-case hex', () => {
    expect(decodePathComponent('%c3%a9')).toBe('é');
  });

  it.each(['%', '%2', '%G0', 'a%zz', '%C3', '%C0%AF', '%FF', '%ED%A0%80'])('refuses %j with 400 InvalidRequest', (raw) => {
    expect(() => decodePathComponent(raw)).toThrow(S3Error);
    expect(() => decodePathComponent(raw)).toThrow(expect.objectContaining({ code: 'InvalidRequest', status: 400 }));
  });
});

describe('decodeListedKey: a name a store listed with encoding-type=url', () => {
  /** What decodeListedKey answered before its ASCII fast path: decodeURIComponent, or the name as listed. */
  function uriReading(value: string): string {
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }

  it.each([
    ['no escape', 'a/b c.txt'],
    ['encoded slashes, as RGW lists them', 'tenant%2Flist%2Fk-0001'],
    ['lower-case hex', 'a%2fb%3a'],
    ['an escaped percent sign', '100%25.txt'],
    ['an escape at either end', '%2Fa%2F'],
    ['escapes back to back', '%41%42%43'],
    ['UTF-8 escapes', 'caf%C3%A9/%F0%9F%98%80'],
    ['ASCII and UTF-8 escapes together', 'a%2Fcaf%C3%A9'],
  ])('GIVEN %s THEN it decodes as decodeURIComponent does', (_, value) => {
    expect(decodeListedKey(value)).toBe(uriReading(value));
  });

  it.each(['100%.txt', '%', 'a%2', '%G0', 'a%zz', '%C3', '%FF', '%2F%'])('GIVEN the malformed %j THEN it keeps the name as listed', (value) => {
    expect(decodeListedKey(value)).toBe(value);
  });

  it('GIVEN random names of escapes and characters THEN each decodes as decodeURIComponent does', () => {
    const parts = ['a', '/', ' ', '%', '%2F', '%2f', '%25', '%41', '%7F', '%80', '%C3%A9', '%e6%97%a5', '%G1', '%0', '+', 'é'];
    const random = seededRandom(7);
    const pick = (n: number): number => Math.floor(random() * n);
    for (let n = 0; n < 5000; n++) {
      let value = '';
      for (let i = pick(8); i >= 0; i--) value += parts[pick(parts.length)];
      expect({ value, decoded: decodeListedKey(value) }).toEqual({ value, decoded: uriReading(value) });
    }
  });
});
