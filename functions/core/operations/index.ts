/**
 * The S3 operations on a virtual bucket, found by name: each file owns its whole operation (it has the
 * request authorized by core/auth, then builds the dispatch).
 */
import type { BucketContext } from '../context';
import type { Dispatch } from '../http';
import type { BucketOperation } from '../routing';
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
import type { Handler, S3Services } from './operation';
import { postObject } from './post-object';
import { putObject } from './put-object';
import { uploadPart } from './upload-part';
import { uploadPartCopy } from './upload-part-copy';

export type { S3Services } from './operation';

const OPERATIONS: { readonly [N in BucketOperation['name']]: Handler<N> } = {
  GetObject: getObject,
  HeadObject: getObject,
  GetObjectAttributes: getObjectAttributes,
  PutObject: putObject,
  PostObject: postObject,
  CopyObject: copyObject,
  DeleteObject: deleteObject,
  DeleteObjects: deleteObjects,
  ListObjects: listObjectsOperation,
  ListObjectVersions: listObjectVersions,
  HeadBucket: bucketRead,
  GetBucketLocation: bucketRead,
  GetBucketVersioning: getBucketVersioning,
  CreateMultipartUpload: createMultipartUpload,
  UploadPart: uploadPart,
  UploadPartCopy: uploadPartCopy,
  CompleteMultipartUpload: completeMultipartUpload,
  AbortMultipartUpload: abortMultipartUpload,
  ListParts: listParts,
  ListMultipartUploads: listMultipartUploads,
  GetObjectTagging: objectTagging,
  PutObjectTagging: objectTagging,
  DeleteObjectTagging: objectTagging,
};

/** Runs the operation's handler. */
export function runOperation(op: BucketOperation, ctx: BucketContext, services: S3Services): Promise<Dispatch> {
  // The table pairs each name with its own handler; TypeScript cannot follow that through an index.
  const handler = OPERATIONS[op.name] as Handler<BucketOperation['name']>;
  return handler(op as never, ctx, services);
}
