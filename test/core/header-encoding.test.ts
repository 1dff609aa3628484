import { asciiHeaderValue, asciiHeaders } from '../../functions/core/header-encoding';

/** A header value as the Node runtimes' HTTP client holds it: one character per byte received. */
const bytes = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

describe('asciiHeaders', () => {
  it('returns the same object when every value is already plain ASCII', () => {
    const headers = { 'content-type': 'text/plain', etag: '"abc"', 'x-amz-meta-tab': 'a\tb' };
    expect(asciiHeaders(headers)).toBe(headers);
  });

  it('rewrites only the values that are not plain ASCII, leaving the input untouched', () => {
    const headers = { 'content-length': '5', 'x-amz-meta-name': bytes('café') };
    const out = asciiHeaders(headers);
    expect(out).toEqual({ 'content-length': '5', 'x-amz-meta-name': '=?UTF-8?B?Y2Fmw6k=?=' });
    expect(headers['x-amz-meta-name']).toBe(bytes('café'));
  });
});

describe('asciiHeaderValue', () => {
  describe('Content-Disposition', () => {
    it('turns a raw UTF-8 filename into an ASCII fallback and an RFC 8187 filename*', () => {
      expect(asciiHeaderValue('content-disposition', bytes('attachment; filename="日本.pdf"'))).toBe(
        `attachment; filename="__.pdf"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.pdf`,
      );
    });

    it('decodes the filename* back to the name that was stored', () => {
      const value = asciiHeaderValue('Content-Disposition', bytes('inline; filename=日本 report (v2).pdf'));
      const ext = /filename\*=UTF-8''([^;]*)/.exec(value)?.[1] ?? '';
      expect(decodeURIComponent(ext)).toBe('日本 report (v2).pdf');
    });

    it('reads bytes that are not UTF-8 as ISO-8859-1', () => {
      expect(asciiHeaderValue('content-disposition', 'attachment; filename="caf\u00e9.txt"')).toBe(
        `attachment; filename="caf_.txt"; filename*=UTF-8''caf%C3%A9.txt`,
      );
    });

    it('takes text the core built (characters beyond U+00FF) as it is', () => {
      expect(asciiHeaderValue('content-disposition', 'attachment; filename="日.pdf"')).toBe(`attachment; filename="_.pdf"; filename*=UTF-8''%E6%97%A5.pdf`);
    });

    it('keeps an existing filename* and gives the plain filename an ASCII fallback only', () => {
      const value = bytes(`attachment; filename="日本.pdf"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.pdf`);
      expect(asciiHeaderValue('content-disposition', value)).toBe(`attachment; filename="__.pdf"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.pdf`);
    });

    it('percent-encodes raw bytes written inside an extended parameter', () => {
      expect(asciiHeaderValue('content-disposition', bytes(`attachment; filename*=UTF-8''日.pdf`))).toBe(`attachment; filename*=UTF-8''%E6%97%A5.pdf`);
    });

    it('escapes quotes and backslashes in the fallback, and keeps semicolons inside quotes', () => {
      expect(asciiHeaderValue('content-disposition', bytes('attachment; filename="a\\"b;日.txt"'))).toBe(
        `attachment; filename="a\\"b;_.txt"; filename*=UTF-8''a%22b%3B%E6%97%A5.txt`,
      );
    });

    it('encodes a value that is not a parameter list whole', () => {
      expect(asciiHeaderValue('content-disposition', bytes('日本'))).toBe('=?UTF-8?B?5pel5pys?=');
      expect(asciiHeaderValue('content-disposition', bytes('attachment; filename="日本'))).toMatch(/^=\?UTF-8\?B\?.+\?=$/);
    });
  });

  it('encodes any other header as one RFC 2047 encoded word, as S3 returns non-ASCII metadata', () => {
    const encoded = asciiHeaderValue('x-amz-meta-city', bytes('Torrejón de Ardoz'));
    expect(encoded).toBe('=?UTF-8?B?VG9ycmVqw7NuIGRlIEFyZG96?=');
    expect(Buffer.from(encoded.slice(10, -2), 'base64').toString('utf8')).toBe('Torrejón de Ardoz');
  });

  it('replaces control characters with spaces (RFC 9110 §5.5) and keeps HTAB', () => {
    expect(asciiHeaderValue('x-amz-meta-a', 'x\r\ny\u0000z\u007f\tw')).toBe('x  y z \tw');
  });

  it('leaves plain ASCII exactly as it was', () => {
    expect(asciiHeaderValue('content-disposition', 'attachment; filename="report.pdf"')).toBe('attachment; filename="report.pdf"');
  });
});
