import { authorize, authorizeInBucket, namesEtag, type Authorizable } from '../auth/authorize';
import type { SessionUnsealer } from '../auth/identity';
import type { BucketContext } from '../context';
import type { Dispatch, ProxyResponse } from '../http';
import type { BucketOperation } from '../routing';
import type { ListTokens } from '../listing/token';

/** What operations share beyond their request: made once per Gateway. */
export interface S3Services {
  /** Seals the store markers inside listing tokens. */
  readonly listTokens: ListTokens;
  /** The clock (milliseconds), for what an operation authenticates itself: a form upload's policy. */
  readonly now?: () => number;
  /** Unseals the session token a form upload's policy may be signed with. */
  readonly unseal?: SessionUnsealer;
}

/** The routed operation named `N` (routing groups some names into one shape; this picks the shape apart). */
export type OperationOf<N extends BucketOperation['name']> = N extends BucketOperation['name']
  ? { [K in keyof ShapeOf<N>]: K extends 'name' ? N : ShapeOf<N>[K] }
  : never;
type ShapeOf<N> = BucketOperation extends infer O ? (O extends { readonly name: infer M } ? (N extends M ? O : never) : never) : never;

/**
 * One S3 operation on one virtual bucket, whole: it has the request authorized (core/auth decides), then
 * builds the dispatch. The table in operations/index.ts holds one per operation name.
 */
export type Handler<N extends BucketOperation['name']> = (op: OperationOf<N>, ctx: BucketContext, services: S3Services) => Promise<Dispatch>;

/** Has `op` on `key` in the request's bucket authorized: 403 AccessDenied unless core/auth allows it. */
export function authorizeKey(ctx: BucketContext, op: Authorizable, key: string): void {
  authorize(ctx.identity, op, { bucket: ctx.bucket, key });
}

/**
 * Has a write or delete `op` on `key` authorized, with `get_object` as well when its `If-Match` names an ETag
 * (authorize.ts `comparesEtag`).
 */
export function authorizeConditionalKey(ctx: BucketContext, op: Authorizable, key: string): void {
  authorizeKey(ctx, { name: op.name, versionId: op.versionId, comparesEtag: namesEtag(ctx.request.headers.get('if-match')) }, key);
}

/** Has `op` somewhere in the request's bucket authorized (bucket-level operations). */
export function authorizeBucket(ctx: BucketContext, op: Authorizable): void {
  authorizeInBucket(ctx.identity, op, ctx.bucket);
}

/** The dispatch of a response the core built whole. */
export function respond(response: ProxyResponse): Dispatch {
  return { kind: 'response', response };
}
