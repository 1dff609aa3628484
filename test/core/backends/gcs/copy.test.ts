import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GcsStore } from '../../../../functions/core/backends/gcs';
import type { BackendCall, CopyRequest, StoreDeps } from '../../../../functions/core/backends/store';
import type { BackendConfig, GcsBackend } from '../../../../functions/core/config/types';
import type { BackendRequest } from '../../../../functions/core/http';
import { S3Error } from '../../../../functions/core/errors';

/**
 * CopyObject on GCS. The XML API (real GCS, `api = "xml"`) runs nowhere here: its request is checked against
 * Google's documented shape (https://cloud.google.com/storage/docs/xml-api/put-object-copy and
 * .../reference-headers), answered by a stand-in with the document that page shows. The JSON API's copy is
 * driven against the emulator in test/e2e/gcs.test.ts; its request shape is pinned here.
 */
const FIXTURES = join(__dirname, '../../../fixtures/gcs-v4-signing');
const account = JSON.parse(readFileSync(join(FIXTURES, 'test_service_account.not-a-test.json'), 'utf8')) as { client_email: string; private_key: string };

const xmlBackend = (bucketName: string, extra: Partial<GcsBackend> = {}): GcsBackend => ({
  type: 'gcs',
  bucketName,
  endpoint: 'https://storage.googleapis.com',
  backendPrefix: 'tenant/',
  serviceAccount: { clientEmail: account.client_email, privateKey: account.private_key },
  ...extra,
});

type Answer = { status: number; body: string };

/** The S3 error code `run` rejects with; undefined when it resolves. */
const s3CodeOf = (run: () => Promise<unknown>): Promise<string | undefined> =>
  run().then(
    () => undefined,
    (err: unknown) => (err instanceof S3Error ? err.code : String(err)),
  );

function storeOf(backend: GcsBackend, answers: Answer[], seen: BackendRequest[]): GcsStore {
  const deps: StoreDeps = {
    now: () => Date.parse('2026-12-01T10:00:00Z'),
    credentials: async () => undefined,
    client: async (request: BackendRequest, _call?: BackendCall) => {
      seen.push(request);
      const answer = answers.shift() ?? { status: 500, body: '' };
      return { status: answer.status, headers: new Headers(), body: new Response(answer.body).body };
    },
  };
  return new GcsStore(backend, deps);
}

const copyOf = (source: BackendConfig, headers: Record<string, string> = {}): CopyRequest => ({ source: { backend: source, key: 'src/a b.txt' }, key: 'dst/c+d.txt', headers, requestId: 'r1' });

const COPY_RESULT = `<?xml version='1.0' encoding='UTF-8'?><CopyObjectResult><LastModified>2026-12-01T10:00:01.123Z</LastModified><ETag>"0a1b2c3d4e5f60718293a4b5c6d7e8f9"</ETag></CopyObjectResult>`;

