import { UNRECOGNISED, parseBlobList, readBlobListBody, scanBlobList } from '../../../../functions/core/backends/azure/listing';
import { streamOf as body } from '../../../support/streams';

/**
 * Reading an Azure List Blobs page: the scanner reads the form Azure and Azurite write, and gives every other
 * document to the general parser. Whatever it accepts, it must read exactly as the parser does.
 */

const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><EnumerationResults ServiceEndpoint="http://127.0.0.1:10000/devstoreaccount1" ContainerName="store">';
/** A blob as Azurite writes it; one committed with Put Block List has no Content-MD5 (`md5` ''). */
const azurite = (name: string, tier = 'Hot', etag = '0x2031217F4BC5CA0', md5 = 'ndTkYSaMgDT1yFZOFVxnpg=='): string =>
  `<Blob><Name>${name}</Name><Properties><Creation-Time>Sat, 28 Nov 2026 02:53:21 GMT</Creation-Time><Last-Modified>Sat, 28 Nov 2026 02:53:21 GMT</Last-Modified><Etag>${etag}</Etag><Content-Length>11</Content-Length><Content-Type>application/octet-stream</Content-Type>${md5 ? `<Content-MD5>${md5}</Content-MD5>` : ''}<BlobType>BlockBlob</BlobType><LeaseStatus>unlocked</LeaseStatus><LeaseState>available</LeaseState><ServerEncrypted>true</ServerEncrypted><AccessTier>${tier}</AccessTier><AccessTierChangeTime>Sat, 28 Nov 2026 02:53:21 GMT</AccessTierChangeTime></Properties></Blob>`;
/** A blob as Azure's documentation shows it: empty properties self-closed with a space, an empty OrMetadata. */
const azure = (name: string): string =>
  `<Blob><Name>${name}</Name><Properties><Creation-Time>Fri, 27 Nov 2026 10:00:00 GMT</Creation-Time><Last-Modified>Fri, 27 Nov 2026 10:00:01 GMT</Last-Modified><Etag>0x8DD0F1A2B3C4D5E</Etag><Content-Length>0</Content-Length><Content-Type>text/plain</Content-Type><Content-Encoding /><Content-Language /><Content-CRC64 /><Content-MD5>1B2M2Y8AsgTpgAmY7PhCfg==</Content-MD5><Cache-Control /><Content-Disposition /><BlobType>BlockBlob</BlobType><AccessTier>Archive</AccessTier><AccessTierInferred>true</AccessTierInferred><LeaseStatus>unlocked</LeaseStatus><LeaseState>available</LeaseState><ServerEncrypted>true</ServerEncrypted></Properties><OrMetadata /></Blob>`;
const prefix = (name: string): string => `<BlobPrefix><Name>${name}</Name></BlobPrefix>`;
const doc = (blobs: string, next = '<NextMarker/>'): string => `${HEAD}<Prefix>tenant-a/</Prefix><Marker/><MaxResults>1000</MaxResults><Blobs>${blobs}</Blobs>${next}</EnumerationResults>`;

/** The scanner's page, checked against the parser's. */
function scanned(xml: string, backendPrefix = 'tenant-a/'): ReturnType<typeof scanBlobList> {
  const page = scanBlobList(xml, backendPrefix);
  if (page !== UNRECOGNISED) expect(page).toEqual(parseBlobList(xml, backendPrefix));
  return page;
}

const keys = (page: ReturnType<typeof scanBlobList> | undefined): string[] | undefined => (page === UNRECOGNISED ? undefined : page?.items.map((i) => i.key));

