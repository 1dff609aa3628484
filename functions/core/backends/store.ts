import type { ChecksumAlgorithm } from '../checksums';
import type { BackendConfig, StaticKeys } from '../config/types';
import type { BackendRequest, BackendResponse, Forward, HeaderMap, ProxyResponse, ReadonlyHeaders } from '../http';
import type { TraceContext } from '../observability/trace';
import type { Tag } from '../tags';

/**
 * What every backend module offers the operations. Each store (S3, Azure, GCS) turns these calls into its
 * own requests and maps the answers back into S3 terms; adding a store means adding one module.
 */
export interface ObjectStore {
  /**
   * Whether the store checks a write's Content-MD5 itself and commits nothing when it differs, as every
   * S3-compatible store does: the gateway then checks only its form. Others (the GCS JSON API ignores it)
   * get it checked by the gateway as the body streams, which cost a 64 MiB PUT ~120 ms of CPU (bench).
   */
  readonly checksContentMd5?: boolean;
  /**
   * Whether objects keep the parts they were uploaded in, so a read can name one (`?partNumber=`), as on
   * S3-compatible stores. Others hold every object whole, as S3 holds one not uploaded in parts: the core
   * answers part 1 with the whole object and any other with 416 (operations/get-object.ts).
   */
  readonly keepsParts?: boolean;
  /** A Forward for a single-object request (GET, HEAD, PUT, DELETE) whose body streams through. */
  forwardObject(request: ObjectRequest): Promise<Forward>;
  /** One page of a listing, in S3 terms with the backend prefix already stripped. */
  list(params: ListParams, call?: BackendCall): Promise<ListPage>;
  /**
   * DeleteObjects' entries, each already authorized: every entry's outcome in S3 terms, or the response to
   * give when the whole request failed. S3 stores send one batch request; the others delete key by key.
   */
  deleteObjects(batch: DeleteBatch, call?: BackendCall): Promise<DeleteOutcome | ProxyResponse>;
  /**
   * CopyObject within the store, for stores that are not S3 (an S3 backend performs S3's own copy,
   * operations/copy-object.ts). Absent: the store cannot copy.
   */
  copyObject?(request: CopyRequest, call?: BackendCall): Promise<CopyResult>;
  /**
   * S3 multipart uploads the gateway carries out itself on a store without S3's multipart API (Azure's
   * blocks), its upload ids sealed by the core (operations/upload-id.ts). Absent: S3-compatible stores
   * answer multipart requests with their own API; others refuse them (501).
   */
  readonly multipart?: MultipartStore;
  /**
   * Object tags a store that is not S3 keeps itself (Azure's blob index tags); such a store takes
   * `x-amz-tagging` on its writes too. Absent: an S3 backend answers `?tagging` with its own API; others
   * refuse tags (501).
   */
  readonly tags?: TagStore;
}

/** GetObjectTagging and PutObjectTagging (DeleteObjectTagging puts none) of the current object. */
export interface TagStore {
  /** @throws S3Error NoSuchKey */
  get(key: string, call: BackendCall): Promise<Tag[]>;
  /**
   * Replaces the object's tags, already checked against S3's limits.
   *
   * @throws S3Error NoSuchKey, or InvalidTag for a tag the store cannot hold.
   */
  put(key: string, tags: readonly Tag[], call: BackendCall): Promise<void>;
}

/** One `<Object>` of a DeleteObjects request: a key, the version it names, and the ETag it must have. */
export interface DeleteEntry {
  readonly key: string;
  readonly versionId?: string;
  readonly etag?: string;
}

export interface DeleteBatch {
  readonly entries: readonly DeleteEntry[];
  readonly quiet: boolean;
  /** What an S3 batch request carries on (the governance bypass); names lower-case. */
  readonly headers: HeaderMap;
  /** The algorithms of the client's checksums (not MD5): an S3 batch gets them again, over its own body. */
  readonly checksums: readonly ChecksumAlgorithm[];
  readonly requestId: string;
  /** The client's path, for an error of the whole request. */
  readonly resource: string;
}

/** A `<Deleted>` or `<Error>` entry of S3's DeleteResult, by element name (`Key`, `VersionId`, `Code`…). */
export type DeleteResultEntry = Record<string, string>;

