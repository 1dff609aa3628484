/**
 * DeleteObjects (spec rule 1). The body is collected (bounded), verified and parsed with the hardened
 * parser; each entry (a key, or one version of it) is authorized on its own and refused entries become
 * per-key AccessDenied entries that never reach the backend, as do keys over S3's 1,024 bytes
 * (KeyTooLongError entries: passed on, one such key failed the whole batch, on s3rver with a 500). The
 * allowed keys are re-serialized under `backend_prefix`, with a Content-MD5 (and the client's checksum
 * algorithm, if it used one) computed for that new body, and the backend's DeleteResult is mapped back into
 * the virtual key space and merged with the refusals.
 */
import { base64Digest } from '../checksums';
import { S3Error, accessDenied, requestTimeout } from '../errors';
import { keyTooLong } from '../keys';
import type { Dispatch, ProxyResponse, ReadonlyHeaders } from '../http';
import { declaredDigests } from '../payload/integrity';
import { checkDeclaredLength, verifiedBody } from '../payload/upload';
import { S3_XMLNS, errorResponse } from '../responses';
import { buildXml, childOf, listOf, textOf, type ParsedXml, type XmlNode } from '../xml';
import { documentHeaders, documentResponse, readDocument, s3StoreOf } from './backend-response';
import { isAuthorized } from '../auth/authorize';
import { backendCall, type BucketContext } from '../context';
import { malformedXml, requestDocument } from './request-document';
import type { Handler } from './operation';
import { BYPASS_GOVERNANCE } from './write-headers';

/** S3's limit on keys per request (spec Limits). */
export const MAX_DELETE_KEYS = 1000;
/** Bound on the collected body: 1000 typical keys need far less; a larger document is refused as MalformedXML. */
export const MAX_DELETE_BODY_BYTES = 2 * 1024 * 1024;

/**
 * One `<Object>` of the request: a key, the version it names (absent: the current object), and the ETag
 * the object must have (a conditional delete, passed on for the backend to enforce).
 */
export interface DeleteEntry {
  readonly key: string;
  readonly versionId?: string;
  readonly etag?: string;
}

interface DeleteRequest {
  readonly quiet: boolean;
  readonly entries: readonly DeleteEntry[];
}

/**
 * Parses a `<Delete>` document: 1 to 1000 `<Object><Key>` with an optional `<VersionId>` and `<ETag>`,
 * optional `<Quiet>`.
 */
export function parseDeleteRequest(body: Uint8Array): DeleteRequest {
  const root = requestDocument(body, 'Delete');
  const objects = listOf(root, 'Object');
  if (objects.length === 0 || objects.length > MAX_DELETE_KEYS) throw malformedXml();
  const entries = objects.map((o): DeleteEntry => {
    const key = typeof o === 'string' ? undefined : textOf(childOf(o, 'Key'));
    if (key === undefined || key === '') throw malformedXml();
    // An empty VersionId is treated as absent, as on DeleteObject.
    const versionId = typeof o === 'string' ? undefined : textOf(childOf(o, 'VersionId')) || undefined;
    const etag = typeof o === 'string' ? undefined : textOf(childOf(o, 'ETag'));
    return { key, ...(versionId === undefined ? {} : { versionId }), ...(etag === undefined ? {} : { etag }) };
  });
  const quiet = (textOf(childOf(root, 'Quiet')) ?? 'false').trim().toLowerCase();
  if (quiet !== 'true' && quiet !== 'false') throw malformedXml();
  return { quiet: quiet === 'true', entries };
}

/**
 * Authorized in two stages: the dispatcher has checked that the caller may delete objects or versions
 * somewhere in the bucket (before the body is read); each entry is authorized here on its own, under the
 * same row, as a DeleteObject: `delete_object`, or `delete_object_version` for an entry naming a version,
 * and `get_object` too for one naming an ETag.
 */
export const deleteObjects: Handler<'DeleteObjects'> = async (_op, ctx, _services, access) =>
  collect(ctx, (entry) => isAuthorized(ctx.identity, access, { versionId: entry.versionId, headers: entryHeaders(ctx.request.headers, entry.etag) }, ctx.bucket, entry.key));

/** The request's headers as one entry's DeleteObject would carry them: its `<ETag>` as If-Match. */
function entryHeaders(headers: ReadonlyHeaders, etag: string | undefined): ReadonlyHeaders {
  return {
    get: (name) => (name === 'if-match' ? (etag ?? null) : headers.get(name)),
    has: (name) => (name === 'if-match' ? etag !== undefined : headers.has(name)),
    forEach: (callback) => headers.forEach(callback),
  };
}

