import {
  MissingSignedHeaderError,
  canonicalHeaders,
  canonicalQuery,
  canonicalRequest,
} from '../../../functions/core/sigv4';
import { getCanonicalQuery } from '@smithy/signature-v4';

describe('canonicalQuery', () => {
  it('is empty for an empty query', () => {
    expect(canonicalQuery('')).toBe('');
  });

  it('sorts parameters by name, then repeated parameters by value', () => {
    expect(canonicalQuery('b=2&a=3&a=1&A=0')).toBe('A=0&a=1&a=3&b=2');
  });

  it('writes a value-less flag as `name=`, the same as an empty value', () => {
    expect(canonicalQuery('uploads')).toBe('uploads=');
    expect(canonicalQuery('uploads=')).toBe('uploads=');
    expect(canonicalQuery('versioning&prefix=x')).toBe('prefix=x&versioning=');
  });

  it('treats `+` as a literal plus, not a space', () => {
    expect(canonicalQuery('a=b+c')).toBe('a=b%2Bc');
    expect(canonicalQuery('a=b%2Bc')).toBe('a=b%2Bc');
    expect(canonicalQuery('a=b%20c')).toBe('a=b%20c');
  });

  it('splits on the first `=` only, so a value may contain `=`', () => {
    expect(canonicalQuery('a=b=c')).toBe('a=b%3Dc');
    expect(canonicalQuery('a=%3D')).toBe('a=%3D');
  });

  it('encodes a slash in values whether it was sent encoded or not', () => {
    expect(canonicalQuery('prefix=a/b')).toBe('prefix=a%2Fb');
    expect(canonicalQuery('prefix=a%2Fb')).toBe('prefix=a%2Fb');
    expect(canonicalQuery('prefix=a%2fb')).toBe('prefix=a%2Fb');
  });

  it('normalizes the encoding of unreserved characters and lower-case hex', () => {
    expect(canonicalQuery('a=%7e%41')).toBe('a=~A');
    expect(canonicalQuery('k%65y=v')).toBe('key=v');
  });

  it('re-encodes unicode as upper-case UTF-8 percent-encoding', () => {
    expect(canonicalQuery('name=%c3%a9%E2%82%AC')).toBe('name=%C3%A9%E2%82%AC');
  });

  it('sorts on encoded names, as AWS does (byte order)', () => {
    expect(canonicalQuery('%C3%A9=1&z=2&Z=3&_=4&~=5')).toBe('%C3%A9=1&Z=3&_=4&z=2&~=5');
  });

  it('keeps text that is not valid percent-encoding as written, then encodes it', () => {
    expect(canonicalQuery('a=100%zz')).toBe('a=100%25zz');
    expect(canonicalQuery('a=%C3')).toBe('a=%25C3');
  });

  it('skips empty parts', () => {
    expect(canonicalQuery('a=1&&b=2&')).toBe('a=1&b=2');
  });

  it('leaves out the omitted parameter (X-Amz-Signature of a presigned URL)', () => {
    expect(canonicalQuery('X-Amz-Signature=abc&X-Amz-Date=1', 'X-Amz-Signature')).toBe('X-Amz-Date=1');
  });

  it("matches the reference signer's canonical query for the decoded parameters", () => {
    const query = { 'list-type': '2', prefix: 'dir/sub dir/', 'start-after': 'a+b=c&d', flag: '', 'x~y': '€' };
    const raw = 'list-type=2&prefix=dir%2Fsub%20dir%2F&start-after=a%2Bb%3Dc%26d&flag&x~y=%E2%82%AC';
    const request = { method: 'GET', protocol: 'https:', hostname: 'h', path: '/', headers: {}, query };
    expect(canonicalQuery(raw)).toBe(getCanonicalQuery(request));
  });
});

describe('canonicalHeaders', () => {
  it('writes `name:value` lines in the signed order, trimmed with inner whitespace collapsed', () => {
    const headers = new Headers({ Host: 'example.com', 'X-Amz-Meta-A': '  a   b \t c  ', 'X-Amz-Date': '20130524T000000Z' });
    expect(canonicalHeaders(headers, ['host', 'x-amz-date', 'x-amz-meta-a'])).toBe(
      'host:example.com\nx-amz-date:20130524T000000Z\nx-amz-meta-a:a b c\n',
    );
  });

  it('keeps a repeated header as the one comma-joined value it arrives as', () => {
    const headers = new Headers({ host: 'h', 'x-amz-meta-list': 'a,b , c' });
    expect(canonicalHeaders(headers, ['host', 'x-amz-meta-list'])).toBe('host:h\nx-amz-meta-list:a,b , c\n');
  });

  it('accepts a record with lower-case names, ignoring inherited properties', () => {
    expect(canonicalHeaders({ host: 'h', 'content-type': ' text/plain ' }, ['content-type', 'host'])).toBe(
      'content-type:text/plain\nhost:h\n',
    );
    expect(() => canonicalHeaders({ host: 'h' }, ['constructor'])).toThrow(MissingSignedHeaderError);
  });

  it('refuses a signed header the request does not have, naming it', () => {
    expect(() => canonicalHeaders(new Headers({ host: 'h' }), ['host', 'x-amz-date'])).toThrow(
      expect.objectContaining({ header: 'x-amz-date' }),
    );
  });

  it('keeps an empty header value', () => {
    expect(canonicalHeaders(new Headers({ host: 'h', 'x-amz-meta-e': '' }), ['host', 'x-amz-meta-e'])).toBe(
      'host:h\nx-amz-meta-e:\n',
    );
  });
});

describe('canonicalRequest', () => {
  it('builds the AWS documentation example for GET /test.txt', () => {
    const request = canonicalRequest({
      method: 'GET',
      rawPath: '/test.txt',
      canonicalQuery: '',
      canonicalHeaders:
        'host:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n' +
        'x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n' +
        'x-amz-date:20130524T000000Z\n',
      signedHeaders: ['host', 'range', 'x-amz-content-sha256', 'x-amz-date'],
      payloadHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    });
    expect(request).toBe(
      'GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n' +
        'x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n' +
        'x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n' +
        'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it('uses the path exactly as sent: no normalization of `..`, `%2e%2e` or double slashes', () => {
    const request = canonicalRequest({
      method: 'GET',
      rawPath: '/b//a/../%2e%2e/%7Ek',
      canonicalQuery: '',
      canonicalHeaders: 'host:h\n',
      signedHeaders: ['host'],
      payloadHash: 'UNSIGNED-PAYLOAD',
    });
    expect(request.split('\n')[1]).toBe('/b//a/../%2e%2e/%7Ek');
  });
});
