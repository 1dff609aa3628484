import { GcsXmlApi } from '../../../../functions/core/backends/gcs/xml-api';
import { parseListBucketResult, readListBucketResultBody } from '../../../../functions/core/listing/s3-page';
import { ListingScanner } from '../../../../functions/core/listing/s3-scanner';
import type { BackendRequest } from '../../../../functions/core/http';
import type { ListParams } from '../../../../functions/core/backends/store';

/**
 * Listings through GCS's XML API, which answers in S3's ListBucketResult shape with fields of its own. No
 * server with an XML API runs here (the emulator speaks only the JSON API), so the pages are the form GCS's
 * documentation shows, served by a stand-in client; the reading is the S3 scanner's, checked against the
 * general parser's.
 */

const entry = (key: string, storageClass = 'STANDARD'): string =>
  `<Contents><Key>${key}</Key><Generation>1360887697105000</Generation><MetaGeneration>1</MetaGeneration><LastModified>2026-11-27T10:00:00.104Z</LastModified><ETag>"f3dd2a9e9d4ad6d0d9b9f1c8d6a5b0d3"</ETag><Size>18321</Size><StorageClass>${storageClass}</StorageClass></Contents>`;
const page = (body: string, truncated = false, next = ''): string =>
  `<?xml version='1.0' encoding='UTF-8'?><ListBucketResult xmlns='http://doc.s3.amazonaws.com/2006-03-01'><Name>maps</Name><Prefix/><Marker/><IsTruncated>${truncated}</IsTruncated>${next}${body}</ListBucketResult>`;

const bodyOf = (text: string): ReadableStream<Uint8Array> => new Response(text).body as ReadableStream<Uint8Array>;

describe('a ListBucketResult in the form GCS\'s XML API writes it', () => {
  const forms: Array<[string, string]> = [
    ['on one line', page(entry('tenant-a/a') + '<CommonPrefixes><Prefix>tenant-a/d/</Prefix></CommonPrefixes>')],
    ['pretty-printed, as its documentation shows it', page(`\n  ${entry('tenant-a/a').replace(/<(Key|Size|Generation)>/g, '\n    <$1>')}\n`).replace('<Name>', '\n  <Name>')],
    ['with an empty NextMarker and IsTruncated', page(entry('tenant-a/a')).replace('<IsTruncated>false</IsTruncated>', '<IsTruncated /><NextMarker/>')],
  ];

  it.each(forms)('GIVEN a page %s THEN the scanner reads it as the parser does', (_name, xml) => {
    const scanner = new ListingScanner();
    scanner.feed(xml);
    const scanned = scanner.end();
    expect(scanned).toBeDefined();
    expect(scanned).toEqual(parseListBucketResult(xml));
  });

  it('GIVEN a page split anywhere THEN it reads whole, Generation fields skipped', async () => {
    const xml = forms[0][1];
    const whole = await readListBucketResultBody(bodyOf(xml));
    expect(whole?.contents).toEqual([{ key: 'tenant-a/a', lastModified: '2026-11-27T10:00:00.104Z', etag: '"f3dd2a9e9d4ad6d0d9b9f1c8d6a5b0d3"', size: '18321', storageClass: 'STANDARD' }]);
    for (let cut = 0; cut <= xml.length; cut += 7) {
      const scanner = new ListingScanner();
      scanner.feed(xml.slice(0, cut));
      scanner.feed(xml.slice(cut));
      expect(scanner.end()).toEqual(whole);
    }
  });

  it('GIVEN the other quote inside a root attribute THEN it reads as the parser does; GIVEN a comment THEN the parser decides', () => {
    const read = (xml: string): ReturnType<ListingScanner['end']> => {
      const scanner = new ListingScanner();
      scanner.feed(xml);
      return scanner.end();
    };
    const quoted = forms[0][1].replace("xmlns='", "a='it\"s' xmlns='");
    expect(read(quoted)).toEqual(parseListBucketResult(quoted));
    expect(read(quoted)).toBeDefined();
    expect(read(forms[0][1].replace('<Name>', '<!-- x --><Name>'))).toBeUndefined();
  });
});

describe('GcsXmlApi.list', () => {
  const params = (extra: Partial<ListParams> = {}): ListParams => ({ version: 2, prefix: '', maxKeys: 1000, fetchOwner: false, ...extra });

  function api(pages: (request: BackendRequest) => string, status = 200): { api: GcsXmlApi; requests: BackendRequest[] } {
    const requests: BackendRequest[] = [];
    const gcs = new GcsXmlApi(
      { type: 'gcs', bucketName: 'maps', endpoint: 'https://storage.googleapis.com', backendPrefix: 'tenant-a/' },
      {
        client: async (request) => {
          requests.push(request);
          return { status, headers: new Headers(), body: bodyOf(pages(request)) };
        },
        now: () => Date.UTC(2026, 10, 28),
        credentials: async () => undefined,
      },
    );
    return { api: gcs, requests };
  }

  it('GIVEN a page THEN keys lose the backend prefix, those outside it are dropped, storage classes read as S3\'s', async () => {
    const { api: gcs } = api(() => page(entry('tenant-a/a', 'NEARLINE') + entry('tenant-b/x') + '<CommonPrefixes><Prefix>tenant-a/d/</Prefix></CommonPrefixes>'));
    const listed = await gcs.list(params({ delimiter: '/' }));
    expect(listed.contents.map((c) => [c.key, c.storageClass, c.size, c.etag])).toEqual([['a', 'STANDARD_IA', 18321, '"f3dd2a9e9d4ad6d0d9b9f1c8d6a5b0d3"']]);
    expect(listed.commonPrefixes).toEqual(['d/']);
    expect(listed.isTruncated).toBe(false);
  });

  it('GIVEN a truncated page THEN the next is asked for from its NextMarker, or from its last key without one', async () => {
    for (const next of ['<NextMarker>tenant-a/b</NextMarker>', '']) {
      const { api: gcs, requests } = api((request) =>
        new URL(request.url).searchParams.get('marker') === null ? page(entry('tenant-a/a') + entry('tenant-a/b'), true, next) : page(entry('tenant-a/c')),
      );
      const listed = await gcs.list(params());
      expect(listed.contents.map((c) => c.key)).toEqual(['a', 'b', 'c']);
      expect(new URL(requests[1].url).searchParams.get('marker')).toBe('tenant-a/b');
    }
  });

  it('GIVEN a page the parser cannot read THEN the answer is a 502 BadGateway', async () => {
    const { api: gcs } = api(() => page(entry('tenant-a/a&e;')));
    await expect(gcs.list(params())).rejects.toMatchObject({ code: 'BadGateway' });
  });

  it('GIVEN GCS\'s error document THEN its code is answered in S3\'s terms', async () => {
    const { api: gcs } = api(() => "<?xml version='1.0' encoding='UTF-8'?><Error><Code>NoSuchBucket</Code></Error>", 404);
    await expect(gcs.list(params())).rejects.toMatchObject({ code: 'NoSuchBucket' });
  });
});
