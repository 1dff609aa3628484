import type { Config } from '../config/types';
import type { BackendClient, Dispatch, ProxyRequest, ProxyResponse } from '../http';
import type { SessionUnsealer } from '../auth/identity';
import type { RequestRecord } from '../observability/record';
import type { Query } from '../query';
import type { CryptoKey } from '../bytes';
import { assumeRoleWithWebIdentity } from './assume-role';
import { callerIdentity } from './caller-identity';
import { REQUEST_TIMEOUT_MESSAGE } from '../errors';
import { StsError, quote } from './errors';
import { JwksCache, type JwksCacheOptions } from './jwks';
import { assumeRoleResponse, callerIdentityResponse, stsErrorResponse } from './responses';
import { STS_ACTIONS, STS_FORM_MAX_BYTES, formParams, matchSts, type StsParams } from './routes';
import { importSessionKey } from './session-token';

export interface StsServiceDeps {
  /** For the issuers' discovery documents and JWKS (node:http on Node). */
  readonly client: BackendClient;
  readonly now: () => number;
  /** The Gateway's unsealer, so GetCallerIdentity and S3 requests accept the same tokens. */
  readonly unseal?: SessionUnsealer;
  readonly jwks?: JwksCacheOptions;
}

const EMPTY = new Uint8Array(0);

/**
 * The STS endpoint inside the Gateway: recognises STS requests, collects a small form body when that is
 * where the parameters are, and answers AssumeRoleWithWebIdentity and GetCallerIdentity. Its JWKS cache
 * lives as long as the Gateway (per process, per cold start). Every failure is answered as an STS
 * ErrorResponse; nothing it returns throws.
 */
export class StsService {
  private readonly jwks: JwksCache;
  private readonly sessionKey?: Promise<CryptoKey>;

  constructor(
    private readonly config: Config,
    private readonly deps: StsServiceDeps,
  ) {
    // Only the issuers some role trusts are ever fetched, so the cache's keys are bounded by the configuration.
    const issuers = [...config.roles.values()].flatMap((role) => role.trustedIssuers);
    this.jwks = new JwksCache(deps.client, deps.now, { issuers, ...deps.jwks });
    const raw = config.settings.sessionTokenKey;
    this.sessionKey = raw ? importSessionKey(raw) : undefined;
  }

  /**
   * The dispatch of an STS request, or undefined for any other request (route it as S3).
   *
   * @param s3 Routes a request as S3. Used when a small form POST to a shared path (`/`, `/sts/`) turns out
   *   to carry no Action: its body has been read, so the request passed on replays the collected bytes.
   */
  dispatch(request: ProxyRequest, query: Query, s3: (request: ProxyRequest) => Promise<Dispatch>, record?: RequestRecord): Promise<Dispatch> | undefined {
    const match = matchSts(request, query);
    if (match === undefined) return undefined;
    if (record) record.operation = 'STS';
    if (match.source === 'query') {
      if (match.bodyBytes === 0) return this.answer(request, match.params, EMPTY, record);
      return Promise.resolve(this.collect(request, (body) => this.answer(request, match.params, body, record)));
    }
    return Promise.resolve(
      this.collect(request, (body) => {
        const params = formParams(body);
        if (params.has('Action') || match.dedicated) return this.answer(request, params, body, record);
        return s3(replaying(request, body));
      }),
    );
  }

  private collect(request: ProxyRequest, withBody: (body: Uint8Array) => Promise<Dispatch>): Dispatch {
    return {
      kind: 'needs-body',
      maxBytes: STS_FORM_MAX_BYTES,
      withBody,
      tooLarge: () => respond(stsErrorResponse(new StsError('ValidationError', 'The request body is longer than its Content-Length'), request.requestId)),
      timedOut: () => respond(stsErrorResponse(new StsError('RequestTimeout', REQUEST_TIMEOUT_MESSAGE), request.requestId)),
    };
  }

  private async answer(request: ProxyRequest, params: StsParams, body: Uint8Array, record: RequestRecord | undefined): Promise<Dispatch> {
    try {
      const action = params.get('Action');
      // Only the served actions name the operation: the label stays bounded whatever a client sends.
      if (record && (action === 'AssumeRoleWithWebIdentity' || action === 'GetCallerIdentity')) record.operation = action;
      switch (action) {
        case 'AssumeRoleWithWebIdentity': {
          const result = await assumeRoleWithWebIdentity(params, this.config, this.jwks, this.sessionKey, this.deps.now());
          return respond(assumeRoleResponse(result, request.requestId));
        }
        case 'GetCallerIdentity': {
          const identity = await callerIdentity(request, body, this.deps.unseal, this.deps.now());
          return respond(callerIdentityResponse(identity, request.requestId));
        }
        default:
          throw invalidAction(action);
      }
    } catch (err) {
      return respond(stsErrorResponse(err, request.requestId));
    }
  }
}

function invalidAction(action: string | undefined): StsError {
  if (action === undefined || action === '') return new StsError('InvalidAction', 'The request has no Action parameter');
  if (STS_ACTIONS.has(action)) {
    return new StsError('InvalidAction', `${action} is not served by this gateway; it serves AssumeRoleWithWebIdentity and GetCallerIdentity`);
  }
  return new StsError('InvalidAction', `Could not find operation ${quote(action)} for version 2011-06-15`);
}

function respond(response: ProxyResponse): Dispatch {
  return { kind: 'response', response };
}

function replay(body: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(body);
      controller.close();
    },
  });
}

/** The request again with its collected body to read. Fields by name: a spread would drop an adapter's getters. */
function replaying(request: ProxyRequest, body: Uint8Array): ProxyRequest {
  const { requestId, method, rawPath, rawQuery, headers, signal } = request;
  return { requestId, method, rawPath, rawQuery, headers, signal, body: () => replay(body) };
}
