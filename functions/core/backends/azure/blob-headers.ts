/**
 * An S3 object's headers as a blob's: content headers as `x-ms-blob-*` properties, user metadata as
 * `x-ms-meta-*` (names mapped both ways), tags as `x-ms-tags`.
 */
import { S3Error } from '../../errors';
import type { HeaderMap } from '../../http';
import { parseTaggingHeader } from '../../tags';
import { userMetadata } from '../translate';
import { S3_ETAG_METADATA } from './etag';
import { tagsHeader } from './tags';

/** The `x-ms-blob-*` property headers Put Blob stores, by the S3 request header they come from. */
export const PUT_PROPERTY_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'x-ms-blob-content-type',
  'content-encoding': 'x-ms-blob-content-encoding',
  'content-language': 'x-ms-blob-content-language',
  'content-disposition': 'x-ms-blob-content-disposition',
  'cache-control': 'x-ms-blob-cache-control',
};

/** The `x-ms-blob-*` properties of an S3 write's content headers. */
export function propertyHeaders(s3: HeaderMap): HeaderMap {
  const out: HeaderMap = {};
  for (const [s3Name, azureName] of Object.entries(PUT_PROPERTY_HEADERS)) {
    if (s3[s3Name] !== undefined) out[azureName] = s3[s3Name];
  }
  return out;
}

/** The `x-ms-meta-*` headers of an S3 write's user metadata. */
export function metadataHeaders(s3: HeaderMap): HeaderMap {
  const out: HeaderMap = {};
  for (const [name, value] of userMetadata(s3)) out[`x-ms-meta-${toAzureMetadataName(name)}`] = value;
  return out;
}

/** The Put Blob (and Put Block List) headers of an S3 write's content headers, user metadata and tags. */
export function objectHeaders(s3: HeaderMap): HeaderMap {
  const out = Object.assign(propertyHeaders(s3), metadataHeaders(s3));
  const tags = s3['x-amz-tagging'] === undefined ? [] : parseTaggingHeader(s3['x-amz-tagging']);
  if (tags.length > 0) out['x-ms-tags'] = tagsHeader(tags);
  return out;
}

/**
 * Azure metadata names must be C# identifiers (letters, digits, `_`; not starting with a digit), S3's are
 * often hyphenated. `-` is stored as `_` and a literal `_` as `__`, so names round-trip and metadata set
 * natively in Azure (`my_key`) reads as `my-key`. Names that cannot be expressed, or would read back as
 * another, are a 400.
 */
export function toAzureMetadataName(s3Name: string): string {
  // A `-` before `-` or `_` would be stored as a run of `_` that reads back as another name (`a--b` as
  // `a_b`, `a-_b` as `a_-b`).
  if (!STORABLE_METADATA_NAME.test(s3Name)) {
    throw new S3Error(
      'InvalidArgument',
      `Metadata name "${s3Name}" cannot be stored on an Azure backend: use letters, digits, "-" and "_", starting with a letter, with no "-" before another "-" or "_"`,
    );
  }
  return s3Name.replace(/_/g, '__').replace(/-/g, '_');
}

const STORABLE_METADATA_NAME = /^[a-z](?:[a-z0-9_]|-(?![-_]))*$/i;

export function fromAzureMetadataName(azureName: string): string {
  return azureName.toLowerCase().replace(/__|_/g, (m) => (m === '__' ? '_' : '-'));
}

/** The reserved metadata a multipart upload's blob keeps its S3 ETag in, as the client would see it. */
export const HIDDEN_METADATA = `x-amz-meta-${fromAzureMetadataName(S3_ETAG_METADATA.slice('x-ms-meta-'.length))}`;
