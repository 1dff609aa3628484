import type { ReadonlyHeaders } from './http';
import { S3Error, notImplemented } from './errors';
import { decodePathComponent } from './keys';
import type { Query } from './query';
import { OPERATIONS, SUBRESOURCES, type Route } from './operations/table';

/**
 * Turns method, raw path, query and headers into one S3 operation, by the routes of the operation table.
 * Nothing unknown falls through to a neighbouring operation: a sub-resource the gateway does not serve is
 * NotImplemented, never a listing or an object PUT.
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

/**
 * The operation a request names, matched against the routes of the operation table (operations/table.ts):
 * the route whose method, target and sub-resource match and whose required parameters and header are all
 * present; where two match, the one requiring more (a PUT naming a copy source is CopyObject, not
 * PutObject). A request no route matches is NotImplemented.
 */
export function routeS3(method: string, rawPath: string, query: Query, headers: ReadonlyHeaders): Operation {
  const { bucket, key } = parsePath(rawPath);
  const sub = subresources(query);
  const target = bucket === undefined ? 'service' : key === undefined ? 'bucket' : 'object';
  const name = matchRoute(method, target, sub, query, headers);
  if (name === undefined) throw notImplemented(target === 'service' ? `${method} on the service root` : describe(method, target, sub));
  if (bucket === undefined) return { name: 'ListBuckets' };
  return operationOf(name, bucket, key, query, headers);
}

/** Each operation with its route, looked through in the table's order. */
const ROUTES = (Object.keys(OPERATIONS) as OperationName[]).map((name) => ({ name, route: OPERATIONS[name].route }));

function matchRoute(method: string, target: Route['target'], sub: readonly string[], query: Query, headers: ReadonlyHeaders): OperationName | undefined {
  let best: { name: OperationName; weight: number } | undefined;
  for (const { name, route } of ROUTES) {
    if (route.method !== method || route.target !== target) continue;
    if (route.subresource === undefined ? sub.length > 0 : sub.length !== 1 || sub[0] !== route.subresource) continue;
    if (route.query?.some((q) => !query.has(q)) || route.without?.some((q) => query.has(q))) continue;
    if (route.header !== undefined && headers.get(route.header) === null) continue;
    const weight = (route.query?.length ?? 0) + (route.header === undefined ? 0 : 1);
    if (best === undefined || weight > best.weight) best = { name, weight };
  }
  return best?.name;
}

/** The routed operation `name` with the parameters its route reads. */
function operationOf(name: OperationName, bucket: string, key: string | undefined, query: Query, headers: ReadonlyHeaders): Operation {
  const row = OPERATIONS[name];
  if (name === 'ListObjects') return { name, bucket, version: listVersion(query) };
  if (key === undefined) return { name, bucket } as Operation;
  const route = row.route;
  const op: { -readonly [F in keyof OperationFields]?: OperationFields[F] } & { name: OperationName; bucket: string } = { name, bucket, key };
  // An empty versionId is treated as absent, as on GET (spec).
  if (typeof row.access === 'object' && row.access.versioned !== undefined) op.versionId = query.get('versionId') || undefined;
  if (route.subresource === 'uploadId') op.uploadId = query.get('uploadId') ?? '';
  if (route.query?.includes('partNumber')) op.partNumber = partNumber(query.get('partNumber'));
  // A read of one part; an empty partNumber is treated as absent, as an empty versionId is.
  else if ((name === 'GetObject' || name === 'HeadObject') && query.get('partNumber')) op.partNumber = partNumber(query.get('partNumber'));
  if (route.header === 'x-amz-copy-source') op.copySource = headers.get('x-amz-copy-source') ?? '';
  // The fields set are those the table's route declares for `name`, which is what its Operation shape holds.
  return op as Operation;
}

/** Every parameter some routed operation carries. */
type OperationFields = { key: string; versionId: string | undefined; uploadId: string; partNumber: number; copySource: string };

function listVersion(query: Query): 1 | 2 {
  const listType = query.get('list-type');
  if (listType === '2') return 2;
  if (listType !== undefined && listType !== '1') throw new S3Error('InvalidArgument', 'list-type must be 1 or 2');
  return 1;
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
