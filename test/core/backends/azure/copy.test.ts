import { AzureStore } from '../../../../functions/core/backends/azure';
import type { CopyRequest, StoreDeps } from '../../../../functions/core/backends/store';
import type { AzureBackend, BackendConfig } from '../../../../functions/core/config/types';
import { S3Error } from '../../../../functions/core/errors';
import type { BackendRequest } from '../../../../functions/core/http';
import { AZURITE_ACCOUNT, AZURITE_KEY } from '../../../support/azurite';

/**
 * CopyObject onto Copy Blob, and DeleteObjects key by key, as requests: what is sent, in which order, with
 * which headers. A scripted client answers as Azure does; test/e2e/azure.test.ts drives the same against
 * Azurite with real clients.
 */
const ENDPOINT = 'http://azure.test:10000/devstoreaccount1';
const backend = (containerName: string, extra: Partial<AzureBackend> = {}): AzureBackend => ({
  type: 'azure', accountName: AZURITE_ACCOUNT, containerName, accessKey: AZURITE_KEY, endpoint: ENDPOINT, backendPrefix: 'tenant/', ...extra,
});

type Answer = { status: number; headers?: Record<string, string>; body?: string };
const BLOB: Answer = { status: 200, headers: { etag: '"0x8DC1"', 'last-modified': 'Tue, 01 Dec 2026 10:00:00 GMT', 'content-md5': 'AQIDBAUGBwgJCgsMDQ4PEA==', 'content-length': '5' } };
/** The ETag the gateway shows for BLOB: the hex of its Content-MD5 (azure/etag.ts). */
const BLOB_ETAG = '"0102030405060708090a0b0c0d0e0f10"';
/** Get Blob Tags' answer for a blob without tags. */
const NO_TAGS: Answer = { status: 200, body: '<Tags><TagSet/></Tags>' };

/** A store whose client answers in turn (`answers` a list) or by request (a function). */
function storeOf(answers: Answer[] | ((request: BackendRequest) => Answer), seen: BackendRequest[], of = backend('dest')): AzureStore {
  const deps: StoreDeps = {
    now: () => Date.parse('2026-12-01T10:00:00Z'),
    credentials: async () => undefined,
    client: async (request) => {
      seen.push(request);
      const answer = typeof answers === 'function' ? answers(request) : answers.shift() ?? { status: 500 };
      return { status: answer.status, headers: new Headers(answer.headers ?? {}), body: answer.body === undefined ? null : new Response(answer.body).body };
    },
  };
  return new AzureStore(of, deps);
}

const copyOf = (source: BackendConfig, headers: Record<string, string> = {}): CopyRequest => ({ source: { backend: source, key: 'src/a b.txt' }, key: 'dst.txt', headers, requestId: 'r1' });
const shape = (r: BackendRequest): [string, string] => [r.method, r.url.replace(ENDPOINT, '')];
const codeOf = (run: Promise<unknown>): Promise<string | undefined> => run.then(() => undefined, (err: unknown) => (err instanceof S3Error ? err.code : String(err)));

