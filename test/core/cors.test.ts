import { parseConfig } from '../../functions/core/config/parse';
import { matchRule } from '../../functions/core/cors';
import { Gateway } from '../../functions/core/gateway';
import type { BackendClient, Dispatch, ProxyRequest, ProxyResponse, ResponseHead } from '../../functions/core/http';

/**
 * CORS through Gateway.handle, in process: preflights answered from the rules before anything is
 * authenticated, and the CORS headers on every kind of answer (a Forward's head, a rewritten backend error,
 * the core's own errors and responses). A real browser's view is in test/e2e/browsers.test.ts.
 */
const CONFIG = `
virtual_host_domains = ["gw.test"]

[[cors_rules]]
allowed_origins = ["https://*.example.org"]
allowed_methods = ["GET"]

[[buckets]]
name = "web"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "http://backend.test:9000"
bucket_name = "web"
[[buckets.cors_rules]]
allowed_origins = ["https://app.example.com"]
allowed_methods = ["GET", "PUT", "POST", "HEAD"]
allowed_headers = ["content-type", "x-amz-*", "range"]
expose_headers = ["ETag", "Content-Range", "x-amz-version-id"]
max_age_seconds = 600
[[buckets.cors_rules]]
allowed_origins = ["*"]
allowed_methods = ["GET"]

[[buckets]]
name = "plain"
backend_type = "s3"
[buckets.backend_options]
endpoint = "http://backend.test:9000"
bucket_name = "plain"
`;

const noNetwork: BackendClient = async () => {
  throw new Error('no network in this spec');
};
const gateway = new Gateway(parseConfig(CONFIG), { client: noNetwork });

function request(method: string, path: string, headers: Record<string, string>): ProxyRequest {
  return { method, requestId: 'REQ', rawPath: path, rawQuery: '', headers: new Headers({ host: 'gateway.test', ...headers }), body: () => new ReadableStream({ start: (c) => c.close() }) };
}

function response(dispatch: Dispatch): ProxyResponse {
  if (dispatch.kind !== 'response') throw new Error(`expected a response, got ${dispatch.kind}`);
  return dispatch.response;
}

const APP = 'https://app.example.com';

