import type { GcsBackend } from '../config/types';
import { notImplemented } from '../errors';
import type { Forward } from '../http';
import { GcsJsonApi } from './gcs/json-api';
import { GcsXmlApi } from './gcs/xml-api';
import { deleteEach, refuseUnsupportedFeatures } from './translate';
import type { BackendCall, CopyRequest, CopyResult, DeleteBatch, DeleteOutcome, ListPage, ListParams, ObjectRequest, ObjectStore, StoreDeps } from './store';

/**
 * A Google Cloud Storage bucket as a virtual bucket. Real GCS is spoken to through the XML API with V4
 * signed URLs (`gcs/xml-api.ts`); `api = "json"` selects the unsigned JSON API for emulators that have no
 * XML API (`gcs/json-api.ts`). Both answer in S3's terms.
 */
export class GcsStore implements ObjectStore {
  private readonly api: GcsXmlApi | GcsJsonApi;

  constructor(
    private readonly backend: GcsBackend,
    private readonly deps: StoreDeps,
  ) {
    this.api = backend.api === 'json' ? new GcsJsonApi(backend, deps) : new GcsXmlApi(backend, deps);
  }

  async forwardObject(request: ObjectRequest): Promise<Forward> {
    refuseUnsupportedFeatures(request);
    return this.api.forwardObject(request);
  }

  list(params: ListParams, call?: BackendCall): Promise<ListPage> {
    return this.api.list(params, call);
  }

  /**
   * Key by key, each as its DeleteObject: the emulator has no batch, and the XML API's multi-object delete
   * is new on GCS (older GCS refused it) and takes no conditions.
   */
  deleteObjects(batch: DeleteBatch, call?: BackendCall): Promise<DeleteOutcome> {
    return deleteEach(this, this.deps.client, batch, call);
  }

  /**
   * CopyObject within one GCS endpoint and API, signed (on the XML API) by the same service account, which
   * must be able to read the source: anything else is NotImplemented.
   */
  async copyObject(request: CopyRequest, call?: BackendCall): Promise<CopyResult> {
    const from = request.source.backend;
    const sameAccount = (a?: GcsBackend['serviceAccount'], b?: GcsBackend['serviceAccount']): boolean => a?.clientEmail === b?.clientEmail;
    if (from.type !== 'gcs' || from.endpoint !== this.backend.endpoint || from.api !== this.backend.api || !sameAccount(from.serviceAccount, this.backend.serviceAccount)) {
      throw notImplemented('CopyObject from another store, GCS endpoint or service account');
    }
    if (this.api instanceof GcsJsonApi) return this.api.copy(request, from === this.backend ? this.api : new GcsJsonApi(from, this.deps), call);
    return this.api.copy(request, from, call);
  }
}
