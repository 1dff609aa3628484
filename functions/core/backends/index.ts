import type { BackendConfig } from '../config/types';
import { AzureStore } from './azure';
import { GcsStore } from './gcs';
import { S3Store } from './s3';
import type { ObjectStore, StoreDeps } from './store';

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