export interface DeleteOutcome {
  readonly deleted: readonly DeleteResultEntry[];
  readonly errors: readonly DeleteResultEntry[];
  /** Backend headers worth keeping on the answer. */
  readonly headers?: Record<string, string>;
}

/** A copy the store performs (CopyObject, UploadPartCopy): its source (authorized by the caller) and the destination key. */
export interface CopyRequest {
  /** The source bucket's backend and its key there (virtual: `backend_prefix` not applied). */
  readonly source: { readonly backend: BackendConfig; readonly key: string };
  readonly key: string;
  /** The client's copy headers (operations/write-headers.ts `copyHeaders`, `uploadPartCopyHeaders`), names lower-case. */
  readonly headers: HeaderMap;
  readonly requestId: string;
}

/** What S3's CopyObjectResult (CopyPartResult) reports: the new object's (part's) ETag, and when it was written. */
export interface CopyResult {
  readonly etag: string;
  /** ISO 8601. */
  readonly lastModified: string;
}


/** An upload the gateway keeps for a `MultipartStore`: what its upload id holds. */
export interface MultipartUpload {
  readonly key: string;
  /** Random per upload: tells its parts from another upload's to the same key. */
  readonly nonce: Uint8Array;
  /** What the completed object will carry, in the store's terms (`MultipartStore.objectHeaders`). */
  readonly headers: HeaderMap;
}

/** A part as the client names it in CompleteMultipartUpload. */
export interface PartRef {
  readonly partNumber: number;
  readonly etag: string;
}

/** A part as ListParts shows it. */
export interface UploadedPart {
  readonly partNumber: number;
  /** S3's part ETag: the quoted hex MD5 of its bytes. */
  readonly etag: string;
  readonly size: number;
}

/** Conditions on the object a completion replaces: If-Match (tags as the client sent them) or If-None-Match `*`. */
export interface WriteConditions {
  readonly ifMatch?: string;
  readonly ifNoneMatch?: string;
}

export interface MultipartStore {
  /**
   * The headers the completed object will carry, in the store's terms, from CreateMultipartUpload's object
   * headers (as write-headers.ts selects them).
   *
   * @throws S3Error for what the store cannot keep, as PutObject refuses it.
   */
  objectHeaders(key: string, headers: HeaderMap): HeaderMap;
  /** Stores one part of `length` bytes; its S3 ETag (the quoted hex MD5). */
  uploadPart(upload: MultipartUpload, partNumber: number, body: ReadableStream<Uint8Array> | Uint8Array, length: number, call: BackendCall): Promise<string>;
  /**
   * UploadPartCopy: stores one part copied from `request.source` within the store (the whole object, or
   * its `x-amz-copy-source-range`), once the copy-source conditions hold; the part's ETag and time.
   *
   * @throws S3Error NotImplemented for a source the store cannot read itself; NoSuchKey,
   * PreconditionFailed, InvalidArgument and InvalidRange (the range), EntityTooLarge, as S3 answers them.
   */
  copyPart(upload: MultipartUpload, partNumber: number, request: CopyRequest, call: BackendCall): Promise<CopyResult>;
  /** The upload's parts, ascending, each as last uploaded. */
  listParts(upload: MultipartUpload, call: BackendCall): Promise<UploadedPart[]>;
  /**
   * Makes the object of `parts`, in order (already checked to be ascending); its S3 ETag.
   *
   * @throws S3Error InvalidPart, EntityTooSmall, PreconditionFailed, NoSuchKey (If-Match with no object).
   */
  complete(upload: MultipartUpload, parts: readonly PartRef[], conditions: WriteConditions, call: BackendCall): Promise<string>;
}

/**
 * What ties a backend request the core sends itself (a listing, a copy, multipart control) to the client
 * request it serves: it is abandoned when the client goes away, and is part of the client's trace.
 */
export interface BackendCall {
  readonly signal?: AbortSignal;
  /** The client request's trace: the backend request carries it (`traceparent`, `tracestate`), unsigned. */
  readonly trace?: TraceContext;
}

/**
 * How stores send their own backend requests: the runtime's BackendClient with the call's trace stamped
 * after signing, and transport failures as S3 errors (backends/index.ts).
 */
