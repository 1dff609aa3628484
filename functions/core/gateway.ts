import { isAllowed, isAllowedSomewhere } from './authorization';
import { S3Store } from './backends/s3';
import type { ObjectStore } from './backends/store';
import type { Action, Bucket, Config, StaticKeys } from './config/types';
import { S3Error, accessDenied, notImplemented } from './errors';
import type { BackendClient, Dispatch, ProxyRequest, ProxyResponse } from './http';
import { authenticate, type Identity, type SessionUnsealer } from './identity';
import { validateKey } from './keys';
import { bucketLocation, headBucket, listBuckets } from './operations/buckets';
import type { BucketContext, RequestContext } from './operations/context';
import { getObject } from './operations/get-object';
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
import { Query } from './query';
import { errorResponse } from './responses';
import { routeS3, type BucketOperation } from './routing';

export interface GatewayDeps {
  /** Executes backend requests whose answer the core reads itself (listings, copies, multipart control). */
  readonly client: BackendClient;
  /** Milliseconds since the epoch; injected so tests can freeze the clock. */
  readonly now?: () => number;
  /** Unseals STS session tokens; without it, requests carrying one are refused. */
  readonly unseal?: SessionUnsealer;
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

  constructor(
    readonly config: Config,
    private readonly deps: GatewayDeps,
  ) {
    this.now = deps.now ?? Date.now;
    this.createdAt = new Date(this.now()).toISOString();
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
    return errorResponse(err, request.requestId, request.method, request.rawPath);
  }

  private async dispatch(request: ProxyRequest): Promise<Dispatch> {
    const query = new Query(request.rawQuery);
    const operation = routeS3(request.method, request.rawPath, query, request.headers);
    const identity = await authenticate(request, this.config, this.now(), this.deps.unseal);
    const ctx: RequestContext = { request, query, identity, config: this.config, requestId: request.requestId, signal: request.signal };
    if (operation.name === 'ListBuckets') {
      if (identity.principal.type === 'anonymous') throw accessDenied();
      return respond(listBuckets(this.config, request.requestId, this.createdAt));
    }
    const bucket = this.config.buckets.get(operation.bucket);
    if (!bucket) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: operation.bucket });
    if ('key' in operation) validateKey(operation.key);
    const store = this.stores.get(bucket.name) as ObjectStore;
    return this.run(operation, { ...ctx, bucket, store });
  }

  private async run(op: BucketOperation, ctx: BucketContext): Promise<Dispatch> {
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

  private createStore(bucket: Bucket, client: BackendClient): ObjectStore {
    const backend = bucket.backend;
    if (backend.type !== 's3') throw new Error(`Backend type ${backend.type} is not available yet`);
    const auth = backend.auth;
    const credentials = async (): Promise<StaticKeys | undefined> => {
      if (auth.type === 'static') return auth.keys;
      if (auth.type === 'anonymous') return undefined;
      throw notImplemented('OIDC backend authentication');
    };
    return new S3Store(backend, { client, now: this.now, credentials });
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
