import { requestAddressing } from './addressing';
import { type Identity, type SessionUnsealer } from './auth/identity';
import { createStores } from './backends';
import { useNativeCrc32, useNativeHash, type NativeCrc32, type NativeHash } from './checksums';
import type { Config } from './config/types';
import { corsRulesOf, hasCors, preflight, responseCorsHeaders, withCors, withCorsResponse } from './cors';
import type { BackendClient, Dispatch, ProxyRequest, ProxyResponse } from './http';
import { HEALTH_PATH, healthResponse, type HealthState } from './health';
import type { Log } from './log';
import { BackendCredentials, s3CredentialSource } from './oidc/backend-credentials';
import { discoveryResponse } from './oidc/discovery';
import { stsTokenExchange, type TokenExchange } from './oidc/exchange';
import { readIdentityProvider, type IdentityProvider } from './oidc/provider-key';
import type { RequestRecord } from './observability/record';
import type { Metrics } from './observability/metrics';
import { ListTokens } from './listing/token';
import { UploadIds } from './operations/upload-id';
import { respond } from './operations/operation';
import { Query } from './query';
import { errorResponse } from './responses';
import { S3Api } from './s3';
import { StsError, StsService, sessionUnsealer, stsErrorResponse } from './sts';

export interface GatewayDeps {
  /** Executes backend requests whose answer the core reads itself (listings, copies, multipart control). */
  readonly client: BackendClient;
  /** Milliseconds since the epoch; injected so tests can freeze the clock. */
  readonly now?: () => number;
  /**
   * Unseals STS session tokens. Defaults to one over `config.settings.sessionTokenKey`; without either,
   * requests carrying a session token are refused.
   */
  readonly unseal?: SessionUnsealer;
  /**
   * Exchanges the gateway's web identity for backend credentials (`auth_type = "oidc"` buckets).
   * Default: AssumeRoleWithWebIdentity through @aws-sdk/client-sts (`stsTokenExchange()`).
   */
  readonly tokenExchange?: TokenExchange;
  /** Structured events (token-service exchanges and their failures); never tokens, secrets or keys. */
  readonly log?: Log;
  /** The platform's native CRC-32 for uploads' checksums (see `useNativeCrc32`); without it, tables. */
  readonly crc32?: NativeCrc32;
  /** The platform's native SHA-256, SHA-1 and MD5 for streamed bodies (see `useNativeHash`); without it, TypeScript. */
  readonly hash?: NativeHash;
  /** Where the OIDC exchanges' outcomes and credential-cache hits are counted; per request metrics are the runtime's. */
  readonly metrics?: Metrics;
}

/**
 * The runtime-agnostic core: one request in, one dispatch out. Built once per process (or cold start) from a
 * validated configuration; adapters call `handle` and execute what it returns. A request is, in this order, a
 * health probe, a CORS preflight, an OIDC discovery document, an STS call, or an S3 request; on a
 * virtual-hosted bucket's host (`{bucket}.{domain}`) every request is that bucket's, `/.health` included.
 */
export class Gateway {
  /** The gateway as an OIDC identity provider, when OIDC_PROVIDER_KEY and OIDC_PROVIDER_ISSUER are set. */
  private readonly identityProvider?: IdentityProvider;
  /** The STS endpoint, with its JWKS cache: one per Gateway, so per process or cold start. */
  private readonly sts: StsService;
  private readonly s3: S3Api;
  /** What `/.health` reports; `draining` once the runtime began to shut down. */
  private health: HealthState = 'ok';
  /** Whether any CORS rule is configured: without one, nothing CORS runs per request. */
  private readonly cors: boolean;

  /** @throws ConfigError when the identity provider's key or certificate is unusable. */
  constructor(
    readonly config: Config,
    deps: GatewayDeps,
  ) {
    const now = deps.now ?? Date.now;
    if (deps.crc32) useNativeCrc32(deps.crc32);
    if (deps.hash) useNativeHash(deps.hash);
    const key = config.settings.sessionTokenKey;
    const unseal = deps.unseal ?? (key ? sessionUnsealer(key) : undefined);
    this.cors = hasCors(config);
    this.identityProvider = readIdentityProvider(config.settings);
    this.sts = new StsService(config, { client: deps.client, now, unseal });
    const stores = createStores(config.buckets.values(), {
      client: deps.client,
      now,
      s3Credentials: s3CredentialSource(this.identityProvider && federation(this.identityProvider, config, deps, now)),
    });
    const services = { listTokens: new ListTokens(key), uploadIds: new UploadIds(key), now, unseal };
    this.s3 = new S3Api({ config, stores, services, now, unseal, createdAt: new Date(now()).toISOString() });
  }