describe('AzureStore.copyObject', () => {
  it('GIVEN COPY THEN the source\'s HEAD and tags, a Copy Blob pinned to its ETag, and the HEAD whose ETag and time the answer gives', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf([BLOB, NO_TAGS, { status: 202, headers: { 'x-ms-copy-status': 'success' } }, { ...BLOB, headers: { ...BLOB.headers, etag: '"0x8DC2"' } }], seen);
    const result = await store.copyObject(copyOf(backend('source'), { 'x-amz-copy-source-if-match': BLOB_ETAG, 'x-amz-meta-ignored': 'x' }));
    expect(seen.map(shape)).toEqual([['HEAD', '/source/tenant/src/a%20b.txt'], ['GET', '/source/tenant/src/a%20b.txt?comp=tags'], ['PUT', '/dest/tenant/dst.txt'], ['HEAD', '/dest/tenant/dst.txt']]);
    const copy = seen[2];
    expect(copy.headers).toMatchObject({ 'x-ms-copy-source': `${ENDPOINT}/source/tenant/src/a%20b.txt`, 'x-ms-source-if-match': '"0x8DC1"', 'content-length': '0' });
    expect(copy.headers.authorization).toMatch(new RegExp(`^SharedKey ${AZURITE_ACCOUNT}:`));
    expect(Object.keys(copy.headers).filter((name) => name.startsWith('x-ms-meta-') || name === 'x-ms-tags')).toEqual([]);
    expect(result).toEqual({ etag: BLOB_ETAG, lastModified: '2026-12-01T10:00:00.000Z' });
  });

  it('GIVEN REPLACE THEN Set Blob Metadata with the request\'s metadata, and Set Blob Properties with its content headers and the blob\'s MD5', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf([BLOB, NO_TAGS, { status: 202, headers: { 'x-ms-copy-status': 'success' } }, { status: 200 }, { status: 200 }, BLOB], seen);
    await store.copyObject(copyOf(backend('dest'), { 'x-amz-metadata-directive': 'REPLACE', 'content-type': 'text/plain', 'x-amz-meta-new-name': 'v' }));
    expect(seen.map(shape)).toEqual([
      ['HEAD', '/dest/tenant/src/a%20b.txt'], ['GET', '/dest/tenant/src/a%20b.txt?comp=tags'], ['PUT', '/dest/tenant/dst.txt'], ['PUT', '/dest/tenant/dst.txt?comp=metadata'], ['PUT', '/dest/tenant/dst.txt?comp=properties'], ['HEAD', '/dest/tenant/dst.txt'],
    ]);
    expect(seen[3].headers).toMatchObject({ 'x-ms-meta-new_name': 'v' });
    expect(seen[4].headers).toMatchObject({ 'x-ms-blob-content-type': 'text/plain', 'x-ms-blob-content-md5': 'AQIDBAUGBwgJCgsMDQ4PEA==' });
  });

  it('GIVEN a copy Azure runs asynchronously THEN the blob is asked until it is done', async () => {
    const seen: BackendRequest[] = [];
    const pending = { status: 200, headers: { ...BLOB.headers, 'x-ms-copy-status': 'pending' } };
    const store = storeOf([BLOB, NO_TAGS, { status: 202, headers: { 'x-ms-copy-status': 'pending' } }, pending, { status: 200, headers: { ...BLOB.headers, 'x-ms-copy-status': 'success' } }, BLOB], seen);
    await store.copyObject(copyOf(backend('dest')));
    expect(seen.map((r) => r.method).join(' ')).toBe('HEAD GET PUT HEAD HEAD HEAD');
  });

  it('GIVEN a failed copy-source condition or a missing source THEN 412 or NoSuchKey, and nothing is copied', async () => {
    for (const [headers, answer, code] of [
      [{ 'x-amz-copy-source-if-match': '"0x0123"' }, BLOB, 'PreconditionFailed'],
      [{ 'x-amz-copy-source-if-none-match': BLOB_ETAG }, BLOB, 'PreconditionFailed'],
      [{ 'x-amz-copy-source-if-modified-since': 'Wed, 02 Dec 2026 10:00:00 GMT' }, BLOB, 'PreconditionFailed'],
      [{}, { status: 404, headers: { 'x-ms-error-code': 'BlobNotFound' } }, 'NoSuchKey'],
    ] as const) {
      const seen: BackendRequest[] = [];
      expect(await codeOf(storeOf([answer], seen).copyObject(copyOf(backend('dest'), headers)))).toBe(code);
      expect(seen.map((r) => r.method)).toEqual(['HEAD']);
    }
  });

  it('GIVEN a source in another account, endpoint or store THEN NotImplemented, and nothing is sent', async () => {
    const seen: BackendRequest[] = [];
    for (const source of [backend('c', { accountName: 'other' }), backend('c', { endpoint: 'https://other.blob.core.windows.net' }), { type: 'gcs', bucketName: 'b', endpoint: ENDPOINT, backendPrefix: '' } as const]) {
      expect(await codeOf(storeOf([], seen).copyObject(copyOf(source)))).toBe('NotImplemented');
    }
    expect(seen).toEqual([]);
  });
});

describe('AzureStore.deleteObjects', () => {
  it('GIVEN entries THEN each is its DeleteObject: a SAS-signed Delete Blob (snapshots too), an ETag read and pinned first (to Azure\'s own)', async () => {
    const seen: BackendRequest[] = [];
    // Entries are deleted concurrently: answered by request, not in turn.
    const store = storeOf((request) => (request.method === 'HEAD' ? BLOB : { status: 202 }), seen);
    const out = await store.deleteObjects({ entries: [{ key: 'a.txt' }, { key: 'b.txt', etag: BLOB_ETAG }], quiet: false, headers: {}, checksums: [], requestId: 'r1', resource: '/b?delete' });
    expect(out).toEqual({ deleted: [{ Key: 'a.txt' }, { Key: 'b.txt' }], errors: [] });
    const sent = (method: string, blob: string): BackendRequest | undefined => seen.find((r) => r.method === method && r.url.split('?')[0] === `${ENDPOINT}/dest/tenant/${blob}`);
    expect(seen).toHaveLength(3);
    const plain = sent('DELETE', 'a.txt');
    expect([plain?.headers['x-ms-delete-snapshots'], plain?.headers['if-match'], new URL(plain?.url ?? '').searchParams.get('sp')]).toEqual(['include', undefined, 'd']);
    expect(sent('HEAD', 'b.txt')).toBeDefined();
    expect(sent('DELETE', 'b.txt')?.headers['if-match']).toBe('"0x8DC1"');
  });
});
