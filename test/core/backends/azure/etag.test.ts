import { AzureStore } from '../../../../functions/core/backends/azure';
import { s3Etag, s3EtagOfAnswer } from '../../../../functions/core/backends/azure/etag';
import type { ObjectRequest } from '../../../../functions/core/backends/store';
import { S3Error } from '../../../../functions/core/errors';
import { isProxyResponse, type BackendRequest, type Forward, type HeaderMap } from '../../../../functions/core/http';
import { AZURITE_KEY } from '../../../support/azurite';
import { seededRandom } from '../../../support/random';

/**
 * The ETags an Azure blob shows S3 clients: the hex MD5 Azure keeps for it, else Azure's own; and the
 * preconditions compared with them. test/e2e/azure.test.ts checks the same through real clients on Azurite.
 */

/** MD5 of `hello world`, as Azure keeps it (base64) and as S3 shows it (hex). */
const MD5_BASE64 = 'XrY7u+Ae7tCTyyK7j1rNww==';
const MD5_ETAG = '"5eb63bbbe01eeed093cb22bb8f5acdc3"';
const AZURE_ETAG = '"0x8DC0123456789AB"';

describe('s3Etag: a blob\'s ETag in S3\'s terms', () => {
  it('GIVEN a Content-MD5 THEN its bytes in quoted hex, as S3 answers an object uploaded whole', () => {
    expect(s3Etag(AZURE_ETAG, MD5_BASE64)).toBe(MD5_ETAG);
    expect(s3Etag('0x1', '1B2M2Y8AsgTpgAmY7PhCfg==')).toBe('"d41d8cd98f00b204e9800998ecf8427e"');
  });

  it('GIVEN any 16 bytes THEN the hex a general decoder gives', () => {
    const random = seededRandom(16);
    for (let n = 0; n < 500; n++) {
      const digest = Buffer.from(Array.from({ length: 16 }, () => Math.floor(random() * 256)));
      expect(s3Etag(AZURE_ETAG, digest.toString('base64'))).toBe(`"${digest.toString('hex')}"`);
    }
  });

  it.each([
    ['no Content-MD5 (Put Block List clears it)', undefined],
    ['an empty one (a listing\'s <Content-MD5 />)', ''],
    ['one that is no base64', 'not base64!'],
    ['one of another length than an MD5\'s', 'AAAA'],
    ['one unpadded', 'XrY7u+Ae7tCTyyK7j1rNww'],
    ['one holding a character base64 has not', 'XrY7u+Ae7tCTyyK7j1rN*w=='],
    ['one holding a letter beyond ASCII', 'XrY7u+Ae7tCTyyK7j1rNéw=='],
    ['one of a SHA-1\'s length', '2jmj7l5rSw0yVb/vlWAYkK/YBwk='],
  ])('GIVEN %s THEN Azure\'s own ETag, quoted', (_name, md5) => {
    expect(s3Etag(AZURE_ETAG, md5)).toBe(AZURE_ETAG);
    expect(s3Etag('0x8DC0123456789AB', md5)).toBe(AZURE_ETAG);
  });
});

describe('s3EtagOfAnswer: the ETag of the blob an Azure answer is about', () => {
  const answer = (headers: Record<string, string>): Headers => new Headers({ etag: AZURE_ETAG, ...headers });

  it('GIVEN Put Blob\'s, Get Blob Properties\' or a whole Get Blob\'s answer THEN its Content-MD5', () => {
    for (const status of [200, 201]) expect(s3EtagOfAnswer(status, answer({ 'content-md5': MD5_BASE64 }))).toBe(MD5_ETAG);
  });

  it('GIVEN a ranged read THEN the whole blob\'s MD5 (x-ms-blob-content-md5), never the range\'s Content-MD5', () => {
    expect(s3EtagOfAnswer(206, answer({ 'x-ms-blob-content-md5': MD5_BASE64 }))).toBe(MD5_ETAG);
    expect(s3EtagOfAnswer(206, answer({ 'content-md5': '1B2M2Y8AsgTpgAmY7PhCfg==', 'x-ms-blob-content-md5': MD5_BASE64 }))).toBe(MD5_ETAG);
    expect(s3EtagOfAnswer(206, answer({ 'content-md5': MD5_BASE64 }))).toBe(AZURE_ETAG);
  });

  it('GIVEN a blob with no MD5 THEN Azure\'s ETag', () => {
    expect(s3EtagOfAnswer(200, answer({}))).toBe(AZURE_ETAG);
  });
});

