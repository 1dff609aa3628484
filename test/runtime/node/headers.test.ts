import { NodeHeaders } from '../../../functions/runtime/node/headers';

describe('Node header view', () => {
  it('GIVEN raw request headers THEN names are case-insensitive and repeated headers join with "," as SigV4 canonicalizes them', () => {
    const headers = NodeHeaders.fromRaw(['Host', 'gw', 'X-Amz-Meta-A', 'one', 'x-amz-meta-a', 'two', 'Content-Type', 'text/plain']);
    expect(headers.get('host')).toBe('gw');
    expect(headers.get('X-AMZ-META-A')).toBe('one,two');
    expect(headers.has('Content-Type')).toBe(true);
    expect(headers.get('range')).toBeNull();
    expect(headers.has('range')).toBe(false);
  });

  it('GIVEN a parsed backend response THEN repeated values join with ", " as fetch Headers.get does', () => {
    const headers = NodeHeaders.fromIncoming({ 'set-cookie': ['a=1', 'b=2'], etag: '"x"', 'content-length': undefined });
    expect(headers.get('Set-Cookie')).toBe('a=1, b=2');
    const seen: Array<[string, string]> = [];
    headers.forEach((value, name) => seen.push([name, value]));
    expect(seen).toEqual([['set-cookie', 'a=1, b=2'], ['etag', '"x"']]);
  });

  it('GIVEN a header named like an object property THEN it is not found unless sent', () => {
    expect(NodeHeaders.fromRaw([]).get('constructor')).toBeNull();
    expect(NodeHeaders.fromRaw(['__proto__', 'x']).get('__proto__')).toBe('x');
    const incoming = NodeHeaders.fromIncoming({ etag: '"x"' });
    expect(incoming.get('constructor')).toBeNull();
    expect(incoming.has('toString')).toBe(false);
  });
});