describe('scanBlobList: the forms Azure and Azurite send', () => {
  it('GIVEN Azurite\'s page THEN names are stripped, dates ISO, ETags the hex MD5 or else Azure\'s quoted, tiers read as storage classes, the marker kept', () => {
    const page = scanned(doc(azurite('tenant-a/k-0 &amp;&lt;é') + azurite('tenant-a/k-1', 'Cool', '0x2031217F4BC5CA0', ''), '<NextMarker>tenant-a/k-1</NextMarker>'));
    expect(page).toEqual({
      items: [
        { key: 'k-0 &<é', entry: { key: 'k-0 &<é', lastModified: '2026-11-28T02:53:21.000Z', etag: '"9dd4e461268c8034f5c8564e155c67a6"', size: 11, storageClass: 'STANDARD' } },
        { key: 'k-1', entry: { key: 'k-1', lastModified: '2026-11-28T02:53:21.000Z', etag: '"0x2031217F4BC5CA0"', size: 11, storageClass: 'STANDARD_IA' } },
      ],
      next: 'tenant-a/k-1',
    });
  });

  it('GIVEN Azure\'s form (self-closed empty properties, OrMetadata, NextMarker with a space) THEN it reads the same way', () => {
    const page = scanned(doc(azure('tenant-a/a') + azure('tenant-a/b'), '<NextMarker />'));
    expect(page).not.toBe(UNRECOGNISED);
    expect(page !== UNRECOGNISED && page.items.map((i) => [i.key, i.entry?.storageClass, i.entry?.size])).toEqual([
      ['a', 'GLACIER', 0],
      ['b', 'GLACIER', 0],
    ]);
    expect(page !== UNRECOGNISED && page.next).toBeUndefined();
  });

  it('GIVEN Azure\'s form with a Content-MD5, or with it empty (Put Block List keeps none) THEN the hex MD5, else Azure\'s own ETag quoted', () => {
    const noMd5 = azure('tenant-a/b').replace(/<Content-MD5>[^<]*<\/Content-MD5>/, '<Content-MD5 />');
    const page = scanned(doc(azure('tenant-a/a') + noMd5));
    expect(page !== UNRECOGNISED && page.items.map((i) => i.entry?.etag)).toEqual(['"d41d8cd98f00b204e9800998ecf8427e"', '"0x8DD0F1A2B3C4D5E"']);
  });

  it('GIVEN blobs listed with their metadata THEN a multipart upload\'s S3 ETag is the ETag (before the MD5), and other metadata is passed over', () => {
    const withMetadata = (name: string, metadata: string): string => azurite(name).replace('</Properties>', `</Properties>${metadata}`);
    const page = scanned(doc(
      withMetadata('tenant-a/a', '<Metadata><other>&quot;v&quot;</other><_s3etag>"0123456789abcdef0123456789abcdef-3"</_s3etag></Metadata>') +
        withMetadata('tenant-a/b', '<Metadata><_s3etag_x>"no"</_s3etag_x></Metadata>') +
        withMetadata('tenant-a/c', '<Metadata />') +
        azure('tenant-a/d').replace('<OrMetadata />', '<Metadata><_s3etag>"abc-2"</_s3etag></Metadata><OrMetadata />'),
    ));
    expect(page !== UNRECOGNISED && page.items.map((i) => i.entry?.etag)).toEqual(['"0123456789abcdef0123456789abcdef-3"', '"9dd4e461268c8034f5c8564e155c67a6"', '"9dd4e461268c8034f5c8564e155c67a6"', '"abc-2"']);
  });

  it('GIVEN blob prefixes beside blobs THEN both are merged in name order, those outside backend_prefix dropped', () => {
    const page = scanned(doc(azurite('tenant-a/b') + azurite('tenant-b/x') + prefix('tenant-a/a/') + prefix('tenant-a/c/') + prefix('tenant-b/d/')));
    expect(keys(page)).toEqual(['a/', 'b', 'c/']);
  });

  it('GIVEN an empty page (Blobs empty or self-closed) THEN there are no items', () => {
    expect(keys(scanned(doc('')))).toEqual([]);
    expect(keys(scanned(`${HEAD}<Blobs /><NextMarker /></EnumerationResults>`))).toEqual([]);
  });

  it('GIVEN a repeated property, the first self-closed THEN the first counts, as for the parser', () => {
    const blob = azurite('tenant-a/k', 'Hot', '0x2031217F4BC5CA0', '').replace('<Etag>', '<Etag/><Etag>').replace('<AccessTier>', '<AccessTier-Old>x</AccessTier-Old><AccessTier>');
    const page = scanned(doc(blob));
    expect(page !== UNRECOGNISED && page.items[0].entry?.etag).toBe('""');
    expect(page !== UNRECOGNISED && page.items[0].entry?.storageClass).toBe('STANDARD');
  });

  it('GIVEN references in names and in properties nobody reads THEN they decode as the parser decodes them', () => {
    const blob = azurite('tenant-a/a&amp;b&#x41;&#66;').replace('application/octet-stream', 'a&amp;b');
    expect(keys(scanned(doc(blob)))).toEqual(['a&bAB']);
  });

  it('GIVEN properties named like Object.prototype members THEN they are ignored', () => {
    expect(scanned(doc(azurite('tenant-a/k').replace('<BlobType>', '<constructor>x</constructor><toString /><BlobType>')))).not.toBe(UNRECOGNISED);
  });
});

