/**
 * S3 object tags, for stores that keep tags themselves (an S3 backend reads `x-amz-tagging` and Tagging
 * documents on its own): the `x-amz-tagging` header, the Tagging document, and S3's limits, with the errors
 * S3 answers (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-tagging.html).
 */
import { S3Error } from './errors';
import { malformedXml, requestDocument } from './operations/request-document';
import type { XmlNode } from './xml';
import { childOf, listOf, textOf } from './xml';

export interface Tag {
  readonly key: string;
  readonly value: string;
}

/** S3's limits: tags per object, and characters of a key and of a value. */
export const MAX_TAGS = 10;
export const MAX_TAG_KEY = 128;
export const MAX_TAG_VALUE = 256;

/**
 * The `x-amz-tagging` header of a PutObject, CreateMultipartUpload or CopyObject: URL-encoded query
 * parameters (`+` a space), checked against S3's limits. Empty: no tags.
 *
 * @throws S3Error InvalidArgument (undecodable or a repeated key, as S3 words it), or as `checkTags`.
 */
export function parseTaggingHeader(header: string): Tag[] {
  const invalid = new S3Error('InvalidArgument', "The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query parameters without tag name duplicates.");
  const tags: Tag[] = [];
  for (const pair of header.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    try {
      tags.push({ key: decode(eq < 0 ? pair : pair.slice(0, eq)), value: eq < 0 ? '' : decode(pair.slice(eq + 1)) });
    } catch {
      throw invalid;
    }
  }
  if (new Set(tags.map((tag) => tag.key)).size !== tags.length) throw invalid;
  return checkTags(tags);
}

const decode = (text: string): string => decodeURIComponent(text.replace(/\+/g, '%20'));

/**
 * A PutObjectTagging body, `<Tagging><TagSet><Tag><Key/><Value/></Tag>…</TagSet></Tagging>`, checked against
 * S3's limits.
 *
 * @throws S3Error MalformedXML, InvalidTag (a repeated key), or as `checkTags`.
 */
export function parseTaggingDocument(body: Uint8Array): Tag[] {
  const tagSet = childOf(requestDocument(body, 'Tagging'), 'TagSet');
  if (tagSet === undefined) throw malformedXml();
  const tags = listOf(tagSet, 'Tag').map((tag): Tag => {
    const key = textOf(childOf(tag, 'Key'));
    const value = textOf(childOf(tag, 'Value'));
    if (key === undefined || value === undefined) throw malformedXml();
    return { key, value };
  });
  if (new Set(tags.map((tag) => tag.key)).size !== tags.length) throw new S3Error('InvalidTag', 'Cannot provide multiple Tags with the same key');
  return checkTags(tags);
}

/**
 * S3's limits on a tag set: at most 10 tags, keys of 1 to 128 and values of up to 256 Unicode characters.
 *
 * @throws S3Error BadRequest (too many tags) or InvalidTag, as S3 answers them.
 */
export function checkTags(tags: Tag[]): Tag[] {
  if (tags.length > MAX_TAGS) throw new S3Error('BadRequest', `Object tags cannot be greater than ${MAX_TAGS}`);
  for (const { key, value } of tags) {
    const detail = { TagKey: key };
    if (key === '') throw new S3Error('InvalidTag', 'The TagKey you have provided is invalid', detail);
    if ([...key].length > MAX_TAG_KEY) throw new S3Error('InvalidTag', `The TagKey you have provided is too long, max ${MAX_TAG_KEY}`, detail);
    if ([...value].length > MAX_TAG_VALUE) throw new S3Error('InvalidTag', `The TagValue you have provided is too long, max ${MAX_TAG_VALUE}`, { ...detail, TagValue: value });
  }
  return tags;
}

/** GetObjectTagging's `<Tagging>` content. */
export function tagSetNode(tags: readonly Tag[]): XmlNode {
  return { TagSet: { Tag: tags.map(({ key, value }) => ({ Key: key, Value: value })) } };
}
