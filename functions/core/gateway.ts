import { isAllowed, isAllowedSomewhere } from './authorization';
import { createStore } from './backends';
import { useNativeCrc32, type NativeCrc32 } from './checksums';
import type { ObjectStore } from './backends/store';
import { ConfigError } from './config/parse';
import type { Action, Bucket, Config, S3Backend, S3BackendAuth, StaticKeys } from './config/types';
import { S3Error, accessDenied, notImplemented } from './errors';
import type { BackendClient, Dispatch, ProxyRequest, ProxyResponse } from './http';
import { authenticate, type Identity, type SessionUnsealer } from './identity';
import { validateKey } from './keys';
import type { Log } from './log';
import { BackendCredentials } from './oidc/backend-credentials';
import { discoveryResponse } from './oidc/discovery';
import { stsTokenExchange, type TokenExchange } from './oidc/exchange';
import { readIdentityProvider, type IdentityProvider } from './oidc/provider-key';
import { bucketLocation, headBucket, listBuckets } from './operations/buckets';
import { type BucketContext, inBucket, type RequestContext } from './operations/context';
import { getObject } from './operations/get-object';
import { listMapped } from './operations/list-mapped';
import { listObjects, listParams } from './operations/list-objects';
import { abortMultipartUpload } from './operations/abort-multipart-upload';
import { completeMultipartUpload } from './operations/complete-multipart-upload';
import { copyObject, parseCopySource } from './operations/copy-object';
import { createMultipartUpload } from './operations/create-multipart-upload';
import { deleteObject } from './operations/delete-object';
import { deleteObjects } from './operations/delete-objects';
import { listMultipartUploads, listUploadsParams } from './operations/list-multipart-uploads';
import { listParts } from './operations/list-parts';
import { uploadPart } from './operations/upload-part';
import { putObject } from './operations/put-object';
import { PathMapper, prefixLevelUnsupported, type MappedOperation } from './path-mapping';
import { Query } from './query';
import { errorResponse } from './responses';
import { routeS3, type BucketOperation } from './routing';
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
}

/**
 * The runtime-agnostic core: one request in, one dispatch out. Built once per process (or cold start) from a
 * validated configuration; adapters call `handle` and execute what it returns.
 */
export class Gateway {
  private readonly stores = new Map<string, ObjectStore>();
  private readonly now: () => number;
  /** Virtual buckets exist from the moment the configuration is loaded. */
  private readonly createdAt: string;
  /** The gateway as an OIDC identity provider, when OIDC_PROVIDER_KEY and OIDC_PROVIDER_ISSUER are set. */
  private readonly identityProvider?: IdentityProvider;
  private readonly backendCredentials?: BackendCredentials;
  private readonly unseal?: SessionUnsealer;
  /** The STS endpoint, with its JWKS cache: one per Gateway, so per process or cold start. */
  private readonly sts: StsService;
  /** Client paths to virtual buckets, when the deployment has `[path_mapping]`. */
  private readonly paths?: PathMapper;

  /** @throws ConfigError when the identity provider's key or certificate is unusable. */
  constructor(
    readonly config: Config,
    deps: GatewayDeps,
  ) {
    this.now = deps.now ?? Date.now;
    if (deps.crc32) useNativeCrc32(deps.crc32);
    this.createdAt = new Date(this.now()).toISOString();
    this.identityProvider = readIdentityProvider(config.settings);
    if (this.identityProvider) {
      // Import the signing key now, so the first exchange or JWKS request does not wait for it.
      void this.identityProvider.current.jwk().catch(() => undefined);
      this.backendCredentials = new BackendCredentials({
        provider: this.identityProvider,
        exchange: deps.tokenExchange ?? stsTokenExchange(),
        now: this.now,
        log: deps.log,
        sessionDurationSeconds: config.settings.oidcSessionDurationSeconds,
        refreshAheadSeconds: config.settings.oidcRefreshAheadSeconds,
      });
    }
    const key = config.settings.sessionTokenKey;
    this.unseal = deps.unseal ?? (key ? sessionUnsealer(key) : undefined);
    this.sts = new StsService(config, { client: deps.client, now: this.now, unseal: this.unseal });
    if (config.pathMapping) this.paths = new PathMapper(config.pathMapping, config.buckets);
    const client = guardClient(deps.client);
    for (const bucket of config.buckets.values()) this.stores.set(bucket.name, this.createStore(bucket, client));
  }

