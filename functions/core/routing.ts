import type { ReadonlyHeaders } from './http';
import { S3Error, notImplemented } from './errors';
import { decodePathComponent } from './keys';
import { Query } from './query';

/**
 * Turns method, raw path, query and headers into one S3 operation. Nothing unknown falls through to a
 * neighbouring operation: a sub-resource the gateway does not serve is NotImplemented, never a listing or
 * an object PUT.
 */
export type Operation =
  | { readonly name: 'ListBuckets' }
  | { readonly name: 'CreateBucket'; readonly bucket: string }
  | { readonly name: 'HeadBucket'; readonly bucket: string }
  | { readonly name: 'GetBucketLocation'; readonly bucket: string }
  | { readonly name: 'GetBucketVersioning'; readonly bucket: string }
  | { readonly name: 'ListObjects'; readonly bucket: string; readonly version: 1 | 2 }
  | { readonly name: 'ListObjectVersions'; readonly bucket: string }
  | { readonly name: 'ListMultipartUploads'; readonly bucket: string }
  | { readonly name: 'DeleteObjects'; readonly bucket: string }
  /** A browser form upload: `POST /{bucket}` with a multipart/form-data body holding a signed policy. */
  | { readonly name: 'PostObject'; readonly bucket: string }
  | {
      /** `versionId`: the version a read, a delete, a tagging or attributes call names (absent: the current object). */
      readonly name: 'DeleteObject' | 'GetObjectTagging' | 'PutObjectTagging' | 'DeleteObjectTagging' | 'GetObjectAttributes';
      readonly bucket: string;
      readonly key: string;
      readonly versionId?: string;
    }
  | {
      readonly name: 'GetObject' | 'HeadObject';
      readonly bucket: string;
      readonly key: string;
      readonly versionId?: string;
      /** The one part of the object to read (`?partNumber=`, 1 to 10000); absent: the whole object. */
      readonly partNumber?: number;
    }
  | { readonly name: 'PutObject' | 'CreateMultipartUpload'; readonly bucket: string; readonly key: string }
  | { readonly name: 'CopyObject'; readonly bucket: string; readonly key: string; readonly copySource: string }
  | {
      readonly name: 'UploadPart';
      readonly bucket: string;
      readonly key: string;
      readonly uploadId: string;
      readonly partNumber: number;
    }
  | {
      readonly name: 'UploadPartCopy';
      readonly bucket: string;
      readonly key: string;
      readonly uploadId: string;
      readonly partNumber: number;
      readonly copySource: string;
    }
  | {
      readonly name: 'CompleteMultipartUpload' | 'AbortMultipartUpload' | 'ListParts';
      readonly bucket: string;
      readonly key: string;
      readonly uploadId: string;
    };

export type OperationName = Operation['name'];
/**
 * Every operation on one virtual bucket. ListBuckets names none; CreateBucket names one that must not
 * exist yet, so it never reaches a virtual bucket's operations (operations/buckets.ts answers it).
 */
export type BucketOperation = Exclude<Operation, { readonly name: 'ListBuckets' | 'CreateBucket' }>;

/** Sub-resources S3 defines (https://docs.aws.amazon.com/AmazonS3/latest/API/API_Operations_Amazon_Simple_Storage_Service.html). */
const SUBRESOURCES = [
  'accelerate', 'acl', 'analytics', 'attributes', 'cors', 'delete', 'encryption', 'intelligent-tiering',
  'inventory', 'legal-hold', 'lifecycle', 'location', 'logging', 'metadataConfiguration', 'metadataTable',
  'metrics', 'notification', 'object-lock', 'ownershipControls', 'policy', 'policyStatus',
  'publicAccessBlock', 'renameObject', 'replication', 'requestPayment', 'restore', 'retention', 'select',
  'session', 'tagging', 'torrent', 'uploadId', 'uploads', 'versioning', 'versions', 'website',
] as const;

export interface ParsedPath {
  readonly bucket?: string;
  readonly key?: string;
}

/** Splits `/bucket/key` on the first slash; both parts are percent-decoded, the key is not validated here. */
export function parsePath(rawPath: string): ParsedPath {
  if (!rawPath.startsWith('/')) throw new S3Error('InvalidRequest', 'The request path must start with "/"');
  const rest = rawPath.slice(1);
  if (rest === '') return {};
  const slash = rest.indexOf('/');
  if (slash < 0) return { bucket: decodePathComponent(rest) };
  const bucket = decodePathComponent(rest.slice(0, slash));
  const rawKey = rest.slice(slash + 1);
  return rawKey === '' ? { bucket } : { bucket, key: decodePathComponent(rawKey) };
}

export function routeS3(method: string, rawPath: string, query: Query, headers: ReadonlyHeaders): Operation {
  const { bucket, key } = parsePath(rawPath);
  const sub = subresources(query);
  if (bucket === undefined) {
    if (method === 'GET' && sub.length === 0) return { name: 'ListBuckets' };
    throw notImplemented(`${method} on the service root`);
  }
  if (key === undefined) return routeBucket(method, bucket, query, sub);
  return routeObject(method, bucket, key, query, headers, sub);
}