describe('an Azure store\'s answers and preconditions with these ETags', () => {
  /** The blob the stand-in Azure holds: its headers on a HEAD, or none (404). */
  let blob: Record<string, string> | undefined;
  let seen: BackendRequest[];
  const store = new AzureStore(
    { type: 'azure', accountName: 'devstoreaccount1', containerName: 'data', accessKey: AZURITE_KEY, endpoint: 'http://azure.test:10000/devstoreaccount1', backendPrefix: '' },
    {
      now: () => Date.UTC(2026, 11, 1),
      credentials: async () => undefined,
      client: async (request) => {
        seen.push(request);
        return blob === undefined
          ? { status: 404, headers: new Headers({ 'x-ms-error-code': 'BlobNotFound' }), body: null }
          : { status: 200, headers: new Headers(blob), body: null };
      },
    },
  );
  const WITH_MD5 = { etag: AZURE_ETAG, 'content-md5': MD5_BASE64, 'last-modified': 'Tue, 01 Dec 2026 00:00:00 GMT', 'content-length': '11' };
  beforeEach(() => {
    blob = WITH_MD5;
    seen = [];
  });

  const forward = (method: ObjectRequest['method'], headers: HeaderMap = {}): Promise<Forward> =>
    store.forwardObject({ method, key: 'k', headers, requestId: 'r1', body: method === 'PUT' ? new Uint8Array(11) : undefined });
  /** What the client sees of Azure's answer `status` with `headers` to the Forward. */
  const answered = (f: Forward, status: number, headers: Record<string, string>): { status: number; etag?: string } => {
    const out = f.respond(status, new Headers(headers));
    if (isProxyResponse(out)) return { status: out.status, etag: out.headers.etag };
    if ('rewrite' in out) throw new Error('no rewrite expected');
    return { status: out.status, etag: out.headers.etag };
  };

  it('GIVEN Put Blob\'s 201 with the Content-MD5 Azure computed WHEN answered THEN 200 with the hex MD5 as ETag', async () => {
    expect(answered(await forward('PUT'), 201, { etag: AZURE_ETAG, 'content-md5': MD5_BASE64 })).toEqual({ status: 200, etag: MD5_ETAG });
  });

  it('GIVEN a HEAD, a GET and a ranged GET WHEN answered THEN each shows the hex MD5', async () => {
    expect(answered(await forward('HEAD'), 200, WITH_MD5)).toEqual({ status: 200, etag: MD5_ETAG });
    expect(answered(await forward('GET'), 200, WITH_MD5)).toEqual({ status: 200, etag: MD5_ETAG });
    const ranged = { etag: AZURE_ETAG, 'x-ms-blob-content-md5': MD5_BASE64, 'content-range': 'bytes 0-3/11', 'content-length': '4' };
    expect(answered(await forward('GET', { range: 'bytes=0-3' }), 206, ranged)).toEqual({ status: 206, etag: MD5_ETAG });
  });

  describe('a read\'s preconditions, evaluated on the answer\'s S3 ETag (nothing is asked before the read)', () => {
    it.each([
      ['If-Match with the MD5 ETag', 200, { 'if-match': MD5_ETAG }],
      ['If-Match with it bare, as AWS\'s Java SDK v1 sends it', 200, { 'if-match': MD5_ETAG.slice(1, -1) }],
      ['If-Match with Azure\'s own ETag, which the object does not show', 412, { 'if-match': AZURE_ETAG }],
      ['If-None-Match with the MD5 ETag', 304, { 'if-none-match': MD5_ETAG }],
      ['If-None-Match with another', 200, { 'if-none-match': '"0123456789abcdef0123456789abcdef"' }],
    ])('GIVEN %s THEN %i', async (_name, status, headers) => {
      const f = await forward('GET', headers);
      expect(f.request.headers).not.toHaveProperty('if-match');
      expect(f.request.headers).not.toHaveProperty('if-none-match');
      expect(seen).toHaveLength(0);
      expect(answered(f, 200, WITH_MD5).status).toBe(status);
    });

    it('GIVEN a 304 THEN its validators carry the MD5 ETag; GIVEN a ranged read THEN the whole blob\'s MD5 decides', async () => {
      expect(answered(await forward('GET', { 'if-none-match': MD5_ETAG }), 200, WITH_MD5)).toEqual({ status: 304, etag: MD5_ETAG });
      const ranged = { etag: AZURE_ETAG, 'x-ms-blob-content-md5': MD5_BASE64, 'content-range': 'bytes 0-3/11' };
      expect(answered(await forward('GET', { range: 'bytes=0-3', 'if-match': MD5_ETAG }), 206, ranged).status).toBe(206);
      expect(answered(await forward('GET', { range: 'bytes=0-3', 'if-none-match': MD5_ETAG }), 206, ranged).status).toBe(304);
    });
  });

  describe('a write\'s or delete\'s If-Match: one HEAD, then pinned to Azure\'s own ETag', () => {
    it.each(['PUT', 'DELETE'] as const)('GIVEN %s with the blob\'s MD5 ETag THEN Azure is asked If-Match on its own ETag', async (method) => {
      const f = await forward(method, { 'if-match': MD5_ETAG });
      expect(seen.map((r) => r.method)).toEqual(['HEAD']);
      expect(f.request.headers['if-match']).toBe(AZURE_ETAG);
    });

    it('GIVEN a blob without an MD5 THEN Azure\'s own ETag is the one it shows and matches', async () => {
      blob = { etag: AZURE_ETAG };
      expect((await forward('PUT', { 'if-match': AZURE_ETAG })).request.headers['if-match']).toBe(AZURE_ETAG);
    });

    it.each([
      ['Azure\'s own ETag of a blob that shows its MD5', WITH_MD5, AZURE_ETAG, 'PreconditionFailed'],
      ['a stale MD5 ETag', WITH_MD5, '"0123456789abcdef0123456789abcdef"', 'PreconditionFailed'],
      ['any ETag on a missing blob', undefined, MD5_ETAG, 'NoSuchKey'],
    ])('GIVEN %s THEN S3\'s error, and nothing is written', async (_name, held, ifMatch, code) => {
      blob = held;
      for (const method of ['PUT', 'DELETE'] as const) {
        const err = await forward(method, { 'if-match': ifMatch }).catch((e: unknown) => e);
        expect(err instanceof S3Error && err.code).toBe(code);
      }
    });

    it('GIVEN If-None-Match: * on a PUT THEN it goes to Azure as it is, without a HEAD', async () => {
      const f = await forward('PUT', { 'if-none-match': '*' });
      expect(seen).toHaveLength(0);
      expect(f.request.headers['if-none-match']).toBe('*');
    });
  });
});