describe('CopyObject through the GCS XML API (unverified: Google\'s documented request shape)', () => {
  it('GIVEN a COPY with copy-source conditions THEN one signed PUT of the destination names the source, the directive and x-goog-copy-source-if-*', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf(xmlBackend('dest'), [{ status: 200, body: COPY_RESULT }], seen);
    const result = await store.copyObject(copyOf(xmlBackend('source'), { 'x-amz-copy-source-if-match': '"abc"', 'x-amz-copy-source-if-unmodified-since': 'Mon, 01 Dec 2026 00:00:00 GMT', 'x-amz-meta-ignored': 'x' }));
    expect(result).toEqual({ etag: '"0a1b2c3d4e5f60718293a4b5c6d7e8f9"', lastModified: '2026-12-01T10:00:01.123Z' });
    expect(seen).toHaveLength(1);
    const [put] = seen;
    const url = new URL(put.url);
    expect([put.method, url.host, url.pathname]).toEqual(['PUT', 'storage.googleapis.com', '/dest/tenant/dst/c%2Bd.txt']);
    expect(put.headers).toEqual({
      'x-goog-copy-source': '/source/tenant/src/a%20b.txt',
      'x-goog-metadata-directive': 'COPY',
      'x-goog-copy-source-if-match': '"abc"',
      'x-goog-copy-source-if-unmodified-since': 'Mon, 01 Dec 2026 00:00:00 GMT',
      'content-length': '0',
    });
    // Every x-goog-* header is signed, as V4 signed URLs require.
    expect(url.searchParams.get('X-Goog-SignedHeaders')).toBe('host;x-goog-copy-source;x-goog-copy-source-if-match;x-goog-copy-source-if-unmodified-since;x-goog-metadata-directive');
  });

  it('GIVEN REPLACE THEN the request\'s content headers and metadata are sent and signed, its Content-MD5 is not', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf(xmlBackend('dest'), [{ status: 200, body: COPY_RESULT }], seen);
    await store.copyObject(copyOf(xmlBackend('dest'), { 'x-amz-metadata-directive': 'REPLACE', 'content-type': 'text/plain', 'cache-control': 'no-cache', 'content-md5': 'AAAA', 'x-amz-meta-who': 'me' }));
    expect(seen[0].headers).toEqual({
      'x-goog-copy-source': '/dest/tenant/src/a%20b.txt',
      'x-goog-metadata-directive': 'REPLACE',
      'content-type': 'text/plain',
      'cache-control': 'no-cache',
      'x-goog-meta-who': 'me',
      'content-length': '0',
    });
  });

  it('GIVEN GCS\'s 412 or 404 error document THEN PreconditionFailed or NoSuchKey', async () => {
    for (const [status, code] of [[412, 'PreconditionFailed'], [404, 'NoSuchKey']] as const) {
      const store = storeOf(xmlBackend('dest'), [{ status, body: `<?xml version='1.0' encoding='UTF-8'?><Error><Code>${code}</Code><Message>m</Message></Error>` }], []);
      expect(await s3CodeOf(() => store.copyObject(copyOf(xmlBackend('dest'))))).toBe(code);
    }
  });

  it('GIVEN a source on another endpoint, service account, API or store THEN NotImplemented, and nothing is sent', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf(xmlBackend('dest'), [], seen);
    const others: BackendConfig[] = [
      xmlBackend('s', { endpoint: 'https://other.example' }),
      xmlBackend('s', { serviceAccount: { clientEmail: 'other@example.iam.gserviceaccount.com', privateKey: account.private_key } }),
      xmlBackend('s', { api: 'json' }),
      { type: 'azure', accountName: 'a', containerName: 'c', endpoint: 'https://storage.googleapis.com', backendPrefix: 'tenant/' },
    ];
    for (const source of others) expect(await s3CodeOf(() => store.copyObject(copyOf(source)))).toBe('NotImplemented');
    expect(seen).toEqual([]);
  });
});

describe('CopyObject through the GCS JSON API (the emulator\'s copyTo)', () => {
  const jsonBackend = (bucketName: string): GcsBackend => ({ type: 'gcs', bucketName, endpoint: 'http://gcs.test:4443', backendPrefix: '', api: 'json' });
  const resource = (name: string, md5 = 'AAAAAAAAAAAAAAAAAAAAAA=='): Answer => ({ status: 200, body: JSON.stringify({ name, generation: '17', md5Hash: md5, updated: '2026-12-01T10:00:00.000Z' }) });

  it('GIVEN REPLACE THEN the source is read, then copied with its generation pinned and the request\'s resource, each missing property null', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf(jsonBackend('dest'), [resource('src/a b.txt'), resource('dst/c+d.txt', 'AQIDBAUGBwgJCgsMDQ4PEA==')], seen);
    const result = await store.copyObject(copyOf(jsonBackend('source'), { 'x-amz-metadata-directive': 'REPLACE', 'content-type': 'text/plain', 'x-amz-meta-who': 'me' }));
    expect(result).toEqual({ etag: '"0102030405060708090a0b0c0d0e0f10"', lastModified: '2026-12-01T10:00:00.000Z' });
    expect(seen.map((r) => [r.method, r.url])).toEqual([
      ['GET', 'http://gcs.test:4443/storage/v1/b/source/o/src%2Fa%20b.txt'],
      ['POST', 'http://gcs.test:4443/b/source/o/src%2Fa%20b.txt/copyTo/b/dest/o/dst%2Fc%2Bd.txt?ifSourceGenerationMatch=17'],
    ]);
    expect(JSON.parse(new TextDecoder().decode(seen[1].body as Uint8Array))).toEqual({
      metadata: { who: 'me' }, contentType: 'text/plain', contentDisposition: null, contentEncoding: null, contentLanguage: null, cacheControl: null,
    });
  });

  it('GIVEN a copy-source condition the source fails THEN PreconditionFailed, and nothing is copied', async () => {
    const seen: BackendRequest[] = [];
    const store = storeOf(jsonBackend('dest'), [resource('src/a b.txt')], seen);
    expect(await s3CodeOf(() => store.copyObject(copyOf(jsonBackend('dest'), { 'x-amz-copy-source-if-none-match': '"00000000000000000000000000000000"' })))).toBe('PreconditionFailed');
    expect(seen).toHaveLength(1);
  });
});
