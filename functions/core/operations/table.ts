/**
 * The operation table: one row per S3 operation the gateway serves, holding everything about it that is not
 * the handler's own work: its route (method, what the path names, the sub-resource, required parameters
 * and headers), how it is authorized (the action, its target, the version variant, the actions its headers
 * ask for), and its handler. Routing (routing.ts) matches requests against the routes, the dispatcher
 * (s3.ts) authorizes every request from the row before its handler runs, and the access log names the
 * operation and action from it. An operation cannot be added without its `access`: the row's type
 * requires one.
 */
import { EXTRAS, OBJECT_WRITE_EXTRAS, type Access } from '../auth/authorize';
import type { OperationName } from '../routing';
import { abortMultipartUpload } from './abort-multipart-upload';
import { getBucketVersioning } from './bucket-versioning';
import { bucketRead } from './buckets';
import { completeMultipartUpload } from './complete-multipart-upload';
import { copyObject } from './copy-object';
import { createMultipartUpload } from './create-multipart-upload';
import { deleteObject } from './delete-object';
import { deleteObjects } from './delete-objects';
import { getObject } from './get-object';
import { getObjectAttributes } from './get-object-attributes';
import { listMultipartUploads } from '../listing/uploads';
import { listObjectVersions } from '../listing/versions';
import { listObjectsOperation } from '../listing/objects';
import { listParts } from '../listing/parts';
import { objectTagging } from './object-tagging';
import type { Handler } from './operation';
import { postObject } from './post-object';
import { putObject } from './put-object';
import { uploadPart } from './upload-part';
import { uploadPartCopy } from './upload-part-copy';

/** Sub-resources S3 defines (https://docs.aws.amazon.com/AmazonS3/latest/API/API_Operations_Amazon_Simple_Storage_Service.html). */
export const SUBRESOURCES = [
  'accelerate', 'acl', 'analytics', 'attributes', 'cors', 'delete', 'encryption', 'intelligent-tiering',
  'inventory', 'legal-hold', 'lifecycle', 'location', 'logging', 'metadataConfiguration', 'metadataTable',
  'metrics', 'notification', 'object-lock', 'ownershipControls', 'policy', 'policyStatus',
  'publicAccessBlock', 'renameObject', 'replication', 'requestPayment', 'restore', 'retention', 'select',
  'session', 'tagging', 'torrent', 'uploadId', 'uploads', 'versioning', 'versions', 'website',
] as const;
export type Subresource = (typeof SUBRESOURCES)[number];

/** The requests an operation answers. */
export interface Route {
  readonly method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE';
  /** What the path names: the service root, a bucket, or an object. */
  readonly target: 'service' | 'bucket' | 'object';
  /** The one sub-resource the query names; absent: it names none. */
  readonly subresource?: Subresource;
  /** Query parameters (not sub-resources) that must be present. */
  readonly query?: readonly string[];
  /** Query parameters that must be absent (a PUT with a part number but no upload is no PutObject). */
  readonly without?: readonly string[];
  /** A header that must be present (a copy is a PUT naming its source). */
  readonly header?: string;
}

/** A row: the route and access of operation `N`, and its handler when it acts on a virtual bucket. */
export type Descriptor<N extends OperationName> = {
  readonly route: Route;
} & (N extends 'ListBuckets'
  ? /** Any signed caller lists the buckets: the dispatcher answers it (s3.ts). */ { readonly access: 'signed caller' }
  : N extends 'CreateBucket'
    ? /** Virtual buckets are configured, never created: the dispatcher refuses it (operations/buckets.ts). */ { readonly access: 'refused' }
    : { readonly access: Access; readonly handler: Handler<Exclude<N, 'ListBuckets' | 'CreateBucket'>> });

/** Reads of an object: anonymous on a public bucket, by SigV2 links too; a version is `get_object_version`. */
const OBJECT_READ = { on: 'key', anonymous: true, sigv2: true, versioned: { action: 'get_object_version' } } as const;
/** Writes and deletes: never anonymous, never SigV2. */
const SIGNED = { anonymous: false, sigv2: false } as const;

