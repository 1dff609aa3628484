import type { GcsBackend } from '../config/types';
import type { Forward } from '../http';
import { GcsJsonApi } from './gcs/json-api';
import { GcsXmlApi } from './gcs/xml-api';
import { refuseUnsupportedFeatures } from './translate';
import type { BackendCall, ListPage, ListParams, ObjectRequest, ObjectStore, StoreDeps } from './store';

/**
 * A Google Cloud Storage bucket as a virtual bucket. Real GCS is spoken to through the XML API with V4
 * signed URLs (`gcs/xml-api.ts`); `api = "json"` selects the unsigned JSON API for emulators that have no
 * XML API (`gcs/json-api.ts`). Both answer in S3's terms.
 */
export class GcsStore implements ObjectStore {
  private readonly api: GcsXmlApi | GcsJsonApi;

  constructor(backend: GcsBackend, deps: StoreDeps) {
    this.api = backend.api === 'json' ? new GcsJsonApi(backend, deps) : new GcsXmlApi(backend, deps);
  }

  async forwardObject(request: ObjectRequest): Promise<Forward> {
    refuseUnsupportedFeatures(request);
    return this.api.forwardObject(request);
  }

  list(params: ListParams, call?: BackendCall): Promise<ListPage> {
    return this.api.list(params, call);
  }
}
