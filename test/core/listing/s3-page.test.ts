import { UNRECOGNISED, parseS3Listing, readS3Listing, readS3ListingBody, scanS3Listing } from '../../../functions/core/listing/s3-page';
import { streamOf as body } from '../../support/streams';

/**
 * Reading an S3 backend's ListBucketResult: the scanner reads the shape S3 implementations send, and gives
 * every other document to the general parser. Whatever it accepts, it must read exactly as the parser does.
 */

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">';
const entry = (key: string, extra = ''): string =>
  `<Contents><Key>${key}</Key><LastModified>2026-11-27T10:00:00.000Z</LastModified><ETag>&quot;9dd4e461268c8034f5c8564e155c67a6&quot;</ETag><Size>11</Size>${extra}<StorageClass>STANDARD</StorageClass></Contents>`;
const doc = (body: string): string => `${HEAD}<Name>store</Name><Prefix>tenant-a%2F</Prefix><MaxKeys>1000</MaxKeys><EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>${body}</ListBucketResult>`;

/** The scanner's page, checked against the parser's. */
function scanned(xml: string, prefix = 'tenant-a/'): ReturnType<typeof scanS3Listing> {
  const page = scanS3Listing(xml, prefix);
  if (page !== UNRECOGNISED) expect(page).toEqual(parseS3Listing(xml, prefix));
  return page;
}

describe('scanS3Listing: the shape backends send', () => {
  it('GIVEN RGW\'s page (owners, Type, url-encoded keys) THEN keys are decoded and stripped, ETags unescaped, owners dropped', () => {
    const xml = doc(entry('tenant-a%2Fa%20b.txt', '<Owner><ID>rgw</ID><DisplayName>rgw</DisplayName></Owner><Type>Normal</Type>') + '<CommonPrefixes><Prefix>tenant-a%2Fdir%2F</Prefix></CommonPrefixes><KeyCount>2</KeyCount>');
    expect(scanned(xml)).toEqual({
      contents: [{ key: 'a b.txt', lastModified: '2026-11-27T10:00:00.000Z', etag: '"9dd4e461268c8034f5c8564e155c67a6"', size: 11, storageClass: 'STANDARD' }],
      commonPrefixes: ['dir/'],
      isTruncated: true,
    });
  });

  it('GIVEN entries and prefixes outside backend_prefix THEN they are dropped', () => {
    const xml = doc(entry('tenant-b%2Fx') + entry('tenant-a%2Fy') + '<CommonPrefixes><Prefix>tenant-b%2Fd%2F</Prefix></CommonPrefixes>');
    const page = scanned(xml);
    expect(page).not.toBe(UNRECOGNISED);
    expect(page !== UNRECOGNISED && page.contents.map((c) => c.key)).toEqual(['y']);
    expect(page !== UNRECOGNISED && page.commonPrefixes).toEqual([]);
  });

  it('GIVEN pretty-printed XML THEN it reads the same', () => {
    const xml = doc(`\n  <Contents>\n    <Key>tenant-a%2Fk</Key>\n    <Size>3</Size>\n    <Owner>\n      <ID>o</ID>\n    </Owner>\n  </Contents>\n`) + '\n';
    expect(scanned(xml)).not.toBe(UNRECOGNISED);
  });

  it('GIVEN entities in keys and ETags (&amp; &lt; numeric references) THEN they decode as the parser decodes them', () => {
    const xml = doc(entry('tenant-a%2Fa&amp;b&lt;c&#x41;&#66;') + entry('tenant-a%2F&amp;quot;'));
    const page = scanned(xml);
    expect(page !== UNRECOGNISED && page.contents.map((c) => c.key)).toEqual(['a&b<cAB', '&quot;']);
  });

  it('GIVEN a repeated field THEN the first counts, as for the parser; a missing Key drops the entry', () => {
    const xml = doc('<Contents><Key>tenant-a%2Ffirst</Key><Key>tenant-a%2Fsecond</Key><Size>1</Size><Size>2</Size></Contents><Contents><Size>5</Size></Contents>');
    const page = scanned(xml);
    expect(page !== UNRECOGNISED && page.contents.map((c) => [c.key, c.size])).toEqual([['first', 1]]);
  });

  it('GIVEN a store that ignores encoding-type (no EncodingType, as s3rver) THEN names are taken as listed', () => {
    const xml = doc(entry('tenant-a/100%.txt') + entry('tenant-a/100%25.txt') + '<CommonPrefixes><Prefix>tenant-a/50%/</Prefix></CommonPrefixes>').replace('<EncodingType>url</EncodingType>', '');
    const page = scanned(xml);
    expect(page !== UNRECOGNISED && page.contents.map((c) => c.key)).toEqual(['100%.txt', '100%25.txt']);
    expect(page !== UNRECOGNISED && page.commonPrefixes).toEqual(['50%/']);
  });

  it('GIVEN EncodingType url and a name that is not valid percent-encoding THEN it is taken as listed, never a crash', () => {
    const page = scanned(doc(entry('a%2F100%.txt') + entry('a%2F%E2%82') + entry('a%2Fb')), '');
    expect(page !== UNRECOGNISED && page.contents.map((c) => c.key)).toEqual(['a%2F100%.txt', 'a%2F%E2%82', 'a/b']);
  });

  it('GIVEN fields named like Object.prototype members THEN they are ignored', () => {
    expect(scanned(doc('<Contents><Key>tenant-a%2Fk</Key><constructor>x</constructor><toString>y</toString></Contents>'))).not.toBe(UNRECOGNISED);
  });
});

