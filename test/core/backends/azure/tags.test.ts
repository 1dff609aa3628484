import { AzureStore } from '../../../../functions/core/backends/azure';
import { readTagsDocument, tagsDocument, tagsHeader } from '../../../../functions/core/backends/azure/tags';
import type { StoreDeps } from '../../../../functions/core/backends/store';
import type { AzureBackend } from '../../../../functions/core/config/types';
import { S3Error } from '../../../../functions/core/errors';
import type { BackendRequest } from '../../../../functions/core/http';
import { AZURITE_ACCOUNT, AZURITE_KEY } from '../../../support/azurite';
import { thrownBy } from '../../../support/thrown';

/**
 * S3 object tags as Azure blob index tags: the `x-ms-tags` header, the `<Tags>` document, Azure's characters,
 * and the requests the store sends. test/e2e/azure.test.ts drives the same against Azurite with real clients.
 */
const ENDPOINT = 'http://azure.test:10000/devstoreaccount1';
const BACKEND: AzureBackend = { type: 'azure', accountName: AZURITE_ACCOUNT, containerName: 'c', accessKey: AZURITE_KEY, endpoint: ENDPOINT, backendPrefix: 'p/' };

type Answer = { status: number; headers?: Record<string, string>; body?: string };

function storeOf(answer: (request: BackendRequest) => Answer, seen: BackendRequest[]): AzureStore {
  const deps: StoreDeps = {
    now: () => Date.parse('2026-12-01T10:00:00Z'),
    credentials: async () => undefined,
    client: async (request) => {
      seen.push(request);
      const a = answer(request);
      return { status: a.status, headers: new Headers(a.headers ?? {}), body: a.body === undefined ? null : new Response(a.body).body };
    },
  };
  return new AzureStore(BACKEND, deps);
}

const bodyText = (request: BackendRequest): string => new TextDecoder().decode(request.body as Uint8Array);

describe('Azure tags: the header and the document', () => {
  it('GIVEN tags THEN x-ms-tags is their URL-encoded query string', () => {
    expect(tagsHeader([{ key: 'team', value: 'data eng' }, { key: 'a+b/c:d', value: 'x=y_z.-' }])).toBe('team=data%20eng&a%2Bb%2Fc%3Ad=x%3Dy_z.-');
  });

  it('GIVEN tags THEN Set Blob Tags\' document; Get Blob Tags\' document reads back as the same tags', () => {
    const tags = [{ key: 'b', value: ' x ' }, { key: 'a', value: '' }];
    const document = tagsDocument(tags);
    expect(document).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<Tags><TagSet><Tag><Key>b</Key><Value> x </Value></Tag><Tag><Key>a</Key><Value></Value></Tag></TagSet></Tags>');
    expect(readTagsDocument(document)).toEqual(tags);
    expect(readTagsDocument(tagsDocument([]))).toEqual([]);
    expect(readTagsDocument('<?xml version="1.0" encoding="utf-8"?><Tags><TagSet /></Tags>')).toEqual([]);
    expect(readTagsDocument('<Error/>')).toBeUndefined();
  });

  it('GIVEN a key or value with a character S3 takes and Azure does not (@, non-ASCII, &) THEN InvalidTag saying Azure cannot hold it', () => {
    for (const tag of [{ key: 'a@b', value: '' }, { key: 'k', value: 'é' }, { key: 'k&', value: 'v' }, { key: 'k', value: 'a,b' }]) {
      const err = thrownBy(S3Error, () => tagsHeader([tag]));
      expect([tag, err.code, err.message]).toEqual([tag, 'InvalidTag', expect.stringContaining('cannot be stored on an Azure backend')]);
      expect(thrownBy(S3Error, () => tagsDocument([tag])).code).toBe('InvalidTag');
    }
  });
});

