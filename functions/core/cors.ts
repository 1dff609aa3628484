/**
 * CORS, as S3 answers it. A preflight (`OPTIONS`) is answered from the rules alone, before anything is
 * authenticated: 200 with the allow headers when a rule allows the origin, method and headers asked for,
 * else 403 AccessForbidden. Every other response (errors included) gets `Access-Control-Allow-Origin`,
 * `-Methods`, `-Expose-Headers` and `-Max-Age` when a rule allows its origin and method, and `Vary: Origin`
 * whenever rules apply, so a cache never hands one origin's answer to another. Applied to what the core
 * returns: its own responses, the head a Forward maps, the answers of a NeedsBody, and failures.
 */
import type { Addressing } from './addressing';
import type { Config, CorsRule } from './config/types';
import { S3Error } from './errors';
import { isProxyResponse, isRewriteBody, type Dispatch, type HeaderMap, type ProxyRequest, type ProxyResponse, type ResponseHead } from './http';
import { decodePathComponent } from './keys';
import type { Query } from './query';
import { emptyResponse, errorResponse } from './responses';
import { matchSts } from './sts/routes';

/** Which rules apply to a request: a bucket's, or the gateway-wide ones. */
export type CorsTarget = { readonly kind: 'bucket'; readonly name: string } | { readonly kind: 'service' } | { readonly kind: 'sts' };

/** The rules for `target`: a bucket's own, else the gateway-wide ones (STS only with `sts_cors`); undefined when none. */
export function corsRulesFor(config: Config, target: CorsTarget): readonly CorsRule[] | undefined {
  if (target.kind === 'bucket') {
    const own = config.buckets.get(target.name)?.corsRules;
    if (own !== undefined) return own.length > 0 ? own : undefined;
  }
  if (target.kind === 'sts' && config.cors?.sts !== true) return undefined;
  const rules = config.cors?.rules;
  return rules !== undefined && rules.length > 0 ? rules : undefined;
}

/** The rules a request is answered with: its bucket's, the service's, or the STS endpoint's. */
export function corsRulesOf(request: ProxyRequest, addressing: Addressing, query: Query, config: Config): readonly CorsRule[] | undefined {
  if (addressing.style === 'virtual') return corsRulesFor(config, { kind: 'bucket', name: addressing.bucket });
  if (matchSts(request, query) !== undefined) return corsRulesFor(config, { kind: 'sts' });
  const bucket = bucketOfPath(request.rawPath, config);
  return corsRulesFor(config, bucket === undefined ? { kind: 'service' } : { kind: 'bucket', name: bucket });
}

/**
 * The answer to a preflight (`OPTIONS`), from the rules of the bucket, object or service it names (STS: a POST
 * to `/` or anything on `/.sts`), before anything is authenticated, as S3 answers it.
 */
export function preflight(request: ProxyRequest, addressing: Addressing, config: Config): ProxyResponse {
  const path = request.rawPath;
  if (addressing.style === 'virtual') {
    return preflightResponse(request, corsRulesFor(config, { kind: 'bucket', name: addressing.bucket }), path === '/' ? 'BUCKET' : 'OBJECT');
  }
  if (path === '/.sts' || path === '/.sts/' || (path === '/' && request.headers.get('access-control-request-method') === 'POST')) {
    return preflightResponse(request, corsRulesFor(config, { kind: 'sts' }), 'SERVICE');
  }
  const bucket = bucketOfPath(path, config);
  if (bucket === undefined) return preflightResponse(request, corsRulesFor(config, { kind: 'service' }), 'SERVICE');
  return preflightResponse(request, corsRulesFor(config, { kind: 'bucket', name: bucket }), /^\/[^/]*\/?$/.test(path) ? 'BUCKET' : 'OBJECT');
}

/** Whether the configuration has any CORS rule at all (when not, nothing here runs per request). */
export function hasCors(config: Config): boolean {
  if (config.cors?.rules.length) return true;
  for (const bucket of config.buckets.values()) if (bucket.corsRules?.length) return true;
  return false;
}

/**
 * The bucket a path-style path names: its first segment, or with `[path_mapping]` its first `segments`
 * segments joined by the separator; undefined for the service root.
 */
export function bucketOfPath(rawPath: string, config: Config): string | undefined {
  const segments = rawPath.split('/').slice(1);
  const count = config.pathMapping?.segments ?? 1;
  if (segments.length < count || segments[0] === '') return undefined;
  try {
    return segments.slice(0, count).map(decodePathComponent).join(config.pathMapping?.separator ?? '');
  } catch {
    return undefined;
  }
}

function originMatches(pattern: string, origin: string): boolean {
  const star = pattern.indexOf('*');
  if (star < 0) return pattern === origin;
  const head = pattern.slice(0, star);
  const tail = pattern.slice(star + 1);
  return origin.length >= head.length + tail.length && origin.startsWith(head) && origin.endsWith(tail);
}

function headerMatches(pattern: string, header: string): boolean {
  return originMatches(pattern, header);
}

/** The first rule allowing `origin` and `method` (and every one of `headers`, lower-case), as S3 picks it. */
export function matchRule(rules: readonly CorsRule[], origin: string, method: string, headers: readonly string[] = []): CorsRule | undefined {
  return rules.find(
    (rule) =>
      rule.allowedOrigins.some((o) => originMatches(o, origin)) &&
      (rule.allowedMethods as readonly string[]).includes(method) &&
      headers.every((h) => rule.allowedHeaders.some((p) => headerMatches(p, h))),
  );
}

