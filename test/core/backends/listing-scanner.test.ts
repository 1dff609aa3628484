import { ListingScanner } from '../../../functions/core/backends/listing-scanner';

/**
 * The scanner on its own (its readings are compared with the general parser's in s3-listing.test.ts): what it
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