describe('scanBlobList: hostile or unusual documents go to the parser', () => {
  const unrecognised: Array<[string, string]> = [
    ['a comment', doc(`<!-- ${azurite('tenant-a/hidden')} -->${azurite('tenant-a/k')}`)],
    ['a comment inside a name', doc(azurite('tenant-a/<!-- x -->k'))],
    ['CDATA in a name', doc(azurite('<![CDATA[tenant-a/<k>]]>'))],
    ['a DOCTYPE', `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "tenant-a/boom">]>${doc(azurite('&e;')).replace(/^<\?xml[^>]*>/, '')}`],
    ['an unknown entity in a property nobody reads', doc(azurite('tenant-a/k').replace('application/octet-stream', '&e;'))],
    ['a stray ampersand in a name', doc(azurite('tenant-a/a&b'))],
    ['an encoded name', doc(azurite('tenant-a/k').replace('<Name>', '<Name Encoded="true">'))],
    ['a pretty-printed blob', doc(azurite('tenant-a/k').replace('<Properties>', '\n  <Properties>'))],
    ['a property holding elements', doc(azurite('tenant-a/k').replace('<Etag>0x2031217F4BC5CA0</Etag>', '<Etag><X>1</X></Etag>'))],
    ['a mismatched end tag in the properties', doc(azurite('tenant-a/k').replace('</Etag>', '</ETag>'))],
    ['metadata holding elements', doc(azurite('tenant-a/k').replace('</Properties>', '</Properties><Metadata><a><b>1</b></a></Metadata>'))],
    ['metadata after OrMetadata', doc(azure('tenant-a/k').replace('<OrMetadata />', '<OrMetadata /><Metadata><a>b</a></Metadata>'))],
    ['a blob holding text', doc('<Blob>tenant-a/k</Blob>')],
    ['text inside Blobs', doc(`x${azurite('tenant-a/k')}`)],
    ['two Blobs', `${doc(azurite('tenant-a/k')).replace('</EnumerationResults>', '')}<Blobs>${azurite('tenant-a/j')}</Blobs></EnumerationResults>`],
    ['an unclosed document', doc(azurite('tenant-a/k')).slice(0, -10)],
    ['content after the root', `${doc('')}<Blobs/>`],
    ['another root element', '<?xml version="1.0"?><Error><Code>AuthenticationFailed</Code></Error>'],
    ['a root attribute holding >', doc('').replace('ContainerName=', 'a="x>y" ContainerName=')],
    ['an empty document', ''],
  ];
  it.each(unrecognised)('GIVEN %s THEN the scanner does not decide', (_name, xml) => {
    expect(scanBlobList(xml, 'tenant-a/')).toBe(UNRECOGNISED);
  });

  it('GIVEN a comment hiding a blob THEN the blob stays hidden', () => {
    expect(keys(parseBlobList(unrecognised[0][1], 'tenant-a/'))).toEqual(['k']);
  });

  it('GIVEN a DOCTYPE, an unknown entity or a stray ampersand THEN the page is unreadable', () => {
    for (const at of [3, 4, 5]) expect(parseBlobList(unrecognised[at][1], 'tenant-a/')).toBeUndefined();
  });
});

describe('the scanner fed piece by piece, as a body arrives', () => {
  const xml = doc(azurite('tenant-a/a&amp;b') + prefix('tenant-a/d/') + azure('tenant-a/\u00fc'), '<NextMarker>tenant-a/\u00fc</NextMarker>') + '\n';

  it('GIVEN the document cut at every position THEN each reads as the whole does', () => {
    const whole = scanned(xml);
    expect(whole).not.toBe(UNRECOGNISED);
    for (let cut = 0; cut <= xml.length; cut++) expect(scanBlobList([xml.slice(0, cut), xml.slice(cut)], 'tenant-a/')).toEqual(whole);
  });

  it('GIVEN the document one character at a time THEN it reads as the whole does', () => {
    expect(scanBlobList([...xml], 'tenant-a/')).toEqual(scanBlobList(xml, 'tenant-a/'));
  });

  it('GIVEN a comment arriving in a later piece THEN the scanner does not decide', () => {
    const hostile = doc(`${azurite('tenant-a/k')}<!-- x -->`);
    expect(scanBlobList([hostile.slice(0, 300), hostile.slice(300)], 'tenant-a/')).toBe(UNRECOGNISED);
  });
});

describe('readBlobListBody', () => {
  it('GIVEN a body in pieces that split UTF-8 characters THEN it reads as the whole text does', async () => {
    const xml = doc(azurite('tenant-a/\u00fc\u20ac\u{1F600}') + prefix('tenant-a/\u00e9/'));
    for (const size of [1, 2, 3, 7, 64, 100_000]) expect(await readBlobListBody(body(xml, size), 'tenant-a/')).toEqual(parseBlobList(xml, 'tenant-a/'));
  });

  it('GIVEN a hostile body in pieces THEN the parser reads all of it', async () => {
    const xml = doc(`<!-- ${azurite('tenant-a/hidden')} -->${azurite('tenant-a/k')}`);
    expect(keys(await readBlobListBody(body(xml, 50), 'tenant-a/'))).toEqual(['k']);
  });

  it('GIVEN an element longer than any entry (a 2 MiB name) THEN the scanner stops waiting on it and the parser reads the page', async () => {
    const xml = doc(azurite(`tenant-a/${'k'.repeat(2 << 20)}`));
    const pieces = Array.from({ length: Math.ceil(xml.length / 65536) }, (_, i) => xml.slice(i * 65536, (i + 1) * 65536));
    expect(scanBlobList(pieces, 'tenant-a/')).toBe(UNRECOGNISED);
    expect(keys(await readBlobListBody(body(xml, 65536), 'tenant-a/'))?.[0]).toHaveLength(2 << 20);
  });

  it('GIVEN an unreadable body THEN there is no page', async () => {
    expect(await readBlobListBody(body('<EnumerationResults><Blobs>', 5), 'tenant-a/')).toBeUndefined();
    expect(await readBlobListBody(null, 'tenant-a/')).toBeUndefined();
  });
});
