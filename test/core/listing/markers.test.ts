import { S3Error } from '../../../functions/core/errors';
import { Shown, clientNames, endsBefore, markerParams, pastStart, startOf, within, type Listed, type MarkerListing } from '../../../functions/core/listing/markers';
import { Query } from '../../../functions/core/query';

/**
 * What ListObjectVersions and ListMultipartUploads share: their parameters, which ranges a position has
 * passed, and the position the entries shown leave. The listings themselves are specified against RGW and
 * s3rver (test/e2e/versions.test.ts, multipart.test.ts, path-mapping-ops.test.ts).
 */

const UPLOADS: MarkerListing<Listed> = { subresource: 'uploads', root: 'ListMultipartUploadsResult', maxName: 'max-uploads', idMarkerName: 'upload-id-marker', entriesOf: () => [] };
const entry = (key: string, id = 'v1'): Listed => ({ key, id, node: {} });

describe('markerParams', () => {
  it('reads the listing\'s own id marker and limit, with S3\'s defaults', () => {
    expect(markerParams(new Query('uploads&prefix=a%2F&key-marker=a%2Fk&upload-id-marker=u1&max-uploads=7'), UPLOADS)).toEqual({
      prefix: 'a/',
      delimiter: undefined,
      keyMarker: 'a/k',
      idMarker: 'u1',
      max: 7,
      encodeUrl: false,
    });
    expect(markerParams(new Query('uploads'), UPLOADS)).toMatchObject({ prefix: '', max: 1000, encodeUrl: false });
  });

  it('reads an empty delimiter or marker as none, and caps the limit at 1000', () => {
    expect(markerParams(new Query('uploads&delimiter=&key-marker=&max-uploads=5000&encoding-type=url'), UPLOADS)).toMatchObject({
      delimiter: undefined,
      keyMarker: undefined,
      max: 1000,
      encodeUrl: true,
    });
  });

  it('refuses a limit that is no whole number, and an encoding other than url, as S3 does', () => {
    expect(() => markerParams(new Query('uploads&max-uploads=-1'), UPLOADS)).toThrow(S3Error);
    expect(() => markerParams(new Query('uploads&encoding-type=base64'), UPLOADS)).toThrow('Invalid Encoding Method specified in Request');
  });
});

describe('startOf and pastStart', () => {
  const params = (keyMarker?: string, idMarker?: string) => ({ prefix: '', keyMarker, idMarker, max: 10, encodeUrl: false });

  it('starts at the markers as given in a bucket of its own', () => {
    expect(startOf(params('a', 'u1'), '')).toEqual({ keyMarker: 'a', idMarker: 'u1', max: 10 });
  });

  it('takes a path-mapped key marker inside the bucket, and the id marker only beside a key marker', () => {
    expect(startOf(params('repo/a', 'u1'), 'repo/')).toEqual({ keyMarker: 'a', idMarker: 'u1', max: 10 });
    expect(startOf(params('aaa', 'u1'), 'repo/')).toEqual({ keyMarker: undefined, idMarker: undefined, max: 10 });
  });

  it('shows nothing when the key marker lies past every key of the mapped bucket', () => {
    expect(startOf(params('zzz'), 'repo/').max).toBe(0);
  });

  it('passes every entry of a key marker given alone, and none of it beside an id marker', () => {
    expect(pastStart(startOf(params('a'), ''), 'a')).toBe(false);
    expect(pastStart(startOf(params('a'), ''), 'b')).toBe(true);
    expect(pastStart(startOf(params('a', 'u1'), ''), 'a')).toBe(true);
  });
});

describe('within and endsBefore', () => {
  const exact = { prefix: 'data', exact: true };
  const under = { prefix: 'data/', exact: false };

  it('an exact range holds only its key; a prefix range every key under it', () => {
    expect(within(exact, 'data')).toBe(true);
    expect(within(exact, 'data/x')).toBe(false);
    expect(within(under, 'data/x')).toBe(true);
    expect(within(under, 'database')).toBe(false);
  });

  it('a key marker alone passes every entry of its key; with an id, the key\'s later entries remain', () => {
    expect(endsBefore(exact, 'data', undefined)).toBe(true);
    expect(endsBefore(exact, 'data', 'v1')).toBe(false);
    expect(endsBefore(exact, 'dat', undefined)).toBe(false);
    expect(endsBefore(exact, 'datb', undefined)).toBe(true);
  });

  it('a prefix range is passed by a marker after all of it, not by one inside it', () => {
    expect(endsBefore(under, 'data/zzz', undefined)).toBe(false);
    expect(endsBefore(under, 'data0', undefined)).toBe(true);
    expect(endsBefore(under, 'a', undefined)).toBe(false);
  });
});

describe('Shown', () => {
  it('counts entries and common prefixes, and shows a prefix repeated in a row once', () => {
    const shown = new Shown<Listed>();
    shown.entry(entry('a'));
    shown.prefix('b/');
    shown.prefix('b/');
    expect(shown.count).toBe(2);
    expect(shown.endsWith('b/')).toBe(true);
    expect(shown.prefixes).toEqual(['b/']);
  });

  it('leaves the last position shown in key order: an entry with its id, a prefix without one', () => {
    const shown = new Shown<Listed>();
    shown.entry(entry('a', 'v2'));
    expect(shown.last).toEqual({ key: 'a', id: 'v2' });
    shown.entry(entry('a', 'v1'));
    expect(shown.last).toEqual({ key: 'a', id: 'v1' });
    shown.prefix('c/');
    expect(shown.last).toEqual({ key: 'c/' });
    shown.prefix('b/');
    expect(shown.last).toEqual({ key: 'c/' });
  });

  it('starts the next page after the last position shown, else where this page started, so a truncated page says more follows', () => {
    const params = (keyMarker?: string, idMarker?: string) => ({ prefix: '', keyMarker, idMarker, max: 10, encodeUrl: false });
    const shown = new Shown<Listed>();
    expect(shown.next(params(), startOf(params(), ''))).toBeUndefined();
    expect(shown.next(params('a', 'u1'), startOf(params('a', 'u1'), ''))).toEqual({ key: 'a', id: 'u1' });
    // A path-mapped key marker before the bucket's keys starts it at its first key: the bucket's own base.
    expect(shown.next(params('aaa', 'u1'), startOf(params('aaa', 'u1'), 'repo/'))).toEqual({ key: '', id: undefined });
    shown.entry(entry('b', 'u2'));
    expect(shown.next(params('a', 'u1'), startOf(params('a', 'u1'), ''))).toEqual({ key: 'b', id: 'u2' });
  });
});

describe('clientNames', () => {
  it('names keys under the path-mapped base, URL-encoded only when the client asked', () => {
    const plain = clientNames({ prefix: '', max: 1000, encodeUrl: false }, 'repo/');
    expect(plain.client('a b')).toBe('repo/a b');
    const encoded = clientNames({ prefix: '', max: 1000, encodeUrl: true }, 'repo/');
    expect(encoded.client('a b')).toBe('repo/a%20b');
    expect(encoded.encode('a b')).toBe('a%20b');
  });
});