  /** Never throws: every failure becomes the S3 error response for the request. */
  async handle(request: ProxyRequest): Promise<Dispatch> {
    try {
      return await this.dispatch(request);
    } catch (err) {
      return { kind: 'response', response: this.failure(err, request) };
    }
  }

  /** The error response for a failure, including ones an adapter meets while executing a Forward. */
  failure(err: unknown, request: ProxyRequest): ProxyResponse {
    if (err instanceof StsError) return stsErrorResponse(err, request.requestId);
    return errorResponse(err, request.requestId, request.method, request.rawPath);
  }

  private async dispatch(request: ProxyRequest): Promise<Dispatch> {
    if (this.identityProvider) {
      const discovery = await discoveryResponse(this.identityProvider, request);
      if (discovery) return respond(discovery);
    }
    const query = new Query(request.rawQuery);
    // STS before S3: its paths (`/`, `/sts/`) would otherwise route as ListBuckets or a bucket named `sts`.
    // A form that turns out not to be STS reaches S3 from inside a NeedsBody, where nothing else catches.
    const toS3 = (replayed: ProxyRequest): Promise<Dispatch> =>
      this.dispatchS3(replayed, query).catch((err: unknown) => respond(this.failure(err, replayed)));
    return this.sts.dispatch(request, query, toS3) ?? this.dispatchS3(request, query);
  }

