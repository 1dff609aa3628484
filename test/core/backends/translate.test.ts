import { DELETE_CONCURRENCY, deleteEach } from '../../../functions/core/backends/translate';
import type { DeleteBatch, DeleteEntry, ObjectRequest, ObjectStore, StoreClient } from '../../../functions/core/backends/store';
import { S3Error } from '../../../functions/core/errors';
import type { BackendRequest } from '../../../functions/core/http';
import { errorResponse } from '../../../functions/core/responses';

/**
 * DeleteObjects on stores without a batch call (Azure, GCS): each entry is the store's own DeleteObject,
 * a bounded number at once. The store here answers from a table by key; its Forwards are sent by the client
 * given, as the store's own client sends them.
 */
const batch = (entries: DeleteEntry[]): DeleteBatch => ({ entries, quiet: false, headers: {}, checksums: [], requestId: 'r1', resource: '/b?delete' });

/** A store whose DeleteObject of a key throws `throws[key]`, or is a Forward reading the client's status. */
function tableStore(throws: Record<string, S3Error>, asked: ObjectRequest[]): ObjectStore {
  return {
    list: () => Promise.reject(new Error('unused')),
    deleteObjects: () => Promise.reject(new Error('unused')),
    forwardObject: async (request) => {
      asked.push(request);
      const thrown = throws[request.key];
      if (thrown !== undefined) throw thrown;
      return {
        kind: 'forward',
        request: { method: 'DELETE', url: `http://store.test/${encodeURIComponent(request.key)}`, headers: {}, body: null },
        respond: (status) => (status < 300 ? { status: 204, headers: {} } : errorResponse(new S3Error(status === 412 ? 'PreconditionFailed' : 'SlowDown', 'x'), 'r1', 'DELETE', '/')),
      };
    },
  };
}

/** A client answering each key's status after a tick, counting how many requests are in flight at once. */
function slowClient(statuses: Record<string, number>, sent: BackendRequest[], inFlight: { now: number; max: number }): StoreClient {
  return async (request) => {
    sent.push(request);
    inFlight.now++;
    inFlight.max = Math.max(inFlight.max, inFlight.now);
    await new Promise((resolve) => setTimeout(resolve, 2));
    inFlight.now--;
    const key = decodeURIComponent(request.url.slice('http://store.test/'.length));
    return { status: statuses[key] ?? 204, headers: new Headers(), body: null };
  };
}

describe('deleteEach: DeleteObjects key by key', () => {
  it(`GIVEN 40 keys THEN at most ${DELETE_CONCURRENCY} deletes are in flight at once, and every key is reported in the request's order`, async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `k/${i}`);
    const asked: ObjectRequest[] = [];
    const sent: BackendRequest[] = [];
    const inFlight = { now: 0, max: 0 };
    const out = await deleteEach(tableStore({}, asked), slowClient({}, sent, inFlight), batch(keys.map((key) => ({ key }))));
    expect(inFlight.max).toBe(DELETE_CONCURRENCY);
    expect(sent).toHaveLength(40);
    expect(out).toEqual({ deleted: keys.map((Key) => ({ Key })), errors: [] });
  });

  it('GIVEN an ETag THEN it is the DeleteObject\'s If-Match; GIVEN the store\'s error answer or refusal THEN that key\'s Error entry', async () => {
    const asked: ObjectRequest[] = [];
    const statuses = { stale: 412, busy: 503 };
    const throws = { 'no\\such': new S3Error('InvalidArgument', 'An Azure backend cannot store a key holding "\\"') };
    const out = await deleteEach(
      tableStore(throws, asked),
      slowClient(statuses, [], { now: 0, max: 0 }),
      batch([{ key: 'ok', etag: '"e1"' }, { key: 'stale', etag: '"e2"' }, { key: 'busy' }, { key: 'no\\such' }]),
    );
    expect(asked.map((r) => [r.method, r.key, r.headers])).toEqual([
      ['DELETE', 'ok', { 'if-match': '"e1"' }],
      ['DELETE', 'stale', { 'if-match': '"e2"' }],
      ['DELETE', 'busy', {}],
      ['DELETE', 'no\\such', {}],
    ]);
    expect(out.deleted).toEqual([{ Key: 'ok' }]);
    expect(out.errors.map((e) => [e.Key, e.Code])).toEqual([['stale', 'PreconditionFailed'], ['busy', 'SlowDown'], ['no\\such', 'InvalidArgument']]);
  });

  it('GIVEN an entry naming a version THEN NotImplemented for it alone, and nothing is asked of the store for it', async () => {
    const asked: ObjectRequest[] = [];
    const out = await deleteEach(tableStore({}, asked), slowClient({}, [], { now: 0, max: 0 }), batch([{ key: 'a', versionId: 'v1' }, { key: 'b' }]));
    expect(asked.map((r) => r.key)).toEqual(['b']);
    expect(out.deleted).toEqual([{ Key: 'b' }]);
    expect(out.errors).toEqual([{ Key: 'a', VersionId: 'v1', Code: 'NotImplemented', Message: 'Version-scoped deletes on this backend is not implemented by this gateway' }]);
  });

  it('GIVEN the client request is abandoned THEN the whole batch fails rather than reporting keys it never tried', async () => {
    const failing: StoreClient = async () => {
      throw new DOMException('aborted', 'AbortError');
    };
    await expect(deleteEach(tableStore({}, []), failing, batch([{ key: 'a' }]))).rejects.toThrow('aborted');
  });
});
