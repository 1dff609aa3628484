import { S3Error } from '../errors';
import type { Query } from '../query';

/**
 * Query parameters every S3 listing shares (ListObjects, ListObjectVersions, ListMultipartUploads), read
 * with S3's defaults, limits and errors.
 */

/** `max-keys` / `max-uploads` / `max-parts`: a whole number, at most 1000 (more asks for the limit); 1000 when absent. */
export function maxEntries(query: Query, name: 'max-keys' | 'max-uploads' | 'max-parts'): number {
  const raw = query.get(name);
  if (raw !== undefined && !/^\d+$/.test(raw)) throw new S3Error('InvalidArgument', `Provided ${name} not an integer or within integer range`);
  return Math.min(raw === undefined ? 1000 : Number(raw), 1000);
}

/** `encoding-type`: only `url`; whether names are to be URL-encoded in the answer. */
export function encodesUrl(query: Query): boolean {
  const encoding = query.get('encoding-type');
  if (encoding !== undefined && encoding !== 'url') throw new S3Error('InvalidArgument', 'Invalid Encoding Method specified in Request');
  return encoding === 'url';
}
