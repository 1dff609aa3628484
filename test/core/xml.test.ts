import { buildXml, childOf, escapeXml, listOf, parseXml, textOf } from '../../functions/core/xml';

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

describe('escapeXml', () => {
  it('escapes all five XML special characters', () => {
    expect(escapeXml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&apos;');
  });

  it('escapes an ampersand that already looks like an entity, so nothing is decoded twice', () => {
    expect(escapeXml('&amp; &#38;')).toBe('&amp;amp; &amp;#38;');
  });

  it('leaves other text, unicode included, as it is', () => {
    expect(escapeXml('a/b c=d*%~#?[]+ é😀')).toBe('a/b c=d*%~#?[]+ é😀');
  });
});

describe('buildXml', () => {
  it('writes the declaration and the root element with its namespace', () => {
    expect(buildXml('Root', {}, 'http://s3.amazonaws.com/doc/2006-03-01/')).toBe(
      `${DECLARATION}<Root xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></Root>`,
    );
  });

  it('writes a root without a namespace when none is given', () => {
    expect(buildXml('Root', { A: 'x' })).toBe(`${DECLARATION}<Root><A>x</A></Root>`);
  });

  it('escapes all five special characters in text it writes', () => {
    expect(buildXml('R', { Key: `a&b<c>d"e'f` })).toBe(`${DECLARATION}<R><Key>a&amp;b&lt;c&gt;d&quot;e&apos;f</Key></R>`);
  });

  it('escapes the namespace', () => {
    expect(buildXml('R', {}, 'urn:"x"&y')).toBe(`${DECLARATION}<R xmlns="urn:&quot;x&quot;&amp;y"></R>`);
  });

  it('writes nested elements in insertion order', () => {
    expect(buildXml('R', { Owner: { ID: '1', DisplayName: 'me' }, Name: 'b' })).toBe(
      `${DECLARATION}<R><Owner><ID>1</ID><DisplayName>me</DisplayName></Owner><Name>b</Name></R>`,
    );
  });

  it('repeats the element once per array item', () => {
    expect(buildXml('R', { Contents: [{ Key: 'a' }, { Key: 'b' }], Prefix: ['x/', 'y/'] })).toBe(
      `${DECLARATION}<R><Contents><Key>a</Key></Contents><Contents><Key>b</Key></Contents><Prefix>x/</Prefix><Prefix>y/</Prefix></R>`,
    );
  });

  it('writes nothing for an empty array', () => {
    expect(buildXml('R', { Contents: [], Name: 'b' })).toBe(`${DECLARATION}<R><Name>b</Name></R>`);
  });

  it('omits undefined and null values, also inside arrays', () => {
    expect(buildXml('R', { A: undefined, B: null, C: 'c', D: [{ E: undefined }], F: [undefined, 'f'] })).toBe(
      `${DECLARATION}<R><C>c</C><D></D><F>f</F></R>`,
    );
  });

  it('writes numbers and booleans as text, and the empty string as an empty element', () => {
    expect(buildXml('R', { Size: 0, MaxKeys: 1000, IsTruncated: false, Marker: '' })).toBe(
      `${DECLARATION}<R><Size>0</Size><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated><Marker></Marker></R>`,
    );
  });

  it('produces a document that parseXml reads back to the same text', () => {
    const key = `a&b<c>d"e'f é 😀 ]]> &amp;`;
    const doc = parseXml(buildXml('ListBucketResult', { Contents: [{ Key: key }, { Key: 'second' }] }));
    expect(listOf(childOf(doc, 'ListBucketResult'), 'Contents').map((c) => textOf(childOf(c, 'Key')))).toEqual([key, 'second']);
  });
});

describe('parseXml', () => {
  it('reads elements, with repeated elements as arrays', () => {
    expect(parseXml('<Delete><Object><Key>a</Key></Object><Object><Key>b</Key></Object><Quiet>true</Quiet></Delete>')).toEqual({
      Delete: { Object: [{ Key: 'a' }, { Key: 'b' }], Quiet: 'true' },
    });
  });

  it('keeps text as strings, never converting numbers or booleans', () => {
    expect(parseXml('<R><Size>0012</Size><T>true</T></R>')).toEqual({ R: { Size: '0012', T: 'true' } });
  });

  it('keeps surrounding whitespace in text, since keys may start or end with spaces', () => {
    expect(parseXml('<Key>  spaced  </Key>')).toEqual({ Key: '  spaced  ' });
  });

  it('decodes the five predefined entities', () => {
    expect(parseXml('<Key>&amp;&lt;&gt;&quot;&apos;</Key>')).toEqual({ Key: `&<>"'` });
  });

  it('decodes an escaped entity exactly once', () => {
    expect(parseXml('<Key>&amp;lt;</Key>')).toEqual({ Key: '&lt;' });
  });

  it('ignores attributes, the declaration and processing instructions', () => {
    expect(parseXml('<?xml version="1.0" encoding="UTF-8"?><?pi x?><R xmlns="urn:x" a="1"><K>v</K></R>')).toEqual({ R: { K: 'v' } });
  });

  it('reads an empty element as empty text', () => {
    expect(parseXml('<R><A></A><B/></R>')).toEqual({ R: { A: '', B: '' } });
  });

  it('refuses a document with a DOCTYPE', () => {
    expect(parseXml('<?xml version="1.0"?><!DOCTYPE Delete><Delete><Object><Key>a</Key></Object></Delete>')).toBeUndefined();
  });

  it('refuses a DOCTYPE written in any case', () => {
    expect(parseXml('<!doctype r><r>x</r>')).toBeUndefined();
  });

  it('refuses the billion-laughs entity expansion', () => {
    const lol = [
      '<?xml version="1.0"?>',
      '<!DOCTYPE lolz [',
      ' <!ENTITY lol "lol">',
      ' <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">',
      ' <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">',
      ']>',
      '<Delete><Object><Key>&lol3;</Key></Object></Delete>',
    ].join('\n');
    expect(parseXml(lol)).toBeUndefined();
  });

  it('refuses an external entity declaration', () => {
    expect(parseXml('<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r>&xxe;</r>')).toBeUndefined();
  });

  it('refuses an ENTITY declaration even without a DOCTYPE', () => {
    expect(parseXml('<r><!ENTITY x "y"></r>')).toBeUndefined();
  });

  it.each([
    ['an unclosed element', '<Delete><Object><Key>a</Key></Object>'],
    ['mismatched tags', '<a><b></a></b>'],
    ['plain text', 'not xml at all'],
    ['an empty body', ''],
  ])('returns undefined for %s', (_, text) => {
    expect(parseXml(text)).toBeUndefined();
  });
});

describe('textOf, listOf, childOf', () => {
  const doc = parseXml(
    '<ListBucketResult><Name>b</Name><Contents><Key>a</Key></Contents><Contents><Key>b</Key></Contents>' +
      '<CommonPrefixes><Prefix>p/</Prefix></CommonPrefixes><Empty></Empty></ListBucketResult>',
  );
  const root = childOf(doc, 'ListBucketResult');

  it('childOf returns the single child, or the first of repeated children', () => {
    expect(textOf(childOf(root, 'Name'))).toBe('b');
    expect(childOf(root, 'Contents')).toEqual({ Key: 'a' });
  });

  it('childOf returns undefined for a missing child, a text node or no node', () => {
    expect(childOf(root, 'Missing')).toBeUndefined();
    expect(childOf('text', 'Name')).toBeUndefined();
    expect(childOf(undefined, 'Name')).toBeUndefined();
  });

  it('listOf returns repeated children as an array and a single child as an array of one', () => {
    expect(listOf(root, 'Contents')).toEqual([{ Key: 'a' }, { Key: 'b' }]);
    expect(listOf(root, 'CommonPrefixes')).toEqual([{ Prefix: 'p/' }]);
  });

  it('listOf returns an empty array for a missing child, a text node or no node', () => {
    expect(listOf(root, 'Missing')).toEqual([]);
    expect(listOf('text', 'Contents')).toEqual([]);
    expect(listOf(undefined, 'Contents')).toEqual([]);
  });

  it('textOf returns the text of an element, the first of an array, or undefined when absent', () => {
    expect(textOf('plain')).toBe('plain');
    expect(textOf(['first', 'second'])).toBe('first');
    expect(textOf(childOf(root, 'Empty'))).toBe('');
    expect(textOf(undefined)).toBeUndefined();
    expect(textOf([])).toBeUndefined();
  });

  it('textOf of an element that has children is the empty string', () => {
    expect(textOf(childOf(root, 'Contents'))).toBe('');
  });
});

describe('parseXml: character references', () => {
  it('decodes numeric character references, as Go-based servers write ETags and SDKs write newlines in keys', () => {
    expect(parseXml('<ETag>&#34;abc&#34;</ETag>')).toEqual({ ETag: '"abc"' });
    expect(parseXml('<Key>a&#x0A;b</Key>')).toEqual({ Key: 'a\nb' });
  });
});

describe('parseXml: the purpose-built scanner', () => {
  it('reads pretty-printed documents, attributes (even holding ">"), comments, CDATA and declarations', () => {
    const doc = `<?xml version="1.0" encoding="utf-8"?>
<!-- a listing -->
<EnumerationResults ServiceEndpoint="http://a/?x>y" ContainerName='c'>
  <Blobs>
    <Blob><Name><![CDATA[a<b&c]]></Name></Blob>
    <Blob><Name>d &amp; e</Name></Blob>
  </Blobs>
  <NextMarker />
</EnumerationResults>`;
    expect(parseXml(doc)).toEqual({
      EnumerationResults: { Blobs: { Blob: [{ Name: 'a<b&c' }, { Name: 'd & e' }] }, NextMarker: '' },
    });
  });

  it.each([
    ['a second root element', '<A>1</A><B>2</B>'],
    ['a mismatched closing tag', '<A><B>1</A></B>'],
    ['an unclosed element', '<A><B>1</B>'],
    ['text outside the root', 'x<A>1</A>'],
    ['an unknown entity', '<A>&nbsp;</A>'],
    ['a stray ampersand', '<A>a & b</A>'],
    ['an out-of-range character reference', '<A>&#x110000;</A>'],
    ['a NUL character reference', '<A>&#0;</A>'],
    ['an unterminated comment', '<A><!-- 1</A>'],
    ['an empty document', ''],
    ['nesting deeper than 64', '<A>'.repeat(70) + '</A>'.repeat(70)],
  ])('refuses %s', (_what, doc) => {
    expect(parseXml(doc)).toBeUndefined();
  });

  it('keeps element names such as __proto__ as plain data', () => {
    const parsed = parseXml('<R><__proto__>x</__proto__><constructor>y</constructor></R>');
    expect(textOf(childOf(parsed?.R, '__proto__'))).toBe('x');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
