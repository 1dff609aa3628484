import { fromAzureMetadataName, toAzureMetadataName } from '../../../functions/core/backends/azure/blob-headers';
import { collectPage, decodeToken, isoDate, relativeKey, startPosition, toListPage, type BackendListPage, type ListItem } from '../../../functions/core/listing/paging';
import { compareKeys } from '../../../functions/core/keys';
import type { ListParams } from '../../../functions/core/backends/store';
import { S3Error } from '../../../functions/core/errors';

const params = (extra: Partial<ListParams> = {}): ListParams => ({ version: 2, prefix: 'p/', maxKeys: 1000, fetchOwner: false, ...extra });
const item = (key: string): ListItem => ({ key, entry: { key, lastModified: '', etag: '""', size: 0, storageClass: 'STANDARD' } });

/** A backend over sorted names that pages by index markers, optionally repeating every prefix per page. */
function backend(names: string[], prefixes: string[] = []): { fetch: (marker: string | undefined, limit: number) => Promise<BackendListPage>; calls: number } {
  const state = { calls: 0, fetch: async (marker: string | undefined, limit: number): Promise<BackendListPage> => {
    state.calls++;
    const start = marker === undefined ? 0 : Number(marker);
    const page = names.slice(start, start + limit);
    const next = start + limit < names.length ? String(start + limit) : undefined;
    // Prefixes up to the page's end (all of them on the last page), repeated on every later page.
    const last = page[page.length - 1];
    const shown = prefixes.filter((p) => next === undefined || compareKeys(p, last) < 0);
    const items = [...page.map(item), ...shown.map((key) => ({ key }))].sort((a, b) => compareKeys(a.key, b.key));
    return { items, next };
  } };
  return state;
}

describe('listing helpers for stores whose backend pages differently', () => {
  it('orders keys by code point (UTF-8 byte order), not UTF-16 units', () => {
    expect(compareKeys('\u{1F600}', '\uFFFD')).toBe(1);
    expect('\u{1F600}' < '\uFFFD').toBe(true);
    expect(compareKeys('a', 'ab')).toBe(-1);
    expect(compareKeys('ab', 'ab')).toBe(0);
  });

  it('collects exact pages and resumes where the last one stopped, across backend pages', async () => {
    const b = backend(['a', 'b', 'c', 'd', 'e']);
    const first = await collectPage(b.fetch, {}, 2, 1000);
    expect(first.items.map((i) => i.key)).toEqual(['a', 'b']);
    const second = await collectPage(b.fetch, first.resume ?? {}, 2, 1000);
    expect(second.items.map((i) => i.key)).toEqual(['c', 'd']);
    const third = await collectPage(b.fetch, second.resume ?? {}, 2, 1000);
    expect(third.items.map((i) => i.key)).toEqual(['e']);
    expect(third.resume).toBeUndefined();
  });

  it('skips past a plain key and drops prefixes a backend repeats on every page', async () => {
    const b = backend(['a', 'c', 'e', 'f'], ['d/']);
    const out = await collectPage(b.fetch, { after: 'b' }, 10, 1);
    expect(out.items.map((i) => i.key)).toEqual(['c', 'd/', 'e', 'f']);
  });

  it('answers max-keys 0 with an empty, untruncated page', async () => {
    expect(await collectPage(backend(['a']).fetch, {}, 0, 1000)).toEqual({ items: [] });
  });

  it('issues tokens bound to their listing: another prefix or delimiter is InvalidArgument', () => {
    const page = toListPage(params(), [item('a')], { marker: 'm', after: 'a' });
    expect(page.isTruncated).toBe(true);
    expect(decodeToken(params(), page.nextContinuationToken ?? '')).toEqual({ marker: 'm', after: 'a' });
    expect(() => decodeToken(params({ prefix: 'q/' }), page.nextContinuationToken ?? '')).toThrow(S3Error);
    expect(() => decodeToken(params({ delimiter: '/' }), page.nextContinuationToken ?? '')).toThrow(S3Error);
    expect(() => decodeToken(params(), 'garbage!')).toThrow(S3Error);
  });

  it('reads a V1 marker it issued as a position, and any other marker as a key', () => {
    const page = toListPage(params({ version: 1 }), [item('a')], { marker: 'm', after: 'a' });
    expect(page.nextMarker).toMatch(/^gw1\./);
    expect(startPosition(params({ version: 1, marker: page.nextMarker }))).toEqual({ marker: 'm', after: 'a' });
    expect(startPosition(params({ version: 1, marker: 'p/some key' }))).toEqual({ after: 'p/some key' });
    expect(startPosition(params({ startAfter: 'p/k' }))).toEqual({ after: 'p/k' });
  });
});

