import type { BackendConfig, Bucket, S3Backend, StaticKeys } from '../config/types';
import { S3Error } from '../errors';
import type { BackendClient } from '../http';
import { tracedRequest } from '../observability/trace';
import { AzureStore } from './azure';
import { GcsStore } from './gcs';
import { S3Store } from './s3';
import type { ObjectStore, StoreClient, StoreDeps } from './store';

/**
 * One store factory per backend type: adding a backend means adding its module and one line here. The
 * mapped type makes a missing entry a compile error.
 */
type StoreFactories = {
  readonly [T in BackendConfig['type']]: (backend: Extract<BackendConfig, { type: T }>, deps: StoreDeps) => ObjectStore;
};

export const STORE_FACTORIES: StoreFactories = {
  s3: (backend, deps) => new S3Store(backend, deps),
  azure: (backend, deps) => new AzureStore(backend, deps),
  gcs: (backend, deps) => new GcsStore(backend, deps),
};

export function createStore(backend: BackendConfig, deps: StoreDeps): ObjectStore {
  const factory = STORE_FACTORIES[backend.type] as (backend: BackendConfig, deps: StoreDeps) => ObjectStore;
  return factory(backend, deps);
}

/** Where an S3 bucket's backend requests get their signing keys: static, unsigned, or exchanged (OIDC). */
export type S3CredentialSource = (bucket: string, backend: S3Backend) => () => Promise<StaticKeys | undefined>;

export interface StoresDeps {
  /** Executes every backend request the stores send, with its call's trace; transport failures become 503 or 504. */
  readonly client: BackendClient;
  readonly now: () => number;
  readonly s3Credentials: S3CredentialSource;
}

/** One store per virtual bucket. Azure and GCS stores sign with the static keys in their own configuration. */
export function createStores(buckets: Iterable<Bucket>, deps: StoresDeps): ReadonlyMap<string, ObjectStore> {
  const client = storeClient(deps.client);
  const unsigned = async (): Promise<undefined> => undefined;
  const stores = new Map<string, ObjectStore>();
  for (const bucket of buckets) {
    const backend = bucket.backend;
    const credentials = backend.type === 's3' ? deps.s3Credentials(bucket.name, backend) : unsigned;
    stores.set(bucket.name, createStore(backend, { client, now: deps.now, credentials }));
  }
  return stores;
}

/**
 * The stores' client over the runtime's: a call's trace is stamped on the signed request (as the dispatch
 * loop does for a Forward), and transport failures become 503 (unreachable) or 504 (timed out) instead of
 * internal errors.
 */
function storeClient(client: BackendClient): StoreClient {
  return async (request, call) => {
    const signal = call?.signal;
    const trace = call?.trace;
    try {
      return await client(trace === undefined ? request : tracedRequest(request, trace), signal);
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
