import { ListingScanner } from '../../../functions/core/listing/s3-scanner';

/**
 * The scanner on its own (its readings are compared with the general parser's in s3-page.test.ts): what it
 * keeps of a listing, fed piece by piece, and when it gives up.
 */

function scan(...pieces: string[]): ReturnType<ListingScanner['end']> {
  const scanner = new ListingScanner();
  for (const piece of pieces) scanner.feed(piece);
  return scanner.end();
}

const PAGE = '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><IsTruncated>false</IsTruncated><IsTruncated>true</IsTruncated><Contents><Key>a%2Fb</Key><ETag>&quot;e&quot;</ETag><Owner><ID>o</ID></Owner><Type>Normal</Type></Contents><CommonPrefixes><Prefix>p%2F</Prefix></CommonPrefixes></ListBucketResult>';

describe('ListingScanner', () => {
  it('GIVEN a page THEN it keeps the fields as written (keys still URL-encoded), the first of a repeated one', () => {
    expect(scan(PAGE)).toEqual({ contents: [{ key: 'a%2Fb', etag: '"e"' }], prefixes: ['p%2F'], isTruncated: 'false' });
  });

  it('GIVEN entries and prefixes as RGW writes them (compact) THEN they read as the same page indented', () => {
    const entry = (key: string, extra: string): string =>
      `<Contents><Key>${key}</Key><LastModified>2026-11-27T10:00:00.000Z</LastModified><ETag>&quot;9dd4&quot;</ETag><Size>11</Size>${extra}<StorageClass>STANDARD</StorageClass><Type>Normal</Type></Contents>`;
    const body = entry('a%2F1', '') + entry('a%2F2&amp;', '<Owner><ID>o</ID><DisplayName>d</DisplayName></Owner>') + entry('a%2F3', '<Owner><ID>&amp;</ID></Owner>') + '<CommonPrefixes><Prefix>p&amp;%2F</Prefix></CommonPrefixes>';
    const compact = `<ListBucketResult><IsTruncated>false</IsTruncated>${body}</ListBucketResult>`;
    const indented = compact.replace(/<(Key|CommonPrefixes)>/g, '\n  <$1>');
    const page = scan(compact);
    expect(page?.contents.map((e) => [e.key, e.etag, e.size, e.storageClass])).toEqual([
      ['a%2F1', '"9dd4"', '11', 'STANDARD'],
      ['a%2F2&', '"9dd4"', '11', 'STANDARD'],
      ['a%2F3', '"9dd4"', '11', 'STANDARD'],
    ]);
    expect(page?.prefixes).toEqual(['p&%2F']);
    expect(page).toEqual(scan(indented));
    // Split anywhere, the compact form still reads whole once the rest arrives.
    for (const at of [40, 120, 200, 333]) expect(scan(compact.slice(0, at), compact.slice(at))).toEqual(page);
  });

  it('GIVEN a page without declaration, or one split inside a tag or a reference THEN it reads the same', () => {
    const bare = PAGE.replace(/^<\?xml[^>]*>/, '');
    expect(scan(bare)).toEqual(scan(PAGE));
    expect(scan(PAGE.slice(0, 150), PAGE.slice(150))).toEqual(scan(PAGE));
    const inReference = PAGE.indexOf('&quot;') + 3;
    expect(scan(PAGE.slice(0, inReference), PAGE.slice(inReference))).toEqual(scan(PAGE));
  });

  it('GIVEN a piece it cannot read THEN feed says so and it stays given up', () => {
    const scanner = new ListingScanner();
    const boundary = PAGE.indexOf('</IsTruncated>') + '</IsTruncated>'.length;
    expect(scanner.feed(PAGE.slice(0, boundary))).toBe(true);
    expect(scanner.feed('<!-- x -->')).toBe(false);
    expect(scanner.feed(PAGE.slice(boundary))).toBe(false);
    expect(scanner.end()).toBeUndefined();
  });

  it('GIVEN a document that ends early, or text after the root THEN there is no listing', () => {
    expect(scan(PAGE.slice(0, -5))).toBeUndefined();
    expect(scan(PAGE, ' x')).toBeUndefined();
    expect(scan(PAGE, '\n  ')).toBeDefined();
  });

  it('GIVEN a long prolog that is not a listing THEN it gives up without waiting for the end', () => {
    const scanner = new ListingScanner();
    expect(scanner.feed(`<Other>${'x'.repeat(5000)}`)).toBe(false);
  });
});
