import { compareKeys } from '../../functions/core/keys';
import type { ListPage, ListParams, ObjectStore } from '../../functions/core/backends/store';

/**
 * A store over sorted in-memory keys with S3's listing semantics, recording what it is asked. With
 * `tokens` it hands out its own resume tokens (`k:` + the last name), as the Azure and GCS stores hand out
 * their backend markers; with `markers` it answers V1's NextMarker.
 */
export function memoryStore(keys: readonly string[], calls: ListParams[], options: { tokens?: boolean; markers?: boolean } = {}): ObjectStore {
  const sorted = [...keys].sort(compareKeys);
  return {
    forwardObject: () => Promise.reject(new Error('not used')),
    deleteObjects: () => Promise.reject(new Error('not used')),
    list: async (params: ListParams): Promise<ListPage> => {
      calls.push(params);
      const after = params.continuationToken?.replace(/^k:/, '') ?? params.marker ?? params.startAfter;
      const items: Array<{ value: string; cp: boolean }> = [];
      for (const key of sorted) {
        if (!key.startsWith(params.prefix) || (after !== undefined && compareKeys(key, after) <= 0)) continue;
        const at = params.delimiter === undefined ? -1 : key.indexOf(params.delimiter, params.prefix.length);
        if (at < 0) {
          items.push({ value: key, cp: false });
          continue;
        }
        const cp = key.slice(0, at + (params.delimiter ?? '').length);
        if (items[items.length - 1]?.value !== cp && !(after !== undefined && after.startsWith(cp))) items.push({ value: cp, cp: true });
      }
      const page = items.slice(0, params.maxKeys);
      const truncated = items.length > params.maxKeys;
      const last = page[page.length - 1]?.value;
      return {
        contents: page.filter((i) => !i.cp).map((i) => ({ key: i.value, lastModified: '2030-01-01T00:00:00.000Z', etag: '"e"', size: 1, storageClass: 'STANDARD' })),
        commonPrefixes: page.filter((i) => i.cp).map((i) => i.value),
        isTruncated: truncated,
        nextMarker: truncated && options.markers ? last : undefined,
        nextContinuationToken: truncated && options.tokens ? `k:${last}` : undefined,
      };
    },
  };
}