  /**
   * Never throws: every failure becomes the S3 (or STS) error response for the request.
   *
   * @param record Receives what the request turned out to be (who, what, where) for the access log and
   *   the metrics; the runtime's dispatch loop adds what happened at the backend.
   */
  async handle(request: ProxyRequest, record?: RequestRecord): Promise<Dispatch> {
    try {
      return await this.dispatch(request, record);
    } catch (err) {
      return respond(this.failure(err, request));
    }
  }

  /**
   * From now on `/.health` answers 503 draining, so load balancers stop sending: the Node server calls this
   * when SIGTERM arrives. Every other request is served as before.
   */
  startDraining(): void {
    this.health = 'draining';
  }

  /**
   * The error response for a failure, including ones an adapter meets while executing a Forward; with the
   * CORS headers the request's rules give it, so a page can read why it was refused.
   */
  failure(err: unknown, request: ProxyRequest): ProxyResponse {
    const response = err instanceof StsError ? stsErrorResponse(err, request.requestId) : errorResponse(err, request.requestId, request.method, request.rawPath);
    if (!this.cors) return response;
    const addressing = requestAddressing(request.headers, this.config.virtualHostDomains);
    const rules = corsRulesOf(request, addressing, new Query(request.rawQuery), this.config);
    return rules === undefined ? response : withCorsResponse(response, responseCorsHeaders(request, rules));
  }

  private async dispatch(request: ProxyRequest, record: RequestRecord | undefined): Promise<Dispatch> {
    const addressing = requestAddressing(request.headers, this.config.virtualHostDomains);
    // First: a health probe must not depend on anything else the gateway does (see health.ts). Only where the
    // request names no bucket: on a bucket's own host, `/.health` is that bucket's object.
    if (request.rawPath === HEALTH_PATH && addressing.style === 'path') {
      if (record) record.operation = 'Health';
      return respond(healthResponse(request, this.health));
    }
    const query = new Query(request.rawQuery);
    // A preflight is answered from the CORS rules alone, before anything is authenticated (as S3 does).
    if (request.method === 'OPTIONS') {
      if (record) record.operation = 'Preflight';
      return respond(preflight(request, addressing, this.config));
    }
    const onBucketHost = addressing.style === 'virtual';
    if (this.identityProvider && !onBucketHost) {
      const discovery = await discoveryResponse(this.identityProvider, request);
      if (discovery) {
        if (record) record.operation = 'OidcDiscovery';
        return respond(discovery);
      }
    }
    const rules = this.cors ? corsRulesOf(request, addressing, query, this.config) : undefined;
    // STS before S3: its paths (`/`, `/sts/`) would otherwise route as ListBuckets or a bucket named `sts`.
    // A form that turns out not to be STS reaches S3 from inside a NeedsBody, where nothing else catches.
    const toS3 = (replayed: ProxyRequest): Promise<Dispatch> =>
      this.s3.dispatch(replayed, query, addressing, record).catch((err: unknown) => respond(this.failure(err, replayed)));
    const dispatch = (onBucketHost ? undefined : this.sts.dispatch(request, query, toS3, record)) ?? this.s3.dispatch(request, query, addressing, record);
    return rules === undefined ? dispatch : withCors(await dispatch, responseCorsHeaders(request, rules));
  }
}

/** The backend credentials of `auth_type = "oidc"` buckets, exchanged with the gateway's own tokens. */
function federation(provider: IdentityProvider, config: Config, deps: GatewayDeps, now: () => number): BackendCredentials {
  // Import the signing key now, so the first exchange or JWKS request does not wait for it.
  void provider.current.jwk().catch(() => undefined);
  return new BackendCredentials({
    provider,
    exchange: deps.tokenExchange ?? stsTokenExchange(),
    now,
    log: deps.log,
    metrics: deps.metrics,
    sessionDurationSeconds: config.settings.oidcSessionDurationSeconds,
    refreshAheadSeconds: config.settings.oidcRefreshAheadSeconds,
  });
}

export type { Identity };