function allowHeaders(rule: CorsRule, origin: string): HeaderMap {
  // A rule for any origin answers `*` (as S3 does); one naming origins echoes the caller's.
  const anyOrigin = rule.allowedOrigins.includes('*');
  const out: HeaderMap = {
    'access-control-allow-origin': anyOrigin ? '*' : origin,
    'access-control-allow-methods': rule.allowedMethods.join(', '),
  };
  if (rule.exposeHeaders.length > 0) out['access-control-expose-headers'] = rule.exposeHeaders.join(', ');
  if (rule.maxAgeSeconds !== undefined) out['access-control-max-age'] = String(rule.maxAgeSeconds);
  return out;
}

const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';

/**
 * S3's answer to a preflight for `target`, from the rules alone.
 *
 * @param resourceType `OBJECT`, `BUCKET` or `SERVICE`, named in a refusal as S3 does.
 */
export function preflightResponse(request: ProxyRequest, rules: readonly CorsRule[] | undefined, resourceType: string): ProxyResponse {
  const origin = request.headers.get('origin');
  const method = request.headers.get('access-control-request-method');
  const refuse = (err: S3Error): ProxyResponse => errorResponse(err, request.requestId, request.method, request.rawPath);
  if (origin === null || origin === '') return refuse(new S3Error('BadRequest', 'Insufficient information. Origin request header needed.'));
  if (method === null || !/^[A-Z]+$/.test(method)) {
    return refuse(new S3Error('BadRequest', `Invalid Access-Control-Request-Method: ${method ?? 'null'}`));
  }
  const detail = { Method: method, ResourceType: resourceType };
  if (rules === undefined) return refuse(new S3Error('AccessForbidden', 'CORSResponse: CORS is not enabled for this bucket.', detail));
  const asked = requestedHeaders(request.headers.get('access-control-request-headers'));
  const rule = matchRule(rules, origin, method, asked);
  if (rule === undefined) {
    return refuse(
      new S3Error(
        'AccessForbidden',
        'CORSResponse: This CORS request is not allowed. This is usually because the evaluation of Origin, request method / ' +
          'Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource\'s CORS spec.',
        detail,
      ),
    );
  }
  const headers = allowHeaders(rule, origin);
  if (asked.length > 0) headers['access-control-allow-headers'] = asked.join(', ');
  headers.vary = PREFLIGHT_VARY;
  headers['content-length'] = '0';
  return emptyResponse(200, request.requestId, headers);
}

function requestedHeaders(value: string | null): string[] {
  if (value === null) return [];
  return value
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
}

/** The headers an actual (non-preflight) response gets: the allow headers when a rule matches, and Vary. */
export function responseCorsHeaders(request: ProxyRequest, rules: readonly CorsRule[]): HeaderMap {
  const origin = request.headers.get('origin');
  const rule = origin === null ? undefined : matchRule(rules, origin, request.method);
  const out = rule === undefined || origin === null ? {} : allowHeaders(rule, origin);
  out.vary = 'Origin';
  return out;
}

/** `headers` with `cors` added: any access-control header from a backend replaced, Vary merged. */
function decorate(headers: HeaderMap, cors: HeaderMap): HeaderMap {
  const out: HeaderMap = {};
  let vary: string | undefined;
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (lower.startsWith('access-control-')) continue;
    if (lower === 'vary') vary = headers[name];
    else out[name] = headers[name];
  }
  Object.assign(out, cors);
  if (vary !== undefined && cors.vary !== undefined) {
    out.vary = vary.split(',').some((v) => v.trim().toLowerCase() === 'origin') ? vary : `${vary}, ${cors.vary}`;
  } else if (vary !== undefined) out.vary = vary;
  return out;
}

/** `response` with the CORS headers. */
export function withCorsResponse(response: ProxyResponse, cors: HeaderMap): ProxyResponse {
  return { status: response.status, headers: decorate(response.headers, cors), body: response.body, errorCode: response.errorCode };
}

function withCorsHead(head: ResponseHead, cors: HeaderMap): ResponseHead {
  return { status: head.status, headers: decorate(head.headers, cors) };
}

/**
 * `dispatch` with `cors` on every response it can end in: a Response, the head or rewritten error a Forward
 * maps, and whatever a NeedsBody turns into.
 */
export function withCors(dispatch: Dispatch, cors: HeaderMap): Dispatch {
  switch (dispatch.kind) {
    case 'response':
      return { kind: 'response', response: withCorsResponse(dispatch.response, cors) };
    case 'forward':
      return {
        kind: 'forward',
        request: dispatch.request,
        respond: (status, headers) => {
          const head = dispatch.respond(status, headers);
          if (isRewriteBody(head)) return { maxBytes: head.maxBytes, rewrite: (body) => withCorsResponse(head.rewrite(body), cors) };
          return isProxyResponse(head) ? withCorsResponse(head, cors) : withCorsHead(head, cors);
        },
      };
    case 'needs-body':
      return {
        kind: 'needs-body',
        maxBytes: dispatch.maxBytes,
        withBody: async (body) => withCors(await dispatch.withBody(body), cors),
        tooLarge: () => withCors(dispatch.tooLarge(), cors),
        timedOut: () => withCors(dispatch.timedOut(), cors),
      };
  }
}