describe('CORS', () => {
  describe('preflights, answered from the rules before authentication', () => {
    it('GIVEN a rule for the origin, method and headers WHEN preflighted THEN 200 with the allow headers, whatever credentials are (not) sent', async () => {
      const res = response(
        await gateway.handle(request('OPTIONS', '/web/photos/a.jpg', { origin: APP, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'Content-Type, X-Amz-Date', authorization: 'garbage' })),
      );
      expect(res.status).toBe(200);
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': APP,
        'access-control-allow-methods': 'GET, PUT, POST, HEAD',
        'access-control-allow-headers': 'content-type, x-amz-date',
        'access-control-expose-headers': 'ETag, Content-Range, x-amz-version-id',
        'access-control-max-age': '600',
      });
      expect(res.headers.vary).toMatch(/Origin/);
    });

    it.each([
      ['a method no rule allows', { origin: APP, 'access-control-request-method': 'DELETE' }, 403, 'AccessForbidden'],
      ['a header no rule allows', { origin: APP, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-custom' }, 403, 'AccessForbidden'],
      ['an origin no rule allows a write', { origin: 'https://evil.example', 'access-control-request-method': 'PUT' }, 403, 'AccessForbidden'],
      ['no Origin', { 'access-control-request-method': 'GET' }, 400, 'BadRequest'],
      ['no Access-Control-Request-Method', { origin: APP }, 400, 'BadRequest'],
    ])('GIVEN %s WHEN preflighted THEN refused with S3\'s error', async (_, headers, status, code) => {
      const res = response(await gateway.handle(request('OPTIONS', '/web/a.jpg', headers)));
      expect(res.status).toBe(status);
      expect(String(res.body)).toContain(`<Code>${code}</Code>`);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('GIVEN the wildcard rule WHEN any origin preflights a GET THEN it is allowed with "*"', async () => {
      const res = response(await gateway.handle(request('OPTIONS', '/web/a.jpg', { origin: 'https://anyone.test', 'access-control-request-method': 'GET' })));
      expect(res.headers['access-control-allow-origin']).toBe('*');
    });

    it('GIVEN a bucket without rules WHEN preflighted THEN the gateway-wide rules apply (one "*" wildcard in the origin)', async () => {
      const ok = response(await gateway.handle(request('OPTIONS', '/plain/a', { origin: 'https://maps.example.org', 'access-control-request-method': 'GET' })));
      expect(ok.headers['access-control-allow-origin']).toBe('https://maps.example.org');
      const refused = response(await gateway.handle(request('OPTIONS', '/plain/a', { origin: 'https://example.org', 'access-control-request-method': 'GET' })));
      expect(refused.status).toBe(403);
    });

    it('GIVEN a virtual-hosted bucket WHEN preflighted on its host THEN its own rules answer', async () => {
      const res = response(await gateway.handle(request('OPTIONS', '/a.jpg', { host: 'web.gw.test', origin: APP, 'access-control-request-method': 'PUT' })));
      expect(res.status).toBe(200);
    });

    it('GIVEN sts_cors unset WHEN the STS endpoint is preflighted THEN refused', async () => {
      const res = response(await gateway.handle(request('OPTIONS', '/.sts', { origin: 'https://maps.example.org', 'access-control-request-method': 'POST' })));
      expect(res.status).toBe(403);
    });
  });

  describe('actual responses', () => {
    it('GIVEN an allowed origin WHEN a read is forwarded THEN the head carries the allow and expose headers and Vary', async () => {
      const dispatch = await gateway.handle(request('GET', '/web/a.jpg', { origin: APP }));
      if (dispatch.kind !== 'forward') throw new Error('expected a forward');
      const head = dispatch.respond(206, new Headers({ etag: '"e"', 'content-range': 'bytes 0-1/2', vary: 'Accept-Encoding', 'access-control-allow-origin': 'https://backend.example' })) as ResponseHead;
      expect(head.headers).toMatchObject({ 'access-control-allow-origin': APP, 'access-control-expose-headers': 'ETag, Content-Range, x-amz-version-id', vary: 'Accept-Encoding, Origin' });
    });

    it('GIVEN an allowed origin WHEN the backend refuses THEN the rewritten error carries the CORS headers', async () => {
      const dispatch = await gateway.handle(request('GET', '/web/missing', { origin: APP }));
      if (dispatch.kind !== 'forward') throw new Error('expected a forward');
      const head = dispatch.respond(404, new Headers({}));
      if (!('rewrite' in head)) throw new Error('expected a rewrite');
      const error = head.rewrite(new TextEncoder().encode('<Error><Code>NoSuchKey</Code><Message>gone</Message></Error>'));
      expect(error.status).toBe(404);
      expect(error.headers['access-control-allow-origin']).toBe(APP);
    });

    it('GIVEN an allowed origin WHEN the core refuses the request THEN its error carries the CORS headers too', async () => {
      const res = response(await gateway.handle(request('PUT', '/web/a.jpg', { origin: APP, 'content-length': '1' })));
      expect(res.status).toBe(403);
      expect(res.headers['access-control-allow-origin']).toBe(APP);
    });

    it('GIVEN an origin no rule allows WHEN it reads THEN the answer has Vary but no allow headers', async () => {
      const dispatch = await gateway.handle(request('PUT', '/web/a.jpg', { origin: 'https://evil.example', 'content-length': '1' }));
      const res = response(dispatch);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers.vary).toBe('Origin');
    });

    it('GIVEN an adapter failure (backend unreachable) THEN Gateway.failure adds the CORS headers', () => {
      const res = gateway.failure(new Error('boom'), request('GET', '/web/a.jpg', { origin: APP }));
      expect(res.headers['access-control-allow-origin']).toBe(APP);
    });
  });

  describe('matchRule', () => {
    const rules = parseConfig(CONFIG).buckets.get('web')?.corsRules ?? [];
    it('picks the first rule allowing origin, method and headers, matching header patterns case-insensitively', () => {
      expect(matchRule(rules, APP, 'PUT', ['x-amz-meta-a'])).toBe(rules[0]);
      expect(matchRule(rules, 'https://other.test', 'GET')).toBe(rules[1]);
      expect(matchRule(rules, 'https://other.test', 'PUT')).toBeUndefined();
    });
  });

  describe('the STS endpoint', () => {
    const stsConfig = (stsCors: boolean): string => `
sts_cors = ${stsCors}
[[cors_rules]]
allowed_origins = ["${APP}"]
allowed_methods = ["GET", "POST"]
`;
    const call = (g: Gateway): Promise<Dispatch> =>
      g.handle({ ...request('POST', '/', { origin: APP }), rawQuery: 'Action=GetCallerIdentity&Version=2011-06-15' });

    it('GIVEN sts_cors = true WHEN a page calls STS THEN its answer (here an error) carries the CORS headers', async () => {
      const res = response(await call(new Gateway(parseConfig(stsConfig(true)), { client: noNetwork })));
      expect(res.body).toMatch(/<ErrorResponse/);
      expect(res.headers['access-control-allow-origin']).toBe(APP);
    });

    it('GIVEN gateway-wide rules without sts_cors WHEN a page calls STS THEN no CORS headers', async () => {
      const res = response(await call(new Gateway(parseConfig(stsConfig(false)), { client: noNetwork })));
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});
