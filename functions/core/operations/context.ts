import type { Bucket, Config } from '../config/types';
import type { ObjectStore } from '../backends/store';
import type { Identity } from '../identity';
import type { ProxyRequest } from '../http';
import type { Query } from '../query';

/** Everything an operation handler needs about the request in hand. */
export interface RequestContext {
  readonly request: ProxyRequest;
  readonly query: Query;
  readonly identity: Identity;
  readonly config: Config;
  readonly requestId: string;
}

/** A request aimed at one virtual bucket, with its store. */
export interface BucketContext extends RequestContext {
  readonly bucket: Bucket;
  readonly store: ObjectStore;
}
