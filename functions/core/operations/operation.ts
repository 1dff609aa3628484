import type { Access } from '../auth/authorize';
import type { SessionUnsealer } from '../auth/identity';
import type { BucketContext } from '../context';
import type { Dispatch, ProxyResponse } from '../http';
import type { BucketOperation } from '../routing';
import type { ListTokens } from '../listing/token';
import type { UploadIds } from './upload-id';

/** What operations share beyond their request: made once per Gateway. */
export interface S3Services {
  /** Seals the store markers inside listing tokens. */
  readonly listTokens: ListTokens;
  /** Seals the upload ids of multipart uploads the gateway carries out itself (stores with `multipart`). */
  readonly uploadIds: UploadIds;
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
 * One S3 operation on one virtual bucket, already authorized by the dispatcher from its row of the operation
 * table (operations/table.ts): it builds the dispatch, asking core/auth again (with `access`, its row's) only
 * for what the row cannot say.
 */
export type Handler<N extends BucketOperation['name']> = (op: OperationOf<N>, ctx: BucketContext, services: S3Services, access: Access) => Promise<Dispatch>;

/** The dispatch of a response the core built whole. */
export function respond(response: ProxyResponse): Dispatch {
  return { kind: 'response', response };
}