describe('scanS3Listing: hostile or unusual documents go to the parser', () => {
  const unrecognised: Array<[string, string]> = [
    ['a comment', doc(`<!-- <Contents><Key>tenant-a%2Fhidden</Key></Contents> -->${entry('tenant-a%2Fk')}`)],
    ['a comment inside a key', doc('<Contents><Key>tenant-a%2F<!-- x -->k</Key></Contents>')],
    ['CDATA in a key', doc('<Contents><Key><![CDATA[tenant-a%2F<k>]]></Key></Contents>')],
    ['a DOCTYPE', `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "tenant-a%2Fboom">]>${doc(entry('&e;')).replace(/^<\?xml[^>]*>\n/, '')}`],
    ['an unknown entity', doc(entry('tenant-a%2F&e;'))],
    ['a stray ampersand', doc(entry('tenant-a%2Fa&b'))],
    ['an attribute on an entry', doc('<Contents id="1"><Key>tenant-a%2Fk</Key></Contents>')],
    ['a namespaced element', doc('<s3:Contents><Key>tenant-a%2Fk</Key></s3:Contents>')],
    ['a self-closing element', doc('<Contents/>')],
    ['mixed content', doc('<Contents>text<Key>tenant-a%2Fk</Key></Contents>')],
    ['a Key holding elements', doc('<Contents><Key><A>tenant-a%2Fk</A></Key></Contents>')],
    ['nesting deeper than a listing', doc('<Contents><Owner><ID><X>1</X></ID></Owner></Contents>')],
    ['a mismatched end tag', doc('<Contents><Key>tenant-a%2Fk</Size></Contents>')],
    ['an unclosed document', `${HEAD}<Name>store</Name>${entry('tenant-a%2Fk')}`],
    ['content after the root', `${doc('')}<Contents><Key>tenant-a%2Fk</Key></Contents>`],
    ['another root element', '<Error><Code>AccessDenied</Code></Error>'],
    ['a root attribute holding >', doc('').replace('xmlns=', 'a="x>y" xmlns=')],
    ['an empty document', ''],
  ];
  it.each(unrecognised)('GIVEN %s THEN the scanner does not decide', (_name, xml) => {
    expect(scanS3Listing(xml, 'tenant-a/')).toBe(UNRECOGNISED);
  });

  it.each(unrecognised)('GIVEN %s THEN readS3Listing answers as the parser does', (_name, xml) => {
    expect(readS3Listing(xml, 'tenant-a/')).toEqual(parseS3Listing(xml, 'tenant-a/'));
  });

  it('GIVEN a comment hiding an entry THEN the entry stays hidden', () => {
    const page = readS3Listing(doc(`<!-- <Contents><Key>tenant-a%2Fhidden</Key></Contents> -->${entry('tenant-a%2Fk')}`), 'tenant-a/');
    expect(page?.contents.map((c) => c.key)).toEqual(['k']);
  });

  it('GIVEN a DOCTYPE or an unknown entity THEN the listing is unreadable', () => {
    expect(readS3Listing(unrecognised[3][1], 'tenant-a/')).toBeUndefined();
    expect(readS3Listing(unrecognised[4][1], 'tenant-a/')).toBeUndefined();
  });
});

