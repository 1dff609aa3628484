import { clientBody, requestTarget, toProxyRequest } from '../../../functions/runtime/edge/request';

describe('edge request translator', () => {
  it('WHEN the platform hands over a URL THEN path and query are taken from it as serialized, never re-parsed', () => {
    expect(requestTarget('http://gw.example/b/a%20b/%2Fx?uploads&prefix=a%2Fb')).toEqual({ rawPath: '/b/a%20b/%2Fx', rawQuery: 'uploads&prefix=a%2Fb' });
    expect(requestTarget('https://gw.example:8443/b//k')).toEqual({ rawPath: '/b//k', rawQuery: '' });
    expect(requestTarget('http://gw.example')).toEqual({ rawPath: '/', rawQuery: '' });
    expect(requestTarget('http://gw.example/?Action=GetCallerIdentity#frag')).toEqual({ rawPath: '/', rawQuery: 'Action=GetCallerIdentity' });
  });

  it('GIVEN a Request THEN the core gets its method, headers and body, and an empty stream when it has none', async () => {
    const request = toProxyRequest(new Request('http://gw.example/b/k?versionId=1', { method: 'get', headers: { 'x-amz-date': '20300101T000000Z' } }));
    expect(request).toMatchObject({ method: 'GET', rawPath: '/b/k', rawQuery: 'versionId=1' });
    expect(request.headers.get('x-amz-date')).toBe('20300101T000000Z');
    expect(await new Response(request.body()).text()).toBe('');
  });

  const withCf = (cf: unknown, headers: Record<string, string>): Request => Object.assign(new Request('http://gw.example/b/k', { headers }), { cf });

  it('GIVEN Cloudflare replaced Accept-Encoding THEN the core reads the value the client sent, kept in request.cf, and no listed value stands in for it', () => {
    const rclone = toProxyRequest(withCf({ clientAcceptEncoding: 'gzip' }, { 'accept-encoding': 'br, gzip' }));
    expect(rclone.headers.get('Accept-Encoding')).toBe('gzip');
    const seen: string[] = [];
    rclone.headers.forEach((value, name) => seen.push(`${name}: ${value}`));
    expect(seen).toEqual(['accept-encoding: gzip']);
    // A client that sent `br, gzip` signed `br, gzip`: a signature over `gzip` is not its own.
    const sentAsArrived = toProxyRequest(withCf({ clientAcceptEncoding: 'br, gzip' }, { 'accept-encoding': 'br, gzip' }));
    expect(sentAsArrived.platformHeaders?.rewritten.get('accept-encoding')).toBeUndefined();
    // The client sent none: the core sees none.
    const none = toProxyRequest(withCf({ clientAcceptEncoding: '' }, { 'accept-encoding': 'br, gzip' }));
    expect([none.headers.has('accept-encoding'), none.headers.get('accept-encoding'), none.platformHeaders?.rewritten.size]).toEqual([false, null, 0]);
  });

  it('GIVEN no cf value (the platform dropped the client\'s Accept-Encoding) THEN the header as it arrived, and the listed values the platform normalizes to it', () => {
    const dropped = toProxyRequest(new Request('http://gw.example/b/k', { headers: { 'accept-encoding': 'br, gzip' } }));
    expect(dropped.headers.get('accept-encoding')).toBe('br, gzip');
    expect(dropped.platformHeaders?.rewritten.get('accept-encoding')?.signedValues('br, gzip')).toContain('gzip');
    expect(toProxyRequest(withCf({}, { 'accept-encoding': 'br, gzip' })).platformHeaders?.rewritten.has('accept-encoding')).toBe(true);
  });
});

/** A request body as workerd gives it: a second read while one is pending throws instead of queueing. */
function workerdBody(pieces: number, size: number): ReadableStream<Uint8Array> {
  const source = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((r) => setTimeout(r, 1));
      if (pieces-- === 0) controller.close();
      else controller.enqueue(new Uint8Array(size));
    },
  });
  const reader = source.getReader();
  let pending = false;
  const strict = {
    read: async () => {
      if (pending) throw new TypeError('This ReadableStream only supports a single pending read request at a time.');
      pending = true;
      try {
        return await reader.read();
      } finally {
        pending = false;
      }
    },
    cancel: (reason?: unknown) => reader.cancel(reason),
    releaseLock: () => reader.releaseLock(),
  };
  return { getReader: () => strict, locked: false } as unknown as ReadableStream<Uint8Array>;
}

describe('edge client body', () => {
  it('WHEN the core and the adapter both drain the body at once THEN it is read to its end (the connection survives)', async () => {
    const body = clientBody(workerdBody(20, 1000));
    const core = body.stream().getReader();
    await core.read();
    const coreDrain = (async () => {
      let n = 0;
      for (let piece = await core.read(); !piece.done; piece = await core.read()) n += piece.value.length;
      return n;
    })();
    expect(await body.discardRest(1_000_000)).toBe(true);
    await expect(coreDrain).resolves.toBeLessThan(20_000);
  });

  it('WHEN more than the limit is left THEN discardRest stops there and says the body has not ended', async () => {
    const body = clientBody(workerdBody(20, 1000));
    expect(await body.discardRest(5000)).toBe(false);
    expect(await body.discardRest()).toBe(true);
  });
});