describe('Azure metadata names', () => {
  it.each([
    ['original-name', 'original_name'],
    ['snake_case', 'snake__case'],
    ['mixed-and_both', 'mixed_and__both'],
    ['plain', 'plain'],
  ])('%s is stored as %s and reads back unchanged', (s3, azure) => {
    expect(toAzureMetadataName(s3)).toBe(azure);
    expect(fromAzureMetadataName(azure)).toBe(s3);
  });

  it('reads native Azure names with "_" as "-", lower-cased as S3 does', () => {
    expect(fromAzureMetadataName('My_Key')).toBe('my-key');
  });

  it.each(['1starts-with-digit', 'has.dot', 'ünïcode', 'double--hyphen', 'hyphen-_underscore', 'ends-_'])('refuses %s with InvalidArgument', (name) => {
    expect(() => toAzureMetadataName(name)).toThrow(expect.objectContaining({ code: 'InvalidArgument' }));
  });

  it('stores every name it accepts so that it reads back as itself, and no two names alike', () => {
    const names = ['a'];
    for (let length = 2; length <= 6; length++) {
      for (const name of names.filter((n) => n.length === length - 1)) for (const c of ['a', '1', '_', '-']) names.push(name + c);
    }
    const stored = new Map<string, string>();
    for (const name of names) {
      let azure: string;
      try {
        azure = toAzureMetadataName(name);
      } catch {
        continue;
      }
      expect(fromAzureMetadataName(azure)).toBe(name);
      expect(stored.get(azure) ?? name).toBe(name);
      stored.set(azure, name);
    }
    expect(stored.size).toBeGreaterThan(500);
  });
});

describe('isoDate: a store\'s Last-Modified as S3 listings write it', () => {
  const parsed = (httpDate: string): string => new Date(Date.parse(httpDate)).toISOString();

  it('GIVEN RFC 1123 dates across every month, day and hour THEN they read as Date.parse reads them', () => {
    for (let t = Date.UTC(1999, 0, 1); t < Date.UTC(2031, 0, 1); t += 7_919_993_000) {
      const httpDate = new Date(t).toUTCString();
      expect(isoDate(httpDate)).toBe(parsed(httpDate));
    }
    expect(isoDate('Sat, 29 Feb 2028 23:59:59 GMT')).toBe('2028-02-29T23:59:59.000Z');
    expect(isoDate('Sat, 28 Nov 2026 02:53:21 GMT')).toBe('2026-11-28T02:53:21.000Z');
  });

  it('GIVEN a day past the month\'s end or another form THEN Date.parse decides; what it cannot read stays as it was', () => {
    for (const other of ['Tue, 31 Feb 2026 10:00:00 GMT', 'Fri, 27 Nov 2026 10:00:00 +0100', '2026-11-27T10:00:00Z', 'Fri, 27 Nov 2026 24:00:00 GMT']) {
      const ms = Date.parse(other);
      expect(isoDate(other)).toBe(Number.isNaN(ms) ? other : new Date(ms).toISOString());
    }
    expect(isoDate('yesterday')).toBe('yesterday');
    expect(isoDate('Fri, 27 Foo 2026 10:00:00 GMT')).toBe('Fri, 27 Foo 2026 10:00:00 GMT');
  });
});

describe('relativeKey: a listed name in the bucket\'s key space', () => {
  it('GIVEN names under, at and beside the backend prefix THEN the prefix is stripped, and a sibling sharing its text is outside', () => {
    expect(relativeKey('tenant-a/doc.txt', 'tenant-a/')).toBe('doc.txt');
    expect(relativeKey('tenant-a/', 'tenant-a/')).toBe('');
    expect(relativeKey('tenant-ab/doc.txt', 'tenant-a/')).toBeUndefined();
    expect(relativeKey('doc.txt', '')).toBe('doc.txt');
  });
});
