import { S3Error } from '../../core/errors';
import { DRAIN_LIMIT_BYTES } from '../../core/payload/checked-stream';
import type { Gateway } from '../../core/gateway';
import { errorResponse } from '../../core/responses';
import { accessLogLine } from '../shared/access-log';
import { openRecord } from '../shared/observe';
import type { ZoneCompression } from '../shared/settings';
import type { EdgeBindings } from './environment';
import { execute } from './executor';
import { clientBody, toProxyRequest } from './request';

/** The part of a Worker's ExecutionContext the adapter uses. */
export interface EdgeContext {
  /** Keeps the isolate working on `promise` after the response is returned (here: the access log). */
  waitUntil(promise: Promise<unknown>): void;
}

/** The isolate's gateway and the runtime settings it is served with. */
export interface EdgeGateway {
  readonly gateway: Gateway;
  /** GATEWAY_IDLE_TIMEOUT_MS: how long a body the gateway collects may stop arriving. */
  readonly idleTimeoutMs: number;
  /** EDGE_ZONE_COMPRESSION: which answers are marked `no-transform`. */
  readonly zoneCompression: ZoneCompression;
}

/** Resolves the isolate's gateway (configuration, keys and caches live as long as the isolate). */
export type EdgeGatewayLoader = (bindings: EdgeBindings) => Promise<EdgeGateway>;

export type EdgeFetchHandler = (request: Request, bindings: EdgeBindings, ctx: EdgeContext) => Promise<Response>;

/**
 * The Worker adapter: the Request becomes a ProxyRequest, the edge executor runs the dispatch with the
 * platform's fetch, and one access-log line is written once the body has been delivered. Decides nothing
 * itself.
 */
export function edgeHandler(load: EdgeGatewayLoader, log: (line: string) => void = (line) => console.log(line)): EdgeFetchHandler {
  return async (request, bindings, ctx) => {
    const body = clientBody(request.body);
    const proxyRequest = toProxyRequest(request, body.stream);
    const record = openRecord(proxyRequest);
    let edge: EdgeGateway;
    try {
      edge = await load(bindings);
    } catch {
      // The loader logged why (never a value); the client learns only that the gateway is not serving.
      const failure = errorResponse(new S3Error('InternalError', 'The gateway is not configured correctly'), proxyRequest.requestId, proxyRequest.method, proxyRequest.rawPath);
      record.errorCode = failure.errorCode;
      log(accessLogLine(proxyRequest, { status: failure.status }, record));
      return new Response(proxyRequest.method === 'HEAD' ? null : failure.body, { status: failure.status, headers: failure.headers });
    }
    const exchange = await execute(edge.gateway, proxyRequest, () => request.body, undefined, edge.idleTimeoutMs, record, edge.zoneCompression);
    // What the exchange left of the client's body is read and dropped before answering, up to the limit the
    // core drains on a refusal (a client still sending then always reads the answer); the rest after. A body
    // that stopped arriving is not waited for again.
    if (!exchange.bodyAbandoned && !(await body.discardRest(DRAIN_LIMIT_BYTES))) ctx.waitUntil(body.discardRest());
    const ray = request.headers.get('cf-ray');
    ctx.waitUntil(exchange.settled.then((result) => log(accessLogLine(proxyRequest, result, record, ray ? { ray } : {}))));
    return exchange.response;
  };
}