export const OPERATIONS: { readonly [N in OperationName]: Descriptor<N> } = {
  ListBuckets: { route: { method: 'GET', target: 'service' }, access: 'signed caller' },
  CreateBucket: { route: { method: 'PUT', target: 'bucket' }, access: 'refused' },

  GetObject: { route: { method: 'GET', target: 'object' }, access: { action: 'get_object', ...OBJECT_READ }, handler: getObject },
  HeadObject: { route: { method: 'HEAD', target: 'object' }, access: { action: 'head_object', ...OBJECT_READ }, handler: getObject },
  // What a HEAD tells, in a document.
  GetObjectAttributes: {
    route: { method: 'GET', target: 'object', subresource: 'attributes' },
    access: { action: 'head_object', ...OBJECT_READ, sigv2: false },
    handler: getObjectAttributes,
  },
  PutObject: {
    route: { method: 'PUT', target: 'object', without: ['partNumber'] },
    access: { action: 'put_object', on: 'key', ...SIGNED, extras: [...OBJECT_WRITE_EXTRAS, EXTRAS.comparesEtag] },
    handler: putObject,
  },
  // A browser form upload (presigned POST): authorized by its handler as the policy's signer, with the
  // form fields standing for the headers.
  PostObject: { route: { method: 'POST', target: 'bucket' }, access: { action: 'put_object', on: 'form', ...SIGNED, extras: OBJECT_WRITE_EXTRAS }, handler: postObject },
  // The destination; the handler authorizes the source as a read.
  CopyObject: {
    route: { method: 'PUT', target: 'object', header: 'x-amz-copy-source', without: ['partNumber'] },
    access: { action: 'put_object', on: 'key', ...SIGNED, extras: [EXTRAS.acl, EXTRAS.copyTagging, EXTRAS.retention, EXTRAS.legalHold] },
    handler: copyObject,
  },
  DeleteObject: {
    route: { method: 'DELETE', target: 'object' },
    access: { action: 'delete_object', on: 'key', ...SIGNED, versioned: { action: 'delete_object_version' }, extras: [EXTRAS.bypassGovernance, EXTRAS.comparesEtag] },
    handler: deleteObject,
  },
  // Somewhere in the bucket first; then each entry as DeleteObject (its `ETag` as If-Match).
  DeleteObjects: {
    route: { method: 'POST', target: 'bucket', subresource: 'delete' },
    access: { action: 'delete_object', on: 'entries', ...SIGNED, versioned: { action: 'delete_object_version' }, extras: [EXTRAS.bypassGovernance, EXTRAS.comparesEtag] },
    handler: deleteObjects,
  },

  ListObjects: { route: { method: 'GET', target: 'bucket' }, access: { action: 'list_bucket', on: 'prefix', anonymous: true, sigv2: false }, handler: listObjectsOperation },
  ListObjectVersions: {
    route: { method: 'GET', target: 'bucket', subresource: 'versions' },
    access: { action: 'list_bucket_versions', on: 'prefix', ...SIGNED },
    handler: listObjectVersions,
  },
  // Uploads in progress are not part of the anonymous ListBucket grant.
  ListMultipartUploads: {
    route: { method: 'GET', target: 'bucket', subresource: 'uploads' },
    access: { action: 'list_bucket', on: 'prefix', ...SIGNED },
    handler: listMultipartUploads,
  },
  HeadBucket: { route: { method: 'HEAD', target: 'bucket' }, access: { action: 'list_bucket', on: 'bucket', anonymous: true, sigv2: false }, handler: bucketRead },
  GetBucketLocation: {
    route: { method: 'GET', target: 'bucket', subresource: 'location' },
    access: { action: 'list_bucket', on: 'bucket', anonymous: true, sigv2: false },
    handler: bucketRead,
  },
  GetBucketVersioning: {
    route: { method: 'GET', target: 'bucket', subresource: 'versioning' },
    access: { action: 'list_bucket', on: 'bucket', ...SIGNED },
    handler: getBucketVersioning,
  },

  CreateMultipartUpload: {
    route: { method: 'POST', target: 'object', subresource: 'uploads' },
    access: { action: 'create_multipart_upload', on: 'key', ...SIGNED, extras: OBJECT_WRITE_EXTRAS },
    handler: createMultipartUpload,
  },
  UploadPart: {
    route: { method: 'PUT', target: 'object', subresource: 'uploadId', query: ['partNumber'] },
    access: { action: 'upload_part', on: 'key', ...SIGNED },
    handler: uploadPart,
  },
  // The destination part; the handler authorizes the source as a read.
  UploadPartCopy: {
    route: { method: 'PUT', target: 'object', subresource: 'uploadId', query: ['partNumber'], header: 'x-amz-copy-source' },
    access: { action: 'upload_part', on: 'key', ...SIGNED },
    handler: uploadPartCopy,
  },
  CompleteMultipartUpload: {
    route: { method: 'POST', target: 'object', subresource: 'uploadId' },
    access: { action: 'complete_multipart_upload', on: 'key', ...SIGNED, extras: [EXTRAS.comparesEtag] },
    handler: completeMultipartUpload,
  },
  AbortMultipartUpload: {
    route: { method: 'DELETE', target: 'object', subresource: 'uploadId' },
    access: { action: 'abort_multipart_upload', on: 'key', ...SIGNED },
    handler: abortMultipartUpload,
  },
  ListParts: { route: { method: 'GET', target: 'object', subresource: 'uploadId' }, access: { action: 'list_bucket', on: 'key', ...SIGNED }, handler: listParts },

  GetObjectTagging: {
    route: { method: 'GET', target: 'object', subresource: 'tagging' },
    access: { action: 'get_object_tagging', on: 'key', ...SIGNED, versioned: { action: 'get_object_tagging', also: 'get_object_version' } },
    handler: objectTagging,
  },
  PutObjectTagging: {
    route: { method: 'PUT', target: 'object', subresource: 'tagging' },
    access: { action: 'put_object_tagging', on: 'key', ...SIGNED, versioned: { action: 'put_object_tagging', also: 'get_object_version' } },
    handler: objectTagging,
  },
  DeleteObjectTagging: {
    route: { method: 'DELETE', target: 'object', subresource: 'tagging' },
    access: { action: 'delete_object_tagging', on: 'key', ...SIGNED, versioned: { action: 'delete_object_tagging', also: 'get_object_version' } },
    handler: objectTagging,
  },
};