function routeBucket(method: string, bucket: string, query: Query, sub: readonly string[]): Operation {
  const only = (name: string): boolean => sub.length === 1 && sub[0] === name;
  if (method === 'GET' && sub.length === 0) {
    if (query.get('list-type') === '2') return { name: 'ListObjects', bucket, version: 2 };
    if (query.has('list-type') && query.get('list-type') !== '1') {
      throw new S3Error('InvalidArgument', 'list-type must be 1 or 2');
    }
    return { name: 'ListObjects', bucket, version: 1 };
  }
  if (method === 'GET' && only('location')) return { name: 'GetBucketLocation', bucket };
  if (method === 'GET' && only('versioning')) return { name: 'GetBucketVersioning', bucket };
  if (method === 'GET' && only('uploads')) return { name: 'ListMultipartUploads', bucket };
  if (method === 'GET' && only('versions')) return { name: 'ListObjectVersions', bucket };
  if (method === 'HEAD' && sub.length === 0) return { name: 'HeadBucket', bucket };
  if (method === 'PUT' && sub.length === 0) return { name: 'CreateBucket', bucket };
  if (method === 'POST' && only('delete')) return { name: 'DeleteObjects', bucket };
  if (method === 'POST' && sub.length === 0) return { name: 'PostObject', bucket };
  throw notImplemented(describe(method, 'bucket', sub));
}

function routeObject(
  method: string,
  bucket: string,
  key: string,
  query: Query,
  headers: ReadonlyHeaders,
  sub: readonly string[],
): Operation {
  const onlyUploadId = sub.length === 1 && sub[0] === 'uploadId';
  const onlyTagging = sub.length === 1 && sub[0] === 'tagging';
  const uploadId = query.get('uploadId') ?? '';
  const copySource = headers.get('x-amz-copy-source');
  // An empty versionId is treated as absent, as on GET (spec).
  const versionId = query.get('versionId') || undefined;
  if (method === 'GET' || method === 'HEAD') {
    if (sub.length === 0) {
      const read = { name: method === 'GET' ? 'GetObject' : 'HeadObject', bucket, key, versionId } as const;
      // An empty partNumber is treated as absent, as an empty versionId is.
      const part = query.get('partNumber');
      return part ? { ...read, partNumber: partNumber(part) } : read;
    }
    if (method === 'GET' && onlyUploadId) return { name: 'ListParts', bucket, key, uploadId };
    if (method === 'GET' && onlyTagging) return { name: 'GetObjectTagging', bucket, key, versionId };
    if (method === 'GET' && sub.length === 1 && sub[0] === 'attributes') return { name: 'GetObjectAttributes', bucket, key, versionId };
  }
  if (method === 'PUT') {
    if (sub.length === 0 && !query.has('partNumber')) {
      return copySource === null ? { name: 'PutObject', bucket, key } : { name: 'CopyObject', bucket, key, copySource };
    }
    if (onlyUploadId && query.has('partNumber')) {
      const part = partNumber(query.get('partNumber'));
      if (copySource !== null) return { name: 'UploadPartCopy', bucket, key, uploadId, partNumber: part, copySource };
      return { name: 'UploadPart', bucket, key, uploadId, partNumber: part };
    }
    if (onlyTagging) return { name: 'PutObjectTagging', bucket, key, versionId };
  }
  if (method === 'POST') {
    if (sub.length === 1 && sub[0] === 'uploads') return { name: 'CreateMultipartUpload', bucket, key };
    if (onlyUploadId) return { name: 'CompleteMultipartUpload', bucket, key, uploadId };
  }
  if (method === 'DELETE') {
    if (sub.length === 0) return { name: 'DeleteObject', bucket, key, versionId };
    if (onlyUploadId) return { name: 'AbortMultipartUpload', bucket, key, uploadId };
    if (onlyTagging) return { name: 'DeleteObjectTagging', bucket, key, versionId };
  }
  throw notImplemented(describe(method, 'object', sub));
}

/** Part numbers are 1 to 10000 (S3's limit); anything else is InvalidArgument as on S3. */
function partNumber(raw: string | undefined): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw ?? '') || n < 1 || n > 10000) {
    throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive');
  }
  return n;
}

const SUBRESOURCE_NAMES: ReadonlySet<string> = new Set(SUBRESOURCES);

/** The sub-resources named in the query, in SUBRESOURCES order (most requests name none). */
function subresources(query: Query): string[] {
  const named: string[] = [];
  for (const name of query.names()) if (SUBRESOURCE_NAMES.has(name)) named.push(name);
  return named.length > 1 ? SUBRESOURCES.filter((name) => query.has(name)) : named;
}

function describe(method: string, target: string, sub: readonly string[]): string {
  return sub.length > 0 ? `${method} on the ${target} sub-resource ?${sub.join('&')}` : `${method} on this ${target} path`;
}
