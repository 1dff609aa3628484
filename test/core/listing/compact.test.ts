import { elementText } from '../../../functions/core/listing/compact';
import { decodeEntities } from '../../../functions/core/xml';

/** What the general parser makes of an element's text: its references decoded, or nothing when it refuses one. */
function parserReading(raw: string): string | undefined {
  try {
    return decodeEntities(raw);
  } catch {
    return undefined;
  }
}

describe('elementText: element text read as the general parser reads it', () => {
  it.each([
    ['plain text', 'STANDARD'],
    ['a quoted ETag', '&quot;9dd4e461268c8034f5c8564e155c67a6&quot;'],
    ['an empty quoted ETag', '&quot;&quot;'],
    ['a lone quote', '&quot;'],
    ['a quote at the start only', '&quot;abc'],
    ['a quote at the end only', 'abc&quot;'],
    ['a quote inside a quoted value', '&quot;a&quot;b&quot;'],
    ['another reference inside a quoted value', '&quot;a&amp;b&quot;'],
    ['a numeric reference inside a quoted value', '&quot;a&#65;&quot;'],
    ['an unknown reference inside a quoted value', '&quot;a&bogus;&quot;'],
    ['a quoted value whose last reference is unterminated', '&quot;x&quot'],
    ['a bare ampersand after a quoted value', '&quot;x&quot;&'],
    ['references without quotes', 'a&lt;b&gt;c&amp;d&apos;e'],
  ])('GIVEN %s THEN it reads as the parser does', (_, raw) => {
    expect(elementText(raw)).toBe(parserReading(raw));
  });
});
