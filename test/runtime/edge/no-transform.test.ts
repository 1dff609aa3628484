import { compressible, forCloudflare, withNoTransform } from '../../../functions/runtime/edge/no-transform';

describe('withNoTransform', () => {
  it('marks a response that has no Cache-Control', () => {
    expect(withNoTransform({ 'content-type': 'text/plain' })).toEqual({ 'content-type': 'text/plain', 'cache-control': 'no-transform' });
  });

  it("adds to an object's own Cache-Control, whatever its name's case", () => {
    expect(withNoTransform({ 'Cache-Control': 'max-age=60' })).toEqual({ 'cache-control': 'max-age=60, no-transform' });
  });

  it('leaves one already marked as it is', () => {
    const headers = { 'cache-control': 'public, No-Transform' };
    expect(withNoTransform(headers)).toBe(headers);
  });
});

describe('compressible: what Cloudflare compresses by default', () => {
  it('GIVEN a type on Cloudflare\'s list, with parameters or in another case THEN compressible', () => {
    for (const type of ['text/html', 'application/json', 'application/javascript', 'application/xml', 'image/svg+xml', 'application/wasm', 'font/otf', 'Application/JSON; charset=utf-8']) {
      expect([type, compressible(type, 200)]).toEqual([type, true]);
    }
  });

  it('GIVEN any text/ type THEN compressible, listed or not', () => {
    expect(compressible('text/csv', 200)).toBe(true);
  });

  it('GIVEN a type off the list, or none THEN not', () => {
    for (const type of ['application/octet-stream', 'binary/octet-stream', 'image/png', 'application/x-thing; charset=utf-8', 'application/gzip', '', undefined]) {
      expect([type, compressible(type, 200)]).toEqual([type, false]);
    }
  });

  it('GIVEN a status other than 200, 403 and 404 THEN not (Cloudflare compresses no other)', () => {
    expect([200, 403, 404].map((status) => compressible('text/plain', status))).toEqual([true, true, true]);
    expect([206, 304, 400, 500].map((status) => compressible('text/plain', status))).toEqual([false, false, false, false]);
  });
});

describe('forCloudflare: the answers the worker marks no-transform', () => {
  const text = { 'content-type': 'text/plain', 'cache-control': 'max-age=60' };
  const binary = { 'content-type': 'application/octet-stream', 'cache-control': 'max-age=60' };

  it('GIVEN a GET answer Cloudflare would compress THEN marked, added to the object\'s own Cache-Control', () => {
    expect(forCloudflare(text, 200, true, 'default')).toEqual({ ...text, 'cache-control': 'max-age=60, no-transform' });
  });

  it('GIVEN an answer without a body (HEAD, 304) THEN the Cache-Control as stored', () => {
    expect(forCloudflare(text, 200, false, 'default')).toBe(text);
    expect(forCloudflare({ ...text, 'content-encoding': 'gzip' }, 304, false, 'default')['cache-control']).toBe('max-age=60');
  });

  it('GIVEN a type Cloudflare does not compress THEN as stored', () => {
    expect(forCloudflare(binary, 200, true, 'default')).toBe(binary);
    expect(forCloudflare({ ...text, 'content-range': 'bytes 0-0/2' }, 206, true, 'default')['cache-control']).toBe('max-age=60');
  });

  it('GIVEN an encoded body of any type THEN marked: Cloudflare decodes it for a client that does not accept the encoding', () => {
    expect(forCloudflare({ ...binary, 'content-encoding': 'gzip' }, 200, true, 'default')['cache-control']).toBe('max-age=60, no-transform');
    expect(forCloudflare({ ...binary, 'content-encoding': 'identity' }, 200, true, 'default')['cache-control']).toBe('max-age=60');
  });

  it('GIVEN EDGE_ZONE_COMPRESSION disabled THEN no answer is marked for its type; an encoded one still is', () => {
    expect(forCloudflare(text, 200, true, 'disabled')).toBe(text);
    expect(forCloudflare({ ...text, 'content-encoding': 'gzip' }, 200, true, 'disabled')['cache-control']).toBe('max-age=60, no-transform');
  });
});
