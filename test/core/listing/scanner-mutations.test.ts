import { parseBlobList, scanBlobList } from '../../../functions/core/backends/azure/listing';
import { parseS3Listing, scanS3Listing } from '../../../functions/core/listing/s3-page';
import { UNRECOGNISED } from '../../../functions/core/listing/scanner';
import { seededRandom } from '../../support/random';

/**
 * The listing scanners' one promise, checked on documents they were not written for: whatever a scanner
 * accepts, it reads exactly as the general parser does. Each case is a real page with a few characters
 * inserted, deleted or replaced by ones that matter to XML, from a fixed seed so a failure repeats.
 * `MUTANTS=60000 npx jest scanner-mutations` searches deeper (it found nothing more on 2026-11-28).
 */

const SIGNIFICANT = ['<', '>', '/', '&', ';', '"', "'", '=', ' ', '\n', '!', '?', '-', '[', ']', 'a', 'Z', '#', 'x', '1', '&amp;', '&lt;', '&#65;', '<!-- c -->', '<![CDATA[x]]>', '</Key>', '<Key>', '</Name>', '<Properties>', '/>'];

function mutate(text: string, random: () => number): string {
  let out = text;
  const edits = 1 + Math.floor(random() * 3);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * (out.length + 1));
    const piece = SIGNIFICANT[Math.floor(random() * SIGNIFICANT.length)];
    const kind = random();
    if (kind < 0.4) out = out.slice(0, at) + piece + out.slice(at);
    else if (kind < 0.7) out = out.slice(0, at) + out.slice(at + 1 + Math.floor(random() * 4));
    else out = out.slice(0, at) + piece + out.slice(at + 1);
  }
  return out;
}

const S3_PAGE =
  '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>store</Name><Prefix>t%2F</Prefix><IsTruncated>true</IsTruncated><NextMarker>t%2Fb</NextMarker>' +
  '<Contents><Key>t%2Fa&amp;1</Key><LastModified>2026-11-27T10:00:00.000Z</LastModified><ETag>&quot;9dd4&quot;</ETag><Size>11</Size><Owner><ID>o</ID><DisplayName>d</DisplayName></Owner><StorageClass>STANDARD</StorageClass><Type>Normal</Type></Contents>' +
  '<Contents><Key>t%2Fb</Key><Size>2</Size><StorageClass>GLACIER</StorageClass></Contents><CommonPrefixes><Prefix>t%2Fd%2F</Prefix></CommonPrefixes></ListBucketResult>';

/** GCS's XML API form: single-quoted xmlns, empty fields as empty elements, Generation fields in entries. */
const GCS_PAGE =
  "<?xml version='1.0' encoding='UTF-8'?><ListBucketResult xmlns='http://doc.s3.amazonaws.com/2006-03-01'><Name>maps</Name><Prefix/><Marker/><IsTruncated>true</IsTruncated><NextMarker>t/b</NextMarker>" +
  '<Contents><Key>t/a</Key><Generation>1360887697105000</Generation><MetaGeneration>1</MetaGeneration><LastModified>2026-11-27T10:00:00.104Z</LastModified><ETag>"f3dd"</ETag><Size>18321</Size></Contents></ListBucketResult>';

const AZURE_PAGE =
  '<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="https://a.blob.core.windows.net/" ContainerName="c"><Prefix>t/</Prefix><Marker/><MaxResults>2</MaxResults><Blobs>' +
  '<Blob><Name>t/a&amp;1</Name><Properties><Creation-Time>Fri, 27 Nov 2026 10:00:00 GMT</Creation-Time><Last-Modified>Fri, 27 Nov 2026 10:00:01 GMT</Last-Modified><Etag>0x8DD0F1A2B3C4D5E</Etag><Content-Length>11</Content-Length><Content-Encoding /><AccessTier>Cool</AccessTier></Properties><OrMetadata /></Blob>' +
  '<BlobPrefix><Name>t/d/</Name></BlobPrefix><Blob><Name>t/e</Name><Properties><Last-Modified>Sat, 28 Nov 2026 02:53:21 GMT</Last-Modified><Etag>0x1</Etag><Content-Length>0</Content-Length></Properties></Blob></Blobs><NextMarker>t/e</NextMarker></EnumerationResults>';

const MUTANTS = Number(process.env.MUTANTS ?? 3000);

/** A page, its seed, and the scanner and parser that read it (both answer pages; the scanner may decline). */
const CASES: Array<[string, string, number, (xml: string | string[]) => unknown, (xml: string) => unknown]> = [
  ['an RGW page through the S3 scanner', S3_PAGE, 25, (xml) => scanS3Listing(xml, 't/'), (xml) => parseS3Listing(xml, 't/')],
  ['a GCS XML API page through the S3 scanner', GCS_PAGE, 7, (xml) => scanS3Listing(xml, 't/'), (xml) => parseS3Listing(xml, 't/')],
  ['an Azure page through the Azure scanner', AZURE_PAGE, 2026, (xml) => scanBlobList(xml, 't/'), (xml) => parseBlobList(xml, 't/')],
];

describe('the listing scanners on mutated pages', () => {
  it.each(CASES)(`GIVEN ${MUTANTS} mutants of %s THEN each one the scanner accepts reads as the parser reads it, whole or in pieces`, (_name, page, seed, scan, parse) => {
    const random = seededRandom(seed);
    let accepted = 0;
    for (let n = 0; n < MUTANTS; n++) {
      const xml = mutate(page, random);
      const cut = Math.floor(random() * xml.length);
      for (const input of [xml, [xml.slice(0, cut), xml.slice(cut)]]) {
        const scanned = scan(input);
        if (scanned === UNRECOGNISED) continue;
        accepted++;
        expect({ xml, page: scanned }).toEqual({ xml, page: parse(xml) });
      }
    }
    // Hundreds of mutants keep the shape, so the comparison is not vacuous.
    expect(accepted).toBeGreaterThan(MUTANTS / 10);
  });
});
