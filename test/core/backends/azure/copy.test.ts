import { createHash } from 'node:crypto';
import { AzureStore } from '../../../../functions/core/backends/azure';
import { MAX_BLOCK_BYTES, readBlockId } from '../../../../functions/core/backends/azure/multipart';
import type { CopyRequest, StoreDeps } from '../../../../functions/core/backends/store';
import type { AzureBackend, BackendConfig } from '../../../../functions/core/config/types';
import { S3Error } from '../../../../functions/core/errors';
import type { BackendRequest } from '../../../../functions/core/http';
import { AZURITE_ACCOUNT, AZURITE_KEY } from '../../../support/azurite';

/**
 * CopyObject onto Copy Blob, UploadPartCopy onto a ranged read written as blocks, and DeleteObjects key by key, as requests: what is sent, in which order, with
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

/** The streamed bodies the scripted clients were sent, read whole. */
const sentBodies = new Map<BackendRequest, Buffer>();

/** A store whose client answers in turn (`answers` a list) or by request (a function). */
function storeOf(answers: Answer[] | ((request: BackendRequest) => Answer), seen: BackendRequest[], of = backend('dest')): AzureStore {
  const deps: StoreDeps = {
    now: () => Date.parse('2026-12-01T10:00:00Z'),
    credentials: async () => undefined,
    client: async (request) => {
      seen.push(request);
      // A streamed body is read, as Azure reads it (a part's MD5 is computed on the way).
      if (request.body instanceof ReadableStream) sentBodies.set(request, Buffer.from(await new Response(request.body).arrayBuffer()));
      const answer = typeof answers === 'function' ? answers(request) : answers.shift() ?? { status: 500 };
      const body = answer.body === undefined ? null : new Response(answer.body).body;
      return { status: answer.status, headers: new Headers(answer.headers ?? {}), body };
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

describe('AzureStore.multipart.copyPart (UploadPartCopy)', () => {
  const upload = { key: 'dst.txt', nonce: new Uint8Array(12).fill(7), headers: {} };
  const partOf = (source: BackendConfig, headers: Record<string, string> = {}): CopyRequest => ({ ...copyOf(source, headers), key: upload.key });
  const md5 = (text: string): string => createHash('md5').update(text).digest('hex');
  const blockOf = (r: BackendRequest) => readBlockId(decodeURIComponent(/blockid=([^&]+)/.exec(r.url)?.[1] ?? ''));

  it('GIVEN a range THEN the source\'s HEAD, a GET of the range pinned to its ETag, and the bytes put as a data block and a marker naming their MD5', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf([BLOB, { status: 206, body: 'bcd' }, { status: 201 }, { status: 201 }], seen);
    const result = await store.multipart?.copyPart(upload, 3, partOf(backend('source'), { 'x-amz-copy-source-range': 'bytes=1-3', 'x-amz-copy-source-if-match': BLOB_ETAG }), {});
    expect(seen.map(shape).map(([m, u]) => [m, u.split('?')[0]])).toEqual([
      ['HEAD', '/source/tenant/src/a%20b.txt'], ['GET', '/source/tenant/src/a%20b.txt'], ['PUT', '/dest/tenant/dst.txt'], ['PUT', '/dest/tenant/dst.txt'],
    ]);
    expect(seen[1].headers).toMatchObject({ range: 'bytes=1-3', 'if-match': '"0x8DC1"' });
    expect(seen[1].headers.authorization).toMatch(new RegExp(`^SharedKey ${AZURITE_ACCOUNT}:`));
    expect([seen[2].headers['content-length'], sentBodies.get(seen[2])?.toString()]).toEqual(['3', 'bcd']);
    expect(blockOf(seen[2])).toMatchObject({ kind: 'data', partNumber: 3 });
    expect(blockOf(seen[3])).toMatchObject({ kind: 'marker', partNumber: 3, md5: md5('bcd'), attempt: blockOf(seen[2])?.attempt });
    expect(result).toEqual({ etag: `"${md5('bcd')}"`, lastModified: '2026-12-01T10:00:00.000Z' });
  });

  it('GIVEN no range THEN the whole source is read', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf([BLOB, { status: 206, body: 'abcde' }, { status: 201 }, { status: 201 }], seen);
    expect((await store.multipart?.copyPart(upload, 1, partOf(backend('dest')), {}))?.etag).toBe(`"${md5('abcde')}"`);
    expect(seen[1].headers.range).toBe('bytes=0-4');
  });

  it('GIVEN an empty source THEN only the marker of an empty part is put', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf([{ status: 200, headers: { ...BLOB.headers, 'content-length': '0' } }, { status: 201 }], seen);
    expect((await store.multipart?.copyPart(upload, 1, partOf(backend('dest')), {}))?.etag).toBe(`"${md5('')}"`);
    expect(seen.map((r) => r.method)).toEqual(['HEAD', 'PUT']);
    expect(blockOf(seen[1])?.kind).toBe('marker');
  });

  it('GIVEN a malformed range, one past the source\'s end or reversed, a failed condition or a missing source THEN S3\'s error after the HEAD alone', async () => {
    for (const [headers, answer, code] of [
      [{ 'x-amz-copy-source-range': '0-3' }, BLOB, 'InvalidArgument'],
      [{ 'x-amz-copy-source-range': 'bytes=1-' }, BLOB, 'InvalidArgument'],
      [{ 'x-amz-copy-source-range': 'bytes=-2' }, BLOB, 'InvalidArgument'],
      [{ 'x-amz-copy-source-range': 'bytes=0-1,3-4' }, BLOB, 'InvalidArgument'],
      [{ 'x-amz-copy-source-range': 'bytes=0-5' }, BLOB, 'InvalidRange'],
      [{ 'x-amz-copy-source-range': 'bytes=3-2' }, BLOB, 'InvalidRange'],
      [{ 'x-amz-copy-source-if-none-match': BLOB_ETAG }, BLOB, 'PreconditionFailed'],
      [{}, { status: 404, headers: { 'x-ms-error-code': 'BlobNotFound' } }, 'NoSuchKey'],
    ] as const) {
      const seen: BackendRequest[] = [];
      expect([headers, await codeOf(storeOf([answer], seen).multipart?.copyPart(upload, 1, partOf(backend('dest'), headers), {}) ?? Promise.resolve())]).toEqual([headers, code]);
      expect(seen.map((r) => r.method)).toEqual(['HEAD']);
    }
  });

  it('GIVEN the source changed between its HEAD and the read THEN 412, and no block is put', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf([BLOB, { status: 412, headers: { 'x-ms-error-code': 'ConditionNotMet' } }], seen);
    expect(await codeOf(store.multipart?.copyPart(upload, 1, partOf(backend('dest')), {}) ?? Promise.resolve())).toBe('PreconditionFailed');
    expect(seen.map((r) => r.method)).toEqual(['HEAD', 'GET']);
  });

  it('GIVEN a range over Azure\'s 4000 MiB block THEN 400 EntityTooLarge before it is read', async () => {
    const seen: BackendRequest[] = [];
    const huge = { status: 200, headers: { ...BLOB.headers, 'content-length': String(MAX_BLOCK_BYTES + 1) } };
    expect(await codeOf(storeOf([huge], seen).multipart?.copyPart(upload, 1, partOf(backend('dest')), {}) ?? Promise.resolve())).toBe('EntityTooLarge');
    expect(seen.map((r) => r.method)).toEqual(['HEAD']);
  });

  it('GIVEN a source in another account, endpoint or store THEN NotImplemented naming UploadPartCopy, and nothing is sent', async () => {
    const seen: BackendRequest[] = [];
    for (const source of [backend('c', { accountName: 'other' }), { type: 'gcs', bucketName: 'b', endpoint: ENDPOINT, backendPrefix: '' } as const]) {
      await expect(storeOf([], seen).multipart?.copyPart(upload, 1, partOf(source), {})).rejects.toMatchObject({ code: 'NotImplemented', message: expect.stringContaining('UploadPartCopy from another store or Azure account') });
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