export type StoreClient = (request: BackendRequest, call?: BackendCall) => Promise<BackendResponse>;

export interface ObjectRequest {
  readonly method: 'GET' | 'HEAD' | 'PUT' | 'DELETE';
  readonly key: string;
  /** Query parameters for the backend (e.g. versionId, response-content-type); already validated. */
  readonly query?: Readonly<Record<string, string>>;
  /** Request headers to pass on; names lower-case. */
  readonly headers: HeaderMap;
  /**
   * `'client'`: the client's body as received; a stream: a body the core checks or decodes on the way (an
   * error aborts the backend request); bytes: a body already in hand.
   */
  readonly body?: 'client' | ReadableStream<Uint8Array> | Uint8Array | null;
  /** Hex SHA-256 of the body when the core knows it (a client-signed hash it verifies); default unsigned. */
  readonly payloadHash?: string;
  /** Client-facing request id stamped on the forwarded response. */
  readonly requestId: string;
  /** The client's path, named as `Resource` in a backend error rewritten for the client (default `/{key}`). */
  readonly resource?: string;
  /**
   * The client request's trace, for the backend requests a store sends itself before its Forward (Azure's
   * blob size, GCS's object lookups and upload sessions). The Forward's own request is traced by the runtime.
   */
  readonly trace?: TraceContext;
}

export interface ListParams {
  readonly version: 1 | 2;
  readonly prefix: string;
  readonly delimiter?: string;
  readonly maxKeys: number;
  /** V1 `marker`. */
  readonly marker?: string;
  /** V2 `continuation-token`: a store's own `nextContinuationToken`, never one a client made. */
  readonly continuationToken?: string;
  readonly startAfter?: string;
  readonly fetchOwner: boolean;
}

export interface ListEntry {
  readonly key: string;
  readonly lastModified: string;
  readonly etag: string;
  readonly size: number;
  readonly storageClass: string;
  readonly owner?: { readonly id: string; readonly displayName: string };
}

export interface ListPage {
  readonly contents: readonly ListEntry[];
  readonly commonPrefixes: readonly string[];
  readonly isTruncated: boolean;
  readonly nextMarker?: string;
  /**
   * Where the store resumes more cheaply than after a key (a backend marker): the gateway seals it into its
   * own token and hands it back as `continuationToken`. Absent: the listing resumes with `startAfter`.
   */
  readonly nextContinuationToken?: string;
}

/** What a store needs from the gateway: the HTTP client, the clock and (for S3) its credentials. */
export interface StoreDeps {
  readonly client: StoreClient;
  readonly now: () => number;
  /** Credentials for signing, or undefined for unsigned (anonymous) backend requests. */
  readonly credentials: () => Promise<StaticKeys | undefined>;
}

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1) describe the backend's connection, not the object. Passed on, a
 * front that owns the client's connection removes them from the requests clients copy them into: s3cmd
 * `modify` signs every header of a HEAD answer it does not know, and `Keep-Alive` then never arrives.
 */
const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade',
]);

/**
 * The backend's own identity: Ceph RGW's `x-rgw-*` headers (object and bucket counters, quota) and its
 * `x-amz-id-2` (RGW: its instance, zone and zone group names). Clients of the gateway talk to one S3 service
 * whose request id is `x-amz-request-id`; which store answered, and how it is laid out, is not theirs to see.
 */
const BACKEND_INTERNAL = /^(x-rgw-|x-amz-id-2$)/;

/** The backend's headers worth keeping on a rewritten document (encryption, version ids, abort rules…). */
export function documentHeaders(response: BackendResponse): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name.startsWith('x-amz-') && name !== 'x-amz-request-id' && name !== 'x-amz-id-2') out[name] = value;
  });
  return out;
}

/** The backend's response headers as the client should see them, with the gateway's request id. */
export function passThroughHeaders(headers: ReadonlyHeaders, requestId: string): HeaderMap {
  const out: HeaderMap = {};
  // A header the backend names in `Connection` is hop-by-hop too.
  const named = headers.get('connection')?.toLowerCase().split(',').map((name) => name.trim());
  headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || BACKEND_INTERNAL.test(lower) || named?.includes(lower)) return;
    out[name] = value;
  });
  out['x-amz-request-id'] = requestId;
  return out;
}
