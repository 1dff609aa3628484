import { S3Error, invalidRequest, notImplemented } from '../errors';
import { isProxyResponse, isRewriteBody, type Forward, type HeaderMap } from '../http';
import type { BucketContext } from '../context';
import type { ObjectRequest } from '../backends/store';
import { s3ErrorResponse } from '../backends/translate';
import { parseRange, rangeHeader } from '../range';
import type { Handler } from './operation';

/**
 * Request headers a read passes to the backend: ranges, preconditions, checksum mode and SSE-C keys. Not
 * `x-amz-request-payer`: who pays is the bucket's configuration (`request_payer`, backends/s3.ts).
 */
const READ_HEADERS: ReadonlySet<string> = new Set([
  'range', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since', 'x-amz-checksum-mode',
  'x-amz-server-side-encryption-customer-algorithm', 'x-amz-server-side-encryption-customer-key',
  'x-amz-server-side-encryption-customer-key-md5', 'x-amz-expected-bucket-owner',
]);

/** Query parameters a read passes on: the version, a part, and S3's response header overrides. */
const READ_QUERY: ReadonlySet<string> = new Set([
  'versionId', 'partNumber', 'response-cache-control', 'response-content-disposition', 'response-content-encoding',
  'response-content-language', 'response-content-type', 'response-expires',
]);

/**
 * GetObject and HeadObject: a Forward whose status (200, 206, 304, 412, errors) and body pass through. A read
 * naming a version is authorized as `get_object_version`; only S3 backends keep versions.
 */
export const getObject: Handler<'GetObject' | 'HeadObject'> = (op, ctx): Promise<Forward> => {
  refuseVersionOffS3(ctx, op.versionId);
  const part = op.partNumber;
  if (part !== undefined && ctx.request.headers.get('range') !== null) throw invalidRequest('Cannot specify both Range header and partNumber query parameter');
  const method = op.name === 'GetObject' ? 'GET' : 'HEAD';
  const keepsParts = ctx.store.keepsParts === true;
  const request: ObjectRequest = {
    method,
    key: op.key,
    query: readQuery(ctx, keepsParts),
    headers: readHeaders(ctx),
    requestId: ctx.requestId,
    resource: ctx.request.rawPath,
    trace: ctx.record?.trace,
  };
  const forward = ctx.store.forwardObject(request);
  // The hot path (no part) returns the store's promise as it is.
  return part === undefined ? forward : forward.then((f) => asPartRead(f, part, request, keepsParts));
};

/** Only S3 backends keep versions: a read naming one elsewhere is 501, after authorization. */
export function refuseVersionOffS3(ctx: BucketContext, versionId: string | undefined): void {
  if (versionId !== undefined && ctx.bucket.backend.type !== 's3') throw notImplemented('Version-scoped reads on this backend');
}

/** An ETag of an object uploaded in parts: the digest of its parts' digests, then `-` and their count. */
const MULTIPART_ETAG = /-(\d+)"?$/;

/** How many parts an object was uploaded in, read from its ETag; undefined for one uploaded whole. */
export function partsCount(etag: string): number | undefined {
  const count = MULTIPART_ETAG.exec(etag)?.[1];
  return count === undefined ? undefined : Number(count);
}

/**
 * A part read answered as S3 answers it. S3 answers every part of a non-empty object with 206 and the part's
 * Content-Range, so a 200 is the whole object from a store that ignored the part number: Azure and GCS
 * hold every object whole (they are not asked for the part), and Ceph RGW 16 ignores `partNumber` altogether.
 * The object is then read as S3 reads one uploaded whole: part 1 is all of it as a range (an empty object
 * has none and stays 200), any other part 416 InvalidPartNumber. An object uploaded in parts, on a store that
 * would not read them, is 501 for a later part rather than the whole object again, which a client
 * assembling parts would write into the wrong place. Errors, 206, 304 and 412 pass as they are.
 */
function asPartRead(forward: Forward, part: number, request: ObjectRequest, keepsParts: boolean): Forward {
  return {
    ...forward,
    respond: (status, headers) => {
      const answer = forward.respond(status, headers);
      if (isProxyResponse(answer) || isRewriteBody(answer) || answer.status !== 200) return answer;
      if (part === 1) {
        const size = Number(answer.headers['content-length']);
        return size > 0 ? { status: 206, headers: { ...answer.headers, 'content-range': `bytes 0-${size - 1}/${size}` } } : answer;
      }
      const refusal = keepsParts && partsCount(answer.headers.etag ?? '') !== undefined
        ? notImplemented('Reading one part of an object uploaded in parts on this store')
        : new S3Error('InvalidPartNumber', 'The requested partnumber is not satisfiable');
      return s3ErrorResponse(refusal, request);
    },
  };
}

/**
 * Walks what the client sent, usually a handful of headers, rather than looking up every name. A Range goes
 * on in one form, or not at all where S3 would ignore it (range.ts).
 */
function readHeaders(ctx: BucketContext): HeaderMap {
  const out: HeaderMap = {};
  ctx.request.headers.forEach((value, name) => {
    if (!READ_HEADERS.has(name)) return;
    if (name !== 'range') out[name] = value;
    else {
      const range = parseRange(value);
      if (range !== undefined) out.range = rangeHeader(range);
    }
  });
  return out;
}

/**
 * The read's query for the backend, `partNumber` only where the store keeps parts. A `response-*` override
 * becomes a response header, so one holding a control character (CR and LF included) is refused with 400
 * before anything is sent: passed on, it reaches the backend, which may answer with a broken response (Ceph
 * RGW writes a second status line into its answer for any of them, HTAB too) or a header no runtime can send.
 */
function readQuery(ctx: BucketContext, keepsParts: boolean): HeaderMap {
  const out: HeaderMap = {};
  for (const name of ctx.query.names()) {
    const value = ctx.query.get(name);
    if (!READ_QUERY.has(name) || !value || (name === 'partNumber' && !keepsParts)) continue;
    if (name.startsWith('response-')) {
      // As S3 refuses them: otherwise anyone could have a public bucket's upload served as `text/html`.
      if (ctx.identity.principal.type === 'anonymous') throw invalidRequest('Request specific response headers cannot be used for anonymous GET requests.');
      if (CONTROL.test(value)) throw new S3Error('InvalidArgument', `The ${name} value holds a control character`, { ArgumentName: name });
    }
    out[name] = value;
  }
  return out;
}

/** Control characters, HTAB included: no override needs one, and RGW answers any of them with a broken response. */
const CONTROL = /[\x00-\x1f\x7f]/;
