/**
 * The S3 API, and where every S3 request is authorized: it is authenticated first (so nothing the signature
 * leaves out can decide the operation), then routed, path-mapped, aimed at its virtual bucket, authorized
 * from its row of the operation table (operations/table.ts, `authorizeRow`), and only then handed to its
 * handler.
 */
import { pathStylePath, type Addressing } from './addressing';
import { authenticate, type SessionUnsealer } from './auth/identity';
import { authorize, authorizeListBuckets, isAuthorized, neededActions, type Access } from './auth/authorize';
import { withHoistedHeaders } from './auth/hoisted-headers';
import type { ObjectStore } from './backends/store';
import type { Bucket, Config } from './config/types';
import { inBucket, type BucketContext, type RequestContext } from './context';
import { S3Error } from './errors';
import type { Dispatch, ProxyRequest } from './http';
import { validateKey } from './keys';
import { callerOf, type RequestRecord } from './observability/record';
import { OPERATIONS, runOperation, type S3Services } from './operations';
import { createBucketRefusal, listBuckets } from './operations/buckets';
import { accountLevel } from './listing/mapped';
import { respond } from './operations/operation';
import { PathMapper } from './path-mapping';
import type { Query } from './query';
import { routeS3, type BucketOperation, type Operation } from './routing';

export interface S3ApiDeps {
  readonly config: Config;
  readonly stores: ReadonlyMap<string, ObjectStore>;
  readonly services: S3Services;
  readonly now: () => number;
  readonly unseal?: SessionUnsealer;
  /** When the virtual buckets came into being (ListBuckets' CreationDate). */
  readonly createdAt: string;
}

export class S3Api {
  /** Client paths to virtual buckets, when the deployment has `[path_mapping]`. */
  private readonly paths?: PathMapper;

  constructor(private readonly deps: S3ApiDeps) {
    if (deps.config.pathMapping) this.paths = new PathMapper(deps.config.pathMapping, deps.config.buckets);
  }

  /**
   * @param addressing How the Host addresses the bucket: a virtual-hosted request is routed under its bucket.
   * @param record Receives the audit fields (caller, operation, action, bucket, key) as they become known.
   */
  async dispatch(received: ProxyRequest, query: Query, addressing?: Addressing, record?: RequestRecord): Promise<Dispatch> {
    const { config, now, unseal } = this.deps;
    // Signatures cover the path as sent; routing (and SigV2's canonical resource) read it path-style.
    const path = addressing === undefined ? received.rawPath : pathStylePath(received.rawPath, addressing);
    const identity = await authenticate(received, config, now(), unseal, path);
    if (record) record.caller = callerOf(identity.principal);
    // A presigned URL's signed `x-amz-*` query parameters are the headers they stand for.
    const request = withHoistedHeaders(received, identity.info);
    const routed = routeS3(request.method, path, query, request.headers);
    if (routed.name === 'CreateBucket') throw createBucketRefusal(identity, routed.bucket, this.bucketsNamed(routed.bucket));
    if (record) recordOperation(record, routed, request.headers);
    const ctx: RequestContext = { request, query, identity, config, requestId: request.requestId, record };
    // Path mapping rewrites the routed operation only: the signature was verified over what was sent.
    const mapped = this.paths?.map(routed);
    if (mapped?.level === 'prefix') {
      const children = mapped.children.map((child) => ({ path: child.path, ctx: inBucket(ctx, child.bucket, this.storeOf(child.bucket.name)) }));
      return accountLevel(mapped, children, ctx, this.deps.services, OPERATIONS[mapped.operation.name].access);
    }
    const operation = mapped?.level === 'bucket' ? mapped.operation : routed;
    if (record && operation !== routed) recordOperation(record, operation, request.headers);
    if (operation.name === 'ListBuckets') {
      authorizeListBuckets(identity);
      const names = mapped?.level === 'root' ? mapped.names : [...config.buckets.keys()];
      return respond(listBuckets(names, query, request.requestId, this.deps.createdAt));
    }
    const bucket = config.buckets.get(operation.bucket);
    if (record && bucket) {
      record.knownBucket = true;
      record.backendType = bucket.backend.type;
    }
    if (!bucket) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: operation.bucket });
    if ('key' in operation) validateKey(operation.key);
    const inTheBucket = inBucket(ctx, bucket, this.storeOf(bucket.name));
    const access = OPERATIONS[operation.name].access;
    authorizeRow(access, operation, inTheBucket);
    return runOperation(operation, inTheBucket, this.deps.services, access);
  }

  /** The virtual buckets a client's bucket name stands for: one, none, or a path-mapped level's. */
  private bucketsNamed(name: string): readonly Bucket[] {
    if (this.paths) return this.paths.bucketsNamed(name);
    const bucket = this.deps.config.buckets.get(name);
    return bucket ? [bucket] : [];
  }

  private storeOf(bucket: string): ObjectStore {
    return this.deps.stores.get(bucket) as ObjectStore;
  }
}

/**
 * Has `operation` authorized from its row: its action (or its version's) and every extra its headers ask
 * for, on its key, its listing's prefix, or somewhere in its bucket. 403 AccessDenied before the handler
 * runs, so nothing reaches a backend. Handlers check only what no row can say (a copy source, each
 * DeleteObjects entry, a listing's ranges, a form's signer).
 */
function authorizeRow(access: Access, operation: BucketOperation, ctx: BucketContext): void {
  const request = { versionId: versionOf(operation), headers: ctx.request.headers };
  switch (access.on) {
    case 'key':
      return authorize(ctx.identity, access, request, ctx.bucket, 'key' in operation ? operation.key : '');
    case 'prefix':
      return authorize(ctx.identity, access, request, ctx.bucket, ctx.query.get('prefix') ?? '');
    case 'bucket':
      return authorize(ctx.identity, access, request, ctx.bucket);
    case 'entries':
      // Deleting objects or versions somewhere; which of them each entry needs is the handler's to see.
      if (!isAuthorized(ctx.identity, access, { versionId: 'any', headers: request.headers }, ctx.bucket)) authorize(ctx.identity, access, request, ctx.bucket);
      return;
    case 'form':
      // The request is the browser's; its signer is in the form, which the handler reads first.
      return;
  }
}

function versionOf(operation: Operation): string | undefined {
  return 'versionId' in operation ? operation.versionId : undefined;
}

/**
 * The audit fields of a routed operation, from its row: its name, the action it is authorized as, its bucket
 * and key (an object's key, or a listing's prefix).
 */
function recordOperation(record: RequestRecord, operation: Operation, headers: ProxyRequest['headers']): void {
  record.operation = operation.name;
  const access = OPERATIONS[operation.name].access;
  if (access === 'signed caller') record.action = 'list_buckets';
  else if (access !== 'refused') record.action = neededActions(access, { versionId: versionOf(operation), headers })[0].action;
  if (operation.name === 'ListBuckets') return;
  record.bucket = operation.bucket;
  if ('key' in operation) record.key = operation.key;
}