  private async dispatchS3(request: ProxyRequest, query: Query): Promise<Dispatch> {
    const routed = routeS3(request.method, request.rawPath, query, request.headers);
    const identity = await authenticate(request, this.config, this.now(), this.unseal);
    const ctx: RequestContext = { request, query, identity, config: this.config, requestId: request.requestId };
    // Path mapping rewrites the routed operation only: the signature above was verified over what was sent.
    const mapped = this.paths?.map(routed);
    if (mapped?.level === 'prefix') return this.runPrefixLevel(mapped, ctx);
    const operation = mapped?.level === 'bucket' ? mapped.operation : routed;
    if (operation.name === 'ListBuckets') {
      if (identity.principal.type === 'anonymous') throw accessDenied();
      const names = mapped?.level === 'root' ? mapped.names : [...this.config.buckets.keys()];
      return respond(listBuckets(names, request.requestId, this.createdAt));
    }
    const bucket = this.config.buckets.get(operation.bucket);
    if (!bucket) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: operation.bucket });
    if ('key' in operation) validateKey(operation.key);
    const store = this.stores.get(bucket.name) as ObjectStore;
    return this.run(operation, inBucket(ctx, bucket, store));
  }

  private async run(op: BucketOperation, ctx: BucketContext): Promise<Dispatch> {
    if (S3_ONLY_OPERATIONS.has(op.name) && ctx.bucket.backend.type !== 's3') {
      // Authorized first, so an anonymous caller still learns nothing but AccessDenied.
      if ('key' in op) authorize(ctx, ACTION_OF[op.name], op.key);
      else authorizeBucket(ctx, ACTION_OF[op.name]);
      throw notImplemented(`${op.name} on a ${ctx.bucket.backend.type} backend`);
    }
    switch (op.name) {
      case 'GetObject':
      case 'HeadObject': {
        if (op.versionId !== undefined && ctx.bucket.backend.type !== 's3') throw notImplemented('Version-scoped reads on this backend');
        const action: Action = op.versionId !== undefined ? 'get_object_version' : op.name === 'GetObject' ? 'get_object' : 'head_object';
        authorize(ctx, action, op.key);
        return getObject(ctx, op.name === 'GetObject' ? 'GET' : 'HEAD', op.key);
      }
      case 'ListObjects': {
        const params = listParams(ctx, op.version);
        authorize(ctx, 'list_bucket', params.prefix);
        const principal = ctx.identity.principal;
        const scopes = principal.type === 'key' ? principal.scopes : undefined;
        return respond(await listObjects(ctx, op.version, params, scopes));
      }
      case 'PutObject':
        authorize(ctx, 'put_object', op.key);
        return putObject(ctx, op.key);
      case 'DeleteObject':
        authorize(ctx, 'delete_object', op.key);
        return deleteObject(ctx, op.key);
      case 'CopyObject':
        return respond(await this.copy(ctx, op.key, op.copySource));
      case 'DeleteObjects': {
        // Stage one: the caller may delete somewhere in the bucket; stage two is per key (spec rule 1).
        const principal = ctx.identity.principal;
        if (principal.type === 'anonymous') throw accessDenied();
        authorizeBucket(ctx, ACTION_OF[op.name]);
        return deleteObjects(ctx, (key) => isAllowed(principal.scopes, ctx.bucket.name, 'delete_object', key));
      }
      case 'CreateMultipartUpload':
        authorize(ctx, ACTION_OF[op.name], op.key);
        return respond(await createMultipartUpload(ctx, op.key));
      case 'UploadPart':
        authorize(ctx, ACTION_OF[op.name], op.key);
        return uploadPart(ctx, op.key, op.uploadId, op.partNumber);
      case 'CompleteMultipartUpload':
        authorize(ctx, ACTION_OF[op.name], op.key);
        return completeMultipartUpload(ctx, op.key, op.uploadId);
      case 'AbortMultipartUpload':
        authorize(ctx, ACTION_OF[op.name], op.key);
        return abortMultipartUpload(ctx, op.key, op.uploadId);
      case 'ListParts':
        // Uploads in progress are not part of the anonymous ListBucket grant.
        if (ctx.identity.principal.type === 'anonymous') throw accessDenied();
        authorize(ctx, 'list_bucket', op.key);
        return respond(await listParts(ctx, op.key, op.uploadId));
      case 'ListMultipartUploads': {
        const principal = ctx.identity.principal;
        if (principal.type === 'anonymous') throw accessDenied();
        const params = listUploadsParams(ctx);
        authorize(ctx, 'list_bucket', params.prefix);
        return respond(await listMultipartUploads(ctx, params, principal.scopes));
      }
      case 'HeadBucket':
      case 'GetBucketLocation':
        authorizeBucket(ctx, 'list_bucket');
        return respond(op.name === 'HeadBucket' ? headBucket(ctx.requestId) : bucketLocation(ctx.requestId));
      default: {
        const unrouted: never = op;
        throw notImplemented((unrouted as BucketOperation).name);
      }
    }
  }

  /**
   * CopyObject (spec rules 4-5): the source is a read (`get_object_version` when it names a version; never
   * anonymous), the destination a write; an unknown source bucket is NoSuchBucket.
   */
  private async copy(ctx: BucketContext, key: string, copySource: string): Promise<ProxyResponse> {
    if (ctx.identity.principal.type === 'anonymous') throw accessDenied();
    const source = parseCopySource(copySource);
    const sourceBucket = this.config.buckets.get(source.bucket);
    if (!sourceBucket) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: source.bucket });
    authorize({ ...ctx, bucket: sourceBucket }, source.versionId === undefined ? 'get_object' : 'get_object_version', source.key);
    authorize(ctx, 'put_object', key);
    return copyObject(ctx, key, source, sourceBucket);
  }

  /**
   * An operation on a client-level bucket of a path-mapped deployment (`/{account}`): listings span its
   * mapped buckets; the caller must be able to list at least one of them.
   */
  private async runPrefixLevel(mapped: Extract<MappedOperation, { level: 'prefix' }>, ctx: RequestContext): Promise<Dispatch> {
    const children = mapped.children.map((child) => {
      const childCtx = inBucket(ctx, child.bucket, this.stores.get(child.bucket.name) as ObjectStore);
      return { path: child.path, ctx: childCtx, visible: mayList(childCtx) };
    });
    if (!children.some((child) => child.visible)) throw accessDenied();
    const op = mapped.operation;
    switch (op.name) {
      case 'ListObjects': {
        const principal = ctx.identity.principal;
        const access = { authorize: (child: (typeof children)[number], prefix: string) => authorize(child.ctx, 'list_bucket', prefix), scopes: principal.type === 'key' ? principal.scopes : undefined };
        return respond(await listMapped(ctx, mapped.name, listParams(ctx, op.version), children, access));
      }
      case 'HeadBucket':
        return respond(headBucket(ctx.requestId));
      case 'GetBucketLocation':
        return respond(bucketLocation(ctx.requestId));
      default:
        throw prefixLevelUnsupported(op);
    }
  }

  private createStore(bucket: Bucket, client: BackendClient): ObjectStore {
    const backend = bucket.backend;
    // Azure and GCS stores sign with the static credentials in their own configuration.
    const credentials = backend.type === 's3' ? this.s3Credentials(bucket.name, backend) : async (): Promise<undefined> => undefined;
    return createStore(backend, { client, now: this.now, credentials });
  }

  private s3Credentials(bucket: string, backend: S3Backend): () => Promise<StaticKeys | undefined> {
    const auth = backend.auth;
    if (auth.type === 'oidc') return this.federatedCredentials(bucket, backend, auth);
    return async () => (auth.type === 'static' ? auth.keys : undefined);
  }

  /** Credentials exchanged per request at the bucket's token service (cached): every signed request uses them. */
  private federatedCredentials(bucket: string, backend: S3Backend, auth: Extract<S3BackendAuth, { type: 'oidc' }>): () => Promise<StaticKeys> {
    const source = this.backendCredentials;
    if (source === undefined) {
      throw new ConfigError([`[[buckets]] "${bucket}": backend_options.auth_type "oidc" needs OIDC_PROVIDER_KEY and OIDC_PROVIDER_ISSUER in the environment`]);
    }
    const target = { bucket, roleArn: auth.roleArn, subject: auth.subject, audience: auth.audience, stsEndpoint: auth.stsEndpoint, region: backend.region };
    return () => source.get(target);
  }
}