/** Whether the caller may delete one entry of the batch. */
type EntryAuthorizer = (entry: DeleteEntry) => boolean;

function collect(ctx: BucketContext, mayDelete: EntryAuthorizer): Dispatch {
  const store = s3StoreOf(ctx, 'DeleteObjects');
  const max = Math.min(MAX_DELETE_BODY_BYTES, ctx.config.settings.maxUploadBytes ?? Number.POSITIVE_INFINITY);
  const declared = ctx.request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared)) {
    checkDeclaredLength(ctx, Number(declared));
    if (Number(declared) > MAX_DELETE_BODY_BYTES) throw malformedXml();
  }
  return {
    kind: 'needs-body',
    maxBytes: max,
    tooLarge: () => {
      const err = max < MAX_DELETE_BODY_BYTES ? new S3Error('EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size') : malformedXml();
      return { kind: 'response', response: errorResponse(err, ctx.requestId, ctx.request.method, ctx.request.rawPath) };
    },
    timedOut: () => ({ kind: 'response', response: errorResponse(requestTimeout(), ctx.requestId, ctx.request.method, ctx.request.rawPath) }),
    withBody: async (bytes) => ({ kind: 'response', response: await run(ctx, store, mayDelete, await verifiedBody(ctx, bytes)) }),
  };
}

type Store = ReturnType<typeof s3StoreOf>;

async function run(ctx: BucketContext, store: Store, mayDelete: EntryAuthorizer, body: Uint8Array): Promise<ProxyResponse> {
  const request = parseDeleteRequest(body);
  const allowed: DeleteEntry[] = [];
  const denied: XmlNode[] = [];
  for (const entry of request.entries) {
    const refusal = keyTooLong(entry.key) ?? (mayDelete(entry) ? undefined : accessDenied());
    if (refusal === undefined) allowed.push(entry);
    else denied.push({ Key: entry.key, VersionId: entry.versionId, Code: refusal.code, Message: refusal.message });
  }
  if (allowed.length === 0) return documentResponse('DeleteResult', { Error: denied }, ctx.requestId);

  const objects = allowed.map((entry) => ({ Key: store.backendKey(entry.key), VersionId: entry.versionId, ETag: entry.etag }));
  const backendBody = new TextEncoder().encode(buildXml('Delete', { Quiet: request.quiet ? 'true' : undefined, Object: objects }, S3_XMLNS));
  const headers: Record<string, string> = { 'content-type': 'application/xml', 'content-md5': base64Digest('md5', backendBody) };
  // Authorized (bypass_governance_retention) by the row before anything was read.
  const bypass = ctx.request.headers.get(BYPASS_GOVERNANCE);
  if (bypass !== null) headers[BYPASS_GOVERNANCE] = bypass;
  // The client's checksum covered its own body; the backend gets the same algorithm over the new one.
  for (const { algorithm } of declaredDigests(ctx.request.headers)) {
    if (algorithm !== 'md5') headers[`x-amz-checksum-${algorithm}`] = base64Digest(algorithm, backendBody);
  }
  const response = await store.send({ method: 'POST', query: { delete: '' }, headers, body: backendBody }, backendCall(ctx));
  const read = await readDocument(response, 'DeleteResult', ctx);
  if (read.response) return read.response;
  const result = read.document;

  const mapped = (name: 'Deleted' | 'Error'): XmlNode[] =>
    listOf(result, name).flatMap((entry) => {
      const fields = textFields(entry);
      const key = store.virtualKey(fields.Key ?? '');
      // A per-key error message that names the backend bucket or prefix is not the client's to read.
      if (fields.Message !== undefined) fields.Message = store.message(fields.Code ?? 'an error', fields.Message);
      return key === undefined ? [] : [Object.assign(fields, { Key: key })];
    });
  return documentResponse('DeleteResult', { Deleted: mapped('Deleted'), Error: [...mapped('Error'), ...denied] }, ctx.requestId, documentHeaders(response));
}

/** The text children of a parsed `<Deleted>` or `<Error>` entry, in document order. */
function textFields(entry: ParsedXml): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof entry === 'string') return out;
  for (const [name, value] of Object.entries(entry)) {
    if (name !== '#text' && typeof value === 'string') out[name] = value;
  }
  return out;
}
