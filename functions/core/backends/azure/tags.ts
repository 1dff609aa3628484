/**
 * S3 object tags as Azure blob index tags: the `x-ms-tags` header of Put Blob, Put Block List and Copy
 * Blob, and the `<Tags>` document of Set and Get Blob Tags (`?comp=tags`). Azure's limits are S3's (10 tags,
 * keys of 128 and values of 256 characters), but its characters are fewer: letters, digits, space and
 * `+ - . / : = _` (https://learn.microsoft.com/rest/api/storageservices/set-blob-tags).
 */
import { S3Error } from '../../errors';
import type { Tag } from '../../tags';
import { buildXml, childOf, listOf, parseXml, textOf } from '../../xml';

const AZURE_TAG_TEXT = /^[a-zA-Z0-9 +\-./:=_]*$/;

/**
 * The tags, S3-checked, as Azure takes them.
 *
 * @throws S3Error InvalidTag for a key or value with a character Azure cannot hold (S3 would take it).
 */
export function azureTags(tags: readonly Tag[]): readonly Tag[] {
  for (const { key, value } of tags) {
    if (!AZURE_TAG_TEXT.test(key) || !AZURE_TAG_TEXT.test(value)) {
      throw new S3Error(
        'InvalidTag',
        'The tag cannot be stored on an Azure backend: its keys and values may hold only letters, digits, spaces and + - . / : = _',
        { TagKey: key },
      );
    }
  }
  return tags;
}

/** `x-ms-tags`: the tags as a URL-encoded query string. */
export function tagsHeader(tags: readonly Tag[]): string {
  return azureTags(tags)
    .map(({ key, value }) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&');
}

/** Set Blob Tags' body; no tags removes them all. */
export function tagsDocument(tags: readonly Tag[]): string {
  return buildXml('Tags', { TagSet: { Tag: azureTags(tags).map(({ key, value }) => ({ Key: key, Value: value })) } });
}

/** Get Blob Tags' answer; undefined when it is not a `<Tags>` document. */
export function readTagsDocument(text: string): Tag[] | undefined {
  const root = childOf(parseXml(text), 'Tags');
  if (root === undefined) return undefined;
  return listOf(childOf(root, 'TagSet'), 'Tag').map((tag) => ({ key: textOf(childOf(tag, 'Key')) ?? '', value: textOf(childOf(tag, 'Value')) ?? '' }));
}
