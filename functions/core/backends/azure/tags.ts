/**
 * S3 object tags as Azure blob index tags: the `x-ms-tags` header of Put Blob, Put Block List and Copy
 * Blob, and the `<Tags>` document of Set and Get Blob Tags (`?comp=tags`). Azure's limits are S3's (10 tags,
 * keys of 128 and values of 256 characters), but its characters are fewer: letters, digits, space and
 * `+ - . / : = _` (https://learn.microsoft.com/rest/api/storageservices/set-blob-tags).
 */
import { S3Error } from '../../errors';
import type { BackendResponse, HeaderMap } from '../../http';
import { backendDocument } from '../../streams';
import type { BackendCall, TagStore } from '../store';
import { azureError, checked } from './errors';
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

/** Get and Set Blob Tags on the blobs `blobs` reaches. */
export function blobTags(blobs: {
  blobUrl(key: string): string;
  send(method: string, url: string, call: BackendCall, headers?: HeaderMap, body?: Uint8Array): Promise<BackendResponse>;
}): TagStore {
  return {
    get: async (key, call) => {
      const response = await blobs.send('GET', `${blobs.blobUrl(key)}?comp=tags`, call);
      const text = await backendDocument(response.body);
      if (response.status !== 200) throw azureError(response.status, response.headers.get('x-ms-error-code') ?? undefined);
      const tags = readTagsDocument(text);
      if (tags === undefined) throw new S3Error('BadGateway', 'The Azure backend answered Get Blob Tags with an unreadable document');
      return tags;
    },
    put: async (key, tags, call) => {
      const body = new TextEncoder().encode(tagsDocument(tags));
      const headers = { 'content-type': 'application/xml', 'content-length': String(body.length) };
      await checked(await blobs.send('PUT', `${blobs.blobUrl(key)}?comp=tags`, call, headers, body));
    },
  };
}
