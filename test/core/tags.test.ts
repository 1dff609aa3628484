import { S3Error } from '../../functions/core/errors';
import { checkTags, parseTaggingDocument, parseTaggingHeader, tagSetNode } from '../../functions/core/tags';
import { buildXml } from '../../functions/core/xml';
import { s3CodeOf, thrownBy } from '../support/thrown';

/**
 * S3's tag sets for stores that keep tags themselves: the `x-amz-tagging` header, the Tagging document and
 * S3's limits, answered with S3's codes. Azure's own characters: backends/azure/tags.test.ts.
 */
const doc = (tags: [string, string][]): Uint8Array =>
  new TextEncoder().encode(buildXml('Tagging', tagSetNode(tags.map(([key, value]) => ({ key, value })))));

describe('parseTaggingHeader', () => {
  it('GIVEN URL-encoded query parameters THEN the tags, decoded (a plus a space, a pair without = an empty value)', () => {
    expect(parseTaggingHeader('team=data%20eng&env=prod+1&flag&a%2Bb=c%3Dd')).toEqual([
      { key: 'team', value: 'data eng' }, { key: 'env', value: 'prod 1' }, { key: 'flag', value: '' }, { key: 'a+b', value: 'c=d' },
    ]);
  });

  it('GIVEN an empty header THEN no tags', () => {
    expect(parseTaggingHeader('')).toEqual([]);
  });

  it('GIVEN a repeated key or undecodable text THEN InvalidArgument, as S3 words it', () => {
    for (const header of ['a=1&a=2', 'a=%E0%A4%A', 'a%ZZ=1']) {
      const err = thrownBy(S3Error, () => parseTaggingHeader(header));
      expect([header, err.code, err.message]).toEqual([header, 'InvalidArgument', expect.stringContaining("'x-amz-tagging'")]);
    }
  });

  it('GIVEN tags over S3\'s limits THEN they are checked as a document\'s are', () => {
    expect(s3CodeOf(() => parseTaggingHeader(Array.from({ length: 11 }, (_, i) => `k${i}=v`).join('&')))).toBe('BadRequest');
    expect(s3CodeOf(() => parseTaggingHeader(`${'k'.repeat(129)}=v`))).toBe('InvalidTag');
  });
});

describe('parseTaggingDocument', () => {
  it('GIVEN a Tagging document THEN its tags in order, values kept as sent (spaces, empty)', () => {
    expect(parseTaggingDocument(doc([['b', ' x y '], ['a', '']]))).toEqual([{ key: 'b', value: ' x y ' }, { key: 'a', value: '' }]);
  });

  it('GIVEN an empty TagSet THEN no tags', () => {
    expect(parseTaggingDocument(new TextEncoder().encode('<Tagging><TagSet></TagSet></Tagging>'))).toEqual([]);
    expect(parseTaggingDocument(new TextEncoder().encode('<Tagging><TagSet/></Tagging>'))).toEqual([]);
  });

  it('GIVEN no TagSet, a Tag without Key or Value, another root or no XML THEN MalformedXML', () => {
    for (const text of ['<Tagging/>', '<Tagging><TagSet><Tag><Key>a</Key></Tag></TagSet></Tagging>', '<Tagging><TagSet><Tag><Value>a</Value></Tag></TagSet></Tagging>', '<Tags><TagSet/></Tags>', 'a=b']) {
      expect([text, s3CodeOf(() => parseTaggingDocument(new TextEncoder().encode(text)))]).toEqual([text, 'MalformedXML']);
    }
  });

  it('GIVEN a repeated key THEN InvalidTag', () => {
    const err = thrownBy(S3Error, () => parseTaggingDocument(doc([['a', '1'], ['a', '2']])));
    expect([err.code, err.message]).toEqual(['InvalidTag', 'Cannot provide multiple Tags with the same key']);
  });
});

describe('checkTags: S3\'s limits', () => {
  const tag = (key: string, value = ''): { key: string; value: string } => ({ key, value });

  it('GIVEN 10 tags, a 128-character key and a 256-character value (counted in Unicode characters) THEN they pass', () => {
    const tags = [tag('k'.repeat(128), 'v'.repeat(256)), tag('😀'.repeat(128), 'é'.repeat(256)), ...Array.from({ length: 8 }, (_, i) => tag(`k${i}`))];
    expect(checkTags(tags)).toBe(tags);
  });

  it('GIVEN 11 tags THEN 400 BadRequest, as S3 answers it', () => {
    const err = thrownBy(S3Error, () => checkTags(Array.from({ length: 11 }, (_, i) => tag(`k${i}`))));
    expect([err.status, err.code, err.message]).toEqual([400, 'BadRequest', 'Object tags cannot be greater than 10']);
  });

  it('GIVEN an empty key, a key of 129 or a value of 257 characters THEN InvalidTag', () => {
    for (const [t, message] of [
      [tag(''), 'The TagKey you have provided is invalid'],
      [tag('k'.repeat(129)), 'The TagKey you have provided is too long, max 128'],
      [tag('k', 'v'.repeat(257)), 'The TagValue you have provided is too long, max 256'],
    ] as const) {
      const err = thrownBy(S3Error, () => checkTags([t]));
      expect([err.status, err.code, err.message]).toEqual([400, 'InvalidTag', message]);
    }
  });
});
