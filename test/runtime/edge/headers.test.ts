import { toProxyRequest } from '../../../functions/runtime/edge/request';
import { fetchHeaderValue, wireHeaders } from '../../../functions/runtime/edge/headers';
import { sendFetch, type EdgeRequestInit } from '../../../functions/runtime/edge/fetch';

/**
 * workerd decodes request header values as UTF-8 and encodes `fetch` header values as UTF-8; the core works on
 * byte strings (one character per byte). The edge adapter converts on both sides so the bytes the core verifies
 * and signs are the bytes on the wire.
 */
describe('edge header values', () => {
  it('GIVEN a request whose header workerd decoded from the UTF-8 bytes C3 A9 THEN the core reads those two bytes', () => {
    const request = toProxyRequest(new Request('http://gw.example/b/k', { headers: { 'x-amz-meta-n': 'caf\u00e9', 'x-amz-date': '20300101T000000Z' } }));
    expect(request.headers.get('x-amz-meta-n')).toBe('caf\u00c3\u00a9');
    expect(request.headers.get('x-amz-date')).toBe('20300101T000000Z');
    const seen: Record<string, string> = {};
    request.headers.forEach((value, name) => (seen[name] = value));
    expect(seen['x-amz-meta-n']).toBe('caf\u00c3\u00a9');
    expect(request.headers.has('X-Amz-Meta-N')).toBe(true);
  });

  it('GIVEN a byte string THEN fetch gets the text whose UTF-8 is those bytes', () => {
    expect(fetchHeaderValue('caf\u00c3\u00a9')).toBe('caf\u00e9');
    expect(fetchHeaderValue('plain')).toBe('plain');
    expect(fetchHeaderValue('\u20ac already text')).toBe('\u20ac already text');
  });

  it('GIVEN a backend request carrying a byte-string header THEN sendFetch hands fetch its text', async () => {
    let sent: Headers | undefined;
    const fetcher = async (_url: string, init: EdgeRequestInit): Promise<Response> => {
      sent = new Headers(init.headers);
      return new Response(null, { status: 200 });
    };
    await sendFetch({ method: 'PUT', url: 'http://backend/b/k', headers: { 'x-amz-meta-n': 'caf\u00c3\u00a9' }, body: new Uint8Array(0) }, () => null, undefined, fetcher);
    expect(sent?.get('x-amz-meta-n')).toBe('caf\u00e9');
  });

  it('GIVEN a view over Headers THEN a missing header is null', () => {
    expect(wireHeaders(new Headers()).get('x-amz-meta-n')).toBeNull();
  });
});