/** The action each operation is authorized as (reads with a versionId are get_object_version). */
const ACTION_OF: Record<BucketOperation['name'], Action> = {
  GetObject: 'get_object',
  HeadObject: 'head_object',
  ListObjects: 'list_bucket',
  HeadBucket: 'list_bucket',
  GetBucketLocation: 'list_bucket',
  ListMultipartUploads: 'list_bucket',
  ListParts: 'list_bucket',
  PutObject: 'put_object',
  CopyObject: 'put_object',
  DeleteObject: 'delete_object',
  DeleteObjects: 'delete_object',
  CreateMultipartUpload: 'create_multipart_upload',
  UploadPart: 'upload_part',
  CompleteMultipartUpload: 'complete_multipart_upload',
  AbortMultipartUpload: 'abort_multipart_upload',
};

/** Copy, multipart and batch delete speak S3's own protocol to the backend: S3 backends only (spec). */
const S3_ONLY_OPERATIONS: ReadonlySet<BucketOperation['name']> = new Set([
  'CopyObject', 'DeleteObjects', 'CreateMultipartUpload', 'UploadPart', 'CompleteMultipartUpload',
  'AbortMultipartUpload', 'ListParts', 'ListMultipartUploads',
]);

const ANONYMOUS_ACTIONS: readonly Action[] = ['get_object', 'head_object', 'list_bucket'];

/** Where a request is authorized: anonymous callers by the bucket's flag, signed callers by their scopes. */
function authorize(ctx: BucketContext, action: Action, key: string): void {
  const principal = ctx.identity.principal;
  if (principal.type === 'anonymous') {
    if (ctx.bucket.anonymousAccess && ANONYMOUS_ACTIONS.includes(action)) return;
    throw accessDenied();
  }
  if (!isAllowed(principal.scopes, ctx.bucket.name, action, key)) {
    throw accessDenied(`Access Denied: ${principal.name} may not ${action} on ${ctx.bucket.name}/${key}`);
  }
}

/** Whether the caller may list somewhere in the bucket (anonymous: the bucket allows it). */
function mayList(ctx: BucketContext): boolean {
  const principal = ctx.identity.principal;
  return principal.type === 'anonymous' ? ctx.bucket.anonymousAccess : isAllowedSomewhere(principal.scopes, ctx.bucket.name, 'list_bucket');
}

function authorizeBucket(ctx: BucketContext, action: Action): void {
  const principal = ctx.identity.principal;
  if (principal.type === 'anonymous' ? ctx.bucket.anonymousAccess : isAllowedSomewhere(principal.scopes, ctx.bucket.name, action)) return;
  throw accessDenied();
}

function respond(response: ProxyResponse): Dispatch {
  return { kind: 'response', response };
}

/** Backend transport failures become 503 (unreachable) or 504 (timed out) instead of internal errors. */
function guardClient(client: BackendClient): BackendClient {
  return async (request, signal) => {
    try {
      return await client(request, signal);
    } catch (err) {
      if (err instanceof S3Error) throw err;
      if (signal?.aborted) throw err;
      const timedOut = err instanceof Error && /timed? ?out/i.test(err.message);
      throw timedOut
        ? new S3Error('GatewayTimeout', 'The backend did not answer in time')
        : new S3Error('ServiceUnavailable', 'The backend is unreachable');
    }
  };
}

export type { Identity };