describe('scanS3Listing: ETags in every form a store may write them', () => {
  const withEtag = (etag: string): string =>
    doc(`<Contents><Key>tenant-a%2Fk</Key><LastModified>2026-11-27T10:00:00.000Z</LastModified><ETag>${etag}</ETag><Size>1</Size><StorageClass>STANDARD</StorageClass></Contents>`);

  it.each([
    ['a quoted MD5', '&quot;9dd4e461268c8034f5c8564e155c67a6&quot;', '"9dd4e461268c8034f5c8564e155c67a6"'],
    ['a quoted multipart ETag in capitals', '&quot;9DD4E461268C8034F5C8564E155C67A6-12&quot;', '"9DD4E461268C8034F5C8564E155C67A6-12"'],
    ['an empty quoted ETag', '&quot;&quot;', '""'],
    ['an Azure-like quoted one', '&quot;0x8DD0F1A2B3C0001&quot;', '"0x8DD0F1A2B3C0001"'],
    ['one quoted with another reference inside', '&quot;a&amp;b&quot;', '"a&b"'],
    ['one quoted with literal quotes', '"9dd4e461268c8034f5c8564e155c67a6"', '"9dd4e461268c8034f5c8564e155c67a6"'],
    ['one without quotes', '9dd4e461268c8034f5c8564e155c67a6', '9dd4e461268c8034f5c8564e155c67a6'],
    ['a lone quote reference', '&quot;', '"'],
  ])('GIVEN %s THEN it reads as the parser reads it', (_name, written, etag) => {
    const page = scanned(withEtag(written));
    expect(page !== UNRECOGNISED && page.contents.map((c) => c.etag)).toEqual([etag]);
  });

  it('GIVEN a quoted ETag holding a reference the parser refuses THEN the scanner leaves the page to the parser', () => {
    expect(scanS3Listing(withEtag('&quot;a&bogus;&quot;'), 'tenant-a/')).toBe(UNRECOGNISED);
  });
});

describe('the scanner fed piece by piece, as a body arrives', () => {
  const xml = doc(entry('tenant-a%2Fa&amp;b', '<Owner><ID>o</ID><DisplayName>o</DisplayName></Owner>') + entry('tenant-a%2F%C3%BC') + '<CommonPrefixes><Prefix>tenant-a%2Fd%2F</Prefix></CommonPrefixes>') + '\n';

  it('GIVEN the document cut at every position THEN each reads as the whole does', () => {
    const whole = scanS3Listing(xml, 'tenant-a/');
    expect(whole).not.toBe(UNRECOGNISED);
    for (let cut = 0; cut <= xml.length; cut++) expect(scanS3Listing([xml.slice(0, cut), xml.slice(cut)], 'tenant-a/')).toEqual(whole);
  });

  it('GIVEN the document one character at a time THEN it reads as the whole does', () => {
    expect(scanS3Listing([...xml], 'tenant-a/')).toEqual(scanS3Listing(xml, 'tenant-a/'));
  });

  it('GIVEN a truncated document in pieces THEN the scanner does not decide', () => {
    expect(scanS3Listing([xml.slice(0, 200), xml.slice(200, -30)], 'tenant-a/')).toBe(UNRECOGNISED);
  });

  it('GIVEN a comment arriving in a later piece THEN the scanner does not decide', () => {
    const hostile = doc(`${entry('tenant-a%2Fk')}<!-- x -->`);
    expect(scanS3Listing([hostile.slice(0, 300), hostile.slice(300)], 'tenant-a/')).toBe(UNRECOGNISED);
  });
});

describe('readS3ListingBody', () => {
  it('GIVEN a body in pieces that split UTF-8 characters THEN it reads as the whole text does', async () => {
    const xml = doc(entry('tenant-a%2F\u00fc\u20ac\u{1F600}', '<Owner><ID>\u00fc</ID></Owner>'));
    for (const size of [1, 2, 3, 7, 64, 100_000]) expect(await readS3ListingBody(body(xml, size), 'tenant-a/')).toEqual(parseS3Listing(xml, 'tenant-a/'));
  });

  it('GIVEN a hostile body in pieces THEN the parser reads all of it', async () => {
    const xml = doc(`<!-- <Contents><Key>tenant-a%2Fhidden</Key></Contents> -->${entry('tenant-a%2Fk')}`);
    const page = await readS3ListingBody(body(xml, 50), 'tenant-a/');
    expect(page?.contents.map((c) => c.key)).toEqual(['k']);
  });

  it('GIVEN an element longer than any entry (a 2 MiB key) THEN the scanner stops waiting on it and the parser reads the page', async () => {
    const xml = doc(entry(`tenant-a%2F${'k'.repeat(2 << 20)}`));
    const pieces = Array.from({ length: Math.ceil(xml.length / 65536) }, (_, i) => xml.slice(i * 65536, (i + 1) * 65536));
    expect(scanS3Listing(pieces, 'tenant-a/')).toBe(UNRECOGNISED);
    expect((await readS3ListingBody(body(xml, 65536), 'tenant-a/'))?.contents[0].key).toHaveLength(2 << 20);
  });

  it('GIVEN an unreadable body THEN there is no page', async () => {
    expect(await readS3ListingBody(body('<ListBucketResult><Contents>', 5), 'tenant-a/')).toBeUndefined();
    expect(await readS3ListingBody(null, 'tenant-a/')).toBeUndefined();
  });
});
