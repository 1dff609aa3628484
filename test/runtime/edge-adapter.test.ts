import { configText, edgeEnvironment } from '../../functions/runtime/edge-environment';
import { requestTarget, toProxyRequest } from '../../functions/runtime/edge-request';

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
});

describe('edge environment', () => {
  it('GIVEN bindings THEN every string binding is an environment variable, other bindings are not', () => {
    expect(edgeEnvironment({ SESSION_TOKEN_KEY: 'k', MAX_UPLOAD_BYTES: '10', CACHE: { get: () => null }, COUNT: 3 })).toEqual({ SESSION_TOKEN_KEY: 'k', MAX_UPLOAD_BYTES: '10' });
  });

  it('GIVEN CONFIG_TOML THEN it wins over the bundled file; without it the bundled file is read', () => {
    expect(configText({ CONFIG_TOML: '[[buckets]]' }, 'bundled')).toBe('[[buckets]]');
    expect(configText({}, 'bundled')).toBe('bundled');
    expect(configText({ CONFIG_TOML: '' }, 'bundled')).toBe('bundled');
  });
});