describe('AzureStore: tags in its requests', () => {
  it('GIVEN GetObjectTagging THEN a Shared Key signed Get Blob Tags under the prefix, its tags read back', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf(() => ({ status: 200, body: '<Tags><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tags>' }), seen);
    expect(await store.tags.get('a b.txt', {})).toEqual([{ key: 'k', value: 'v' }]);
    expect([seen[0].method, seen[0].url]).toEqual(['GET', `${ENDPOINT}/c/p/a%20b.txt?comp=tags`]);
    expect(seen[0].headers.authorization).toMatch(new RegExp(`^SharedKey ${AZURITE_ACCOUNT}:`));
  });

  it('GIVEN PutObjectTagging THEN Set Blob Tags with the document and its length; none removes them all', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf(() => ({ status: 204 }), seen);
    await store.tags.put('k', [{ key: 'a', value: 'b' }], {});
    await store.tags.put('k', [], {});
    expect(seen.map((r) => [r.method, r.url, r.headers['content-length'], bodyText(r)])).toEqual([
      ['PUT', `${ENDPOINT}/c/p/k?comp=tags`, String(tagsDocument([{ key: 'a', value: 'b' }]).length), tagsDocument([{ key: 'a', value: 'b' }])],
      ['PUT', `${ENDPOINT}/c/p/k?comp=tags`, String(tagsDocument([]).length), tagsDocument([])],
    ]);
  });

  it('GIVEN a missing blob, or tags Azure refuses after all THEN NoSuchKey, or InvalidTag saying Azure cannot hold them', async () => {
    const missing = storeOf(() => ({ status: 404, headers: { 'x-ms-error-code': 'BlobNotFound' } }), []);
    await expect(missing.tags.get('k', {})).rejects.toMatchObject({ code: 'NoSuchKey' });
    await expect(missing.tags.put('k', [], {})).rejects.toMatchObject({ code: 'NoSuchKey' });
    // Azurite's code for a character it refuses.
    const refused = storeOf(() => ({ status: 400, headers: { 'x-ms-error-code': 'DuplicateTagNames' } }), []);
    await expect(refused.tags.put('k', [{ key: 'a', value: 'b' }], {})).rejects.toMatchObject({ code: 'InvalidTag', message: 'The tags cannot be stored on an Azure backend' });
  });

  it('GIVEN PutObject with x-amz-tagging THEN Put Blob carries x-ms-tags, under a SAS that may write tags', async () => {
    const store = storeOf(() => ({ status: 201 }), []);
    const tagged = await store.forwardObject({ method: 'PUT', key: 'k', headers: { 'x-amz-tagging': 'a=1&b=x+y' }, requestId: 'r' });
    expect(tagged.request.headers['x-ms-tags']).toBe('a=1&b=x%20y');
    expect(new URL(tagged.request.url).searchParams.get('sp')).toBe('cwt');
    const plain = await store.forwardObject({ method: 'PUT', key: 'k', headers: { 'x-amz-tagging': '' }, requestId: 'r' });
    expect([plain.request.headers['x-ms-tags'], new URL(plain.request.url).searchParams.get('sp')]).toEqual([undefined, 'cw']);
  });

  it('GIVEN PutObject with tags over S3\'s limits or Azure\'s characters THEN S3\'s error before anything is sent', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf(() => ({ status: 201 }), seen);
    for (const [header, code] of [[Array.from({ length: 11 }, (_, i) => `k${i}=v`).join('&'), 'BadRequest'], ['a=1&a=2', 'InvalidArgument'], ['a%40b=1', 'InvalidTag']]) {
      await expect(store.forwardObject({ method: 'PUT', key: 'k', headers: { 'x-amz-tagging': header }, requestId: 'r' })).rejects.toMatchObject({ code });
    }
    expect(seen).toEqual([]);
  });

  it('GIVEN CreateMultipartUpload with x-amz-tagging THEN the headers sealed for Put Block List carry x-ms-tags', () => {
    const store = storeOf(() => ({ status: 201 }), []);
    expect(store.multipart.objectHeaders('k', { 'x-amz-tagging': 'a=1', 'content-type': 'text/plain' })).toEqual({ 'x-ms-tags': 'a=1', 'x-ms-blob-content-type': 'text/plain' });
  });
});

describe('AzureStore.copyObject: tags', () => {
  const BLOB: Answer = { status: 200, headers: { etag: '"0x1"', 'content-md5': 'AQIDBAUGBwgJCgsMDQ4PEA==', 'last-modified': 'Tue, 01 Dec 2026 10:00:00 GMT' } };
  const answer = (request: BackendRequest): Answer => {
    if (request.method === 'HEAD') return BLOB;
    if (request.url.endsWith('?comp=tags')) return request.method === 'GET' ? { status: 200, body: '<Tags><TagSet><Tag><Key>src</Key><Value>kept</Value></Tag></TagSet></Tags>' } : { status: 204 };
    return { status: 202, headers: { 'x-ms-copy-status': 'success' } };
  };
  const copy = (key: string, headers: Record<string, string>) => ({ source: { backend: BACKEND, key: 'src' }, key, headers, requestId: 'r' });
  const copyBlob = (seen: BackendRequest[]): BackendRequest | undefined => seen.find((r) => r.headers['x-ms-copy-source'] !== undefined);

  it('GIVEN the tagging directive COPY (the default) THEN the source\'s tags, read first, go to Copy Blob', async () => {
    const seen: BackendRequest[] = [];
    await storeOf(answer, seen).copyObject(copy('dst', { 'x-amz-tagging': 'ignored=1' }));
    expect(seen.some((r) => r.method === 'GET' && r.url === `${ENDPOINT}/c/p/src?comp=tags`)).toBe(true);
    expect(copyBlob(seen)?.headers['x-ms-tags']).toBe('src=kept');
  });

  it('GIVEN REPLACE THEN the request\'s tags go to Copy Blob and the source\'s are not read; REPLACE with none copies none', async () => {
    for (const [headers, sent] of [[{ 'x-amz-tagging-directive': 'REPLACE', 'x-amz-tagging': 'new=1' }, 'new=1'], [{ 'x-amz-tagging-directive': 'REPLACE' }, undefined]] as const) {
      const seen: BackendRequest[] = [];
      await storeOf(answer, seen).copyObject(copy('dst', headers));
      expect(seen.some((r) => r.url.endsWith('?comp=tags'))).toBe(false);
      expect(copyBlob(seen)?.headers['x-ms-tags']).toBe(sent);
    }
  });

  it('GIVEN a copy onto itself with REPLACE tags THEN Set Blob Tags, and no Copy Blob', async () => {
    const seen: BackendRequest[] = [];
    await storeOf(answer, seen).copyObject(copy('src', { 'x-amz-metadata-directive': 'REPLACE', 'x-amz-tagging-directive': 'REPLACE', 'x-amz-tagging': 'n=2' }));
    expect(copyBlob(seen)).toBeUndefined();
    const set = seen.find((r) => r.method === 'PUT' && r.url.endsWith('?comp=tags'));
    expect(set === undefined ? undefined : bodyText(set)).toBe(tagsDocument([{ key: 'n', value: '2' }]));
  });

  it('GIVEN REPLACE tags Azure cannot hold THEN InvalidTag, and nothing is sent', async () => {
    const seen: BackendRequest[] = [];
    await expect(storeOf(answer, seen).copyObject(copy('dst', { 'x-amz-tagging-directive': 'REPLACE', 'x-amz-tagging': 'a=%C3%A9' }))).rejects.toMatchObject({ code: 'InvalidTag' });
    expect(seen).toEqual([]);
  });
});
