import { RUNTIMES, reportedCacheControl, startGateway, type RunningGateway } from '../support/gateway';
import { bucketToml, s3Options } from '../support/config-toml';
import { errorCode, rawRequest } from '../support/raw-request';

/**
 * `/.health` on every runtime, as a load balancer's probe sees it: answered by the gateway itself, whatever
 * state its backends are in (here: nothing listens at the only backend's address). Each runtime is started
 * from its TypeScript entry under tsx, as its npm script runs it; the other suites run the bundles.
 */
const CONFIG = bucketToml(
  { name: 'b', backend_type: 's3', anonymous_access: true },
  s3Options('http://127.0.0.1:1', 'b', { accessKeyId: 'AKIDBACKEND', secretAccessKey: 'backend-secret' }),
);

describe.each(RUNTIMES)('/.health (%s runtime)', (runtime) => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: CONFIG, bundle: false });
  }, 60_000);

  afterAll(() => gw?.stop());

  it('GIVEN an unreachable backend WHEN probed with GET THEN 200 {"status":"ok"}, never cached', async () => {
    const answer = await rawRequest(gw.endpoint, { method: 'GET', target: '/.health' });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: '{"status":"ok"}' });
    expect(answer.headers['content-type']).toBe('application/json');
    // JSON, which Cloudflare would compress: marked on the edge.
    expect(answer.headers['cache-control']).toBe(reportedCacheControl(runtime, 'no-store', true));
    // The same gateway answers a bucket request with the unreachable backend's 503: the probe did not look.
    const object = await rawRequest(gw.endpoint, { method: 'GET', target: '/b/k' });
    expect({ status: object.status, code: errorCode(object.body) }).toEqual({ status: 503, code: 'ServiceUnavailable' });
  });

  it('GIVEN HEAD WHEN probed THEN 200 without a body, its Cache-Control unmarked on every runtime', async () => {
    const answer = await rawRequest(gw.endpoint, { method: 'HEAD', target: '/.health?probe=1' });
    expect({ status: answer.status, body: answer.body, cacheControl: answer.headers['cache-control'] }).toEqual({ status: 200, body: '', cacheControl: 'no-store' });
  });

  it('GIVEN POST WHEN sent THEN 405 MethodNotAllowed, allowing GET and HEAD', async () => {
    const answer = await rawRequest(gw.endpoint, { method: 'POST', target: '/.health', headers: { 'content-length': '0' } });
    expect({ status: answer.status, code: errorCode(answer.body), allow: answer.headers.allow }).toEqual({ status: 405, code: 'MethodNotAllowed', allow: 'GET, HEAD' });
  });
});
