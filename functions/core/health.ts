/**
 * The health endpoint, for load balancers and orchestrators: `GET /.health` (or HEAD) where a request names no
 * bucket (path-style, or the bare `virtual_host_domains` name). No bucket can take the path: virtual bucket
 * names may not start with a dot (the configuration refuses one), as on S3. On a bucket's virtual host the
 * path names an object, `.health` at the bucket's root, and is that bucket's like any other.
 *
 * What it promises: 200 `{"status":"ok"}` means this instance loaded and validated its configuration and
 * answers requests; 503 `{"status":"draining"}` means it is shutting down (the Node server after SIGTERM):
 * requests in flight finish, new ones belong elsewhere. It never contacts a backend or a token service (a
 * backend outage must not take every instance out of a load balancer), never checks a signature, and says
 * nothing else: no version, configuration, bucket or backend.
 */
import type { ProxyRequest, ProxyResponse } from './http';
import { S3Error } from './errors';
import { errorResponse } from './responses';

export const HEALTH_PATH = '/.health';

/** `draining`: the runtime is shutting down and lets its requests in flight finish. */
export type HealthState = 'ok' | 'draining';

const BODY: Record<HealthState, string> = { ok: '{"status":"ok"}', draining: '{"status":"draining"}' };
const STATUS: Record<HealthState, number> = { ok: 200, draining: 503 };

/**
 * The answer to a request for `HEALTH_PATH` (the query string is ignored: probes add cache busters). Methods
 * other than GET and HEAD are S3's MethodNotAllowed, with the methods that are.
 *
 * @example healthResponse({ method: 'GET', rawPath: '/.health', ... }, 'ok').status // 200
 */
export function healthResponse(request: ProxyRequest, state: HealthState): ProxyResponse {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const refused = errorResponse(
      new S3Error('MethodNotAllowed', 'The specified method is not allowed against this resource.', { Method: request.method }),
      request.requestId,
      request.method,
      request.rawPath,
    );
    return { status: refused.status, headers: Object.assign({}, refused.headers, { allow: 'GET, HEAD' }), body: refused.body };
  }
  const body = BODY[state];
  const headers = {
    'content-type': 'application/json',
    'content-length': String(body.length),
    'cache-control': 'no-store',
    'x-amz-request-id': request.requestId,
  };
  return { status: STATUS[state], headers, body: request.method === 'HEAD' ? null : body };
}
