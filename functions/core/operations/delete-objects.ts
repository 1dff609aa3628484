/**
 * DeleteObjects (spec rule 1). The body is collected (bounded), verified and parsed with the hardened
 * parser; each entry (a key, or one version of it) is authorized on its own and refused entries become
 * per-key AccessDenied entries that never reach the backend, as do keys over S3's 1,024 bytes
 * (KeyTooLongError entries: passed on, one such key failed the whole batch, on s3rver with a 500). The
 * allowed entries go to the bucket's store (`ObjectStore.deleteObjects`): an S3 backend gets one batch
 * request, Azure and GCS stores delete key by key, and each key's outcome is merged with the refusals.
 * The spec limits batch deletes to S3 backends (rule 8); every everyday tool sends them, so they are served
 * on every store (docs/backends.md).
 */
import { S3Error, accessDenied, requestTimeout } from '../errors';
import { keyTooLong } from '../keys';
import type { Dispatch, ProxyResponse, ReadonlyHeaders } from '../http';
import { declaredDigests } from '../payload/integrity';
import { checkDeclaredLength, verifiedBody } from '../payload/upload';
import { errorResponse } from '../responses';
import { childOf, listOf, textOf, type XmlNode } from '../xml';
import type { DeleteEntry } from '../backends/store';
import { documentResponse } from './backend-response';
import { isAuthorized } from '../auth/authorize';
import { backendCall, type BucketContext } from '../context';
import { malformedXml, requestDocument } from './request-document';
import type { Handler } from './operation';
import { BYPASS_GOVERNANCE } from './write-headers';

/** S3's limit on keys per request (spec Limits). */
export const MAX_DELETE_KEYS = 1000;
/** Bound on the collected body: 1000 typical keys need far less; a larger document is refused as MalformedXML. */
export const MAX_DELETE_BODY_BYTES = 2 * 1024 * 1024;

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
    withBody: async (bytes) => ({ kind: 'response', response: await run(ctx, mayDelete, await verifiedBody(ctx, bytes)) }),
  };
}

async function run(ctx: BucketContext, mayDelete: EntryAuthorizer, body: Uint8Array): Promise<ProxyResponse> {
  const request = parseDeleteRequest(body);
  const allowed: DeleteEntry[] = [];
  const denied: XmlNode[] = [];
  for (const entry of request.entries) {
    const refusal = keyTooLong(entry.key) ?? (mayDelete(entry) ? undefined : accessDenied());
    if (refusal === undefined) allowed.push(entry);
    else denied.push({ Key: entry.key, VersionId: entry.versionId, Code: refusal.code, Message: refusal.message });
  }
  if (allowed.length === 0) return documentResponse('DeleteResult', { Error: denied }, ctx.requestId);

  // Authorized (bypass_governance_retention) by the row before anything was read.
  const bypass = ctx.request.headers.get(BYPASS_GOVERNANCE);
  const outcome = await ctx.store.deleteObjects(
    {
      entries: allowed,
      quiet: request.quiet,
      headers: bypass === null ? {} : { [BYPASS_GOVERNANCE]: bypass },
      checksums: declaredDigests(ctx.request.headers).flatMap(({ algorithm }) => (algorithm === 'md5' ? [] : [algorithm])),
      requestId: ctx.requestId,
      resource: ctx.request.rawPath,
    },
    backendCall(ctx),
  );
  if ('status' in outcome) return outcome;
  // Quiet: only errors are reported (an S3 backend has left its deletions out already).
  return documentResponse('DeleteResult', { Deleted: request.quiet ? [] : [...outcome.deleted], Error: [...outcome.errors, ...denied] }, ctx.requestId, outcome.headers);
}
