import { S3Error } from '../errors';
import type { Forward, HeaderMap } from '../http';
import type { BucketContext } from '../context';
import { invalidRequest, notImplemented } from '../errors';
import { parseRange, rangeHeader } from '../range';
import { authorizeKey, type Handler } from './operation';

/** Request headers a read passes to the backend: ranges, preconditions, checksum mode and SSE-C keys. */
const READ_HEADERS: ReadonlySet<string> = new Set([
  'range', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since', 'x-amz-checksum-mode',
  'x-amz-server-side-encryption-customer-algorithm', 'x-amz-server-side-encryption-customer-key',
  'x-amz-server-side-encryption-customer-key-md5', 'x-amz-request-payer', 'x-amz-expected-bucket-owner',
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
  authorizeKey(ctx, op, op.key);
  if (op.versionId !== undefined && ctx.bucket.backend.type !== 's3') throw notImplemented('Version-scoped reads on this backend');
  return ctx.store.forwardObject({
    method: op.name === 'GetObject' ? 'GET' : 'HEAD',
    key: op.key,
    query: readQuery(ctx),
    headers: readHeaders(ctx),
    requestId: ctx.requestId,
    resource: ctx.request.rawPath,
    trace: ctx.record?.trace,
  });
};

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
 * The read's query for the backend. A `response-*` override becomes a response header, so one holding a
 * control character (CR and LF included) is refused with 400 before anything is sent: passed on, it reaches
 * the backend, which may answer with a broken response (Ceph RGW writes a second status line into its answer
 * for any of them, HTAB too) or a header no runtime can send.
 */
function readQuery(ctx: BucketContext): HeaderMap {
  const out: HeaderMap = {};
  for (const name of ctx.query.names()) {
    const value = ctx.query.get(name);
    if (!READ_QUERY.has(name) || !value) continue;
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
