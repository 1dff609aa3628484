/**
 * PostObject: a browser form upload (presigned POST, `POST /{bucket}` with `multipart/form-data`). The form's
 * fields are read first; the policy's signer is authenticated (auth/identity.ts), the policy's expiry and
 * every condition checked (auth/post-policy.ts), and the key (with `${filename}` filled in) authorized by
 * the operation table's row for PostObject (auth/authorize.ts): `put_object`, and the actions the `acl`,
 * `tagging` and `x-amz-object-lock-*` fields ask for, as the headers they stand for would. The file then streams to the backend as a PUT of its exact length
 * (payload/form-data.ts): a form that turns out other than it declared aborts the backend write, so nothing
 * is committed. The answer is S3's: 204 (or `success_action_status` 200/201) or a 303 to
 * `success_action_redirect`.
 */
import { authenticatePostForm } from '../auth/identity';
import { authorize, type Access } from '../auth/authorize';
import { checkPolicy, parsePolicy } from '../auth/post-policy';
import type { BucketContext } from '../context';
import { S3Error, notImplemented } from '../errors';
import { isProxyResponse, isRewriteBody, type Dispatch, type HeaderMap, type ProxyResponse, type ReadonlyHeaders } from '../http';
import { encodeKey, validateKey } from '../keys';
import { callerOf } from '../observability/record';
import { checkDeclaredLength } from '../payload/upload';
import { formBoundary, formLength, readForm, type FormUpload } from '../payload/form-data';
import { emptyResponse, s3Xml } from '../responses';
import { childOf, listOf, parseXml, textOf } from '../xml';
import { UNSIGNED_PAYLOAD } from '../sigv4';
import type { Handler, S3Services } from './operation';
import { checkMetadataSize } from './write-headers';

/** Fields that become object headers under their own name. */
const HEADER_FIELDS = ['content-type', 'cache-control', 'content-disposition', 'content-encoding', 'expires', 'x-amz-storage-class', 'x-amz-website-redirect-location'];
const HEADER_PREFIXES = ['x-amz-meta-', 'x-amz-server-side-encryption', 'x-amz-object-lock-'];
/** Fields S3 accepts that the gateway does not carry out: refused rather than silently dropped. */
const UNSUPPORTED = ['x-amz-checksum-'];

export const postObject: Handler<'PostObject'> = async (op, ctx, services, access) => {
  const boundary = formBoundary(ctx.request.headers.get('content-type'));
  if (boundary === undefined) throw new S3Error('PreconditionFailed', 'Bucket POST must be of the enclosure-type multipart/form-data');
  const length = formLength(ctx.request.headers);
  const form = await readForm(ctx.request.body(), boundary, length);
  let key: string;
  let headers: HeaderMap;
  try {
    headers = objectHeaders(form.fields);
    key = await admit(form, ctx, services, access, headers);
    checkMetadataSize(headers);
  } catch (err) {
    form.discard();
    throw err;
  }
  const forward = await ctx.store.forwardObject({
    method: 'PUT',
    key,
    headers: Object.assign(headers, { 'content-length': String(form.fileLength) }),
    body: form.body(),
    payloadHash: UNSIGNED_PAYLOAD,
    requestId: ctx.requestId,
    resource: ctx.request.rawPath,
    trace: ctx.record?.trace,
  });
  return {
    kind: 'forward',
    request: forward.request,
    respond: (status, backendHeaders) => {
      const head = forward.respond(status, backendHeaders);
      if (isProxyResponse(head) || isRewriteBody(head) || head.status < 200 || head.status > 299) return head;
      return success(form.fields, ctx, op.bucket, key, backendHeaders);
    },
  } satisfies Dispatch;
};

/**
 * Authenticates the form's signer, checks its policy, and authorizes the key under `access`, with the
 * object headers the fields become standing for the request's; returns the key.
 */
async function admit(form: FormUpload, ctx: BucketContext, services: S3Services, access: Access, headers: HeaderMap): Promise<string> {
  const now = (services.now ?? Date.now)();
  const identity = await authenticatePostForm(form.fields, ctx.config, now, services.unseal);
  const policy = form.fields.get('policy');
  if (policy !== undefined) checkPolicy(parsePolicy(policy), form.fields, ctx.bucket.name, form.fileLength, now);
  const field = form.fields.get('key');
  if (field === undefined || field === '') {
    throw new S3Error('InvalidArgument', "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields.");
  }
  const key = field.replaceAll('${filename}', form.file.filename);
  validateKey(key);
  // The form's signer, not the request's (anonymous) sender, is who wrote the object.
  if (ctx.record) {
    ctx.record.caller = callerOf(identity.principal);
    ctx.record.key = key;
  }
  authorize(identity, access, { headers: new Headers(headers) }, ctx.bucket, key);
  checkDeclaredLength(ctx, form.fileLength);
  return key;
}

function objectHeaders(fields: ReadonlyMap<string, string>): HeaderMap {
  const out: HeaderMap = {};
  for (const [name, value] of fields) {
    if (UNSUPPORTED.some((u) => name.startsWith(u))) throw notImplemented(`The form field ${name}`);
    if (name === 'tagging') {
      out['x-amz-tagging'] = tagQuery(value);
      continue;
    }
    const header = name === 'acl' ? 'x-amz-acl' : HEADER_FIELDS.includes(name) || HEADER_PREFIXES.some((p) => name.startsWith(p)) ? name : undefined;
    if (header === undefined) continue;
    if (!/^[\x20-\x7e\t]*$/.test(value)) throw new S3Error('InvalidArgument', `The form field ${name} must be printable ASCII text`);
    out[header] = value;
  }
  return out;
}

/**
 * The form's `tagging` field, a Tagging document (`<Tagging><TagSet><Tag><Key/><Value/></Tag>…`), as the
 * `x-amz-tagging` header a PUT carries: URL-encoded `key=value` pairs.
 */
function tagQuery(document: string): string {
  let tagSet;
  try {
    tagSet = childOf(childOf(parseXml(document), 'Tagging'), 'TagSet');
  } catch {
    tagSet = undefined;
  }
  if (tagSet === undefined) throw new S3Error('MalformedXML', 'The XML in the tagging form field is not well-formed or did not validate against the Tagging schema');
  return listOf(tagSet, 'Tag')
    .map((tag) => `${encodeURIComponent(textOf(childOf(tag, 'Key')) ?? '')}=${encodeURIComponent(textOf(childOf(tag, 'Value')) ?? '')}`)
    .join('&');
}

/** S3's answer to a stored form upload: a 303 to `success_action_redirect`, else `success_action_status`. */
function success(fields: ReadonlyMap<string, string>, ctx: BucketContext, bucket: string, key: string, backend: ReadonlyHeaders): ProxyResponse {
  const etag = backend.get('etag') ?? '';
  const headers: HeaderMap = { etag, location: objectUrl(ctx, key) };
  const version = backend.get('x-amz-version-id');
  if (version !== null) headers['x-amz-version-id'] = version;
  const redirect = redirectUrl(fields.get('success_action_redirect') ?? fields.get('redirect'));
  if (redirect !== undefined) {
    const query = `bucket=${encodeURIComponent(bucket)}&key=${encodeURIComponent(key)}&etag=${encodeURIComponent(etag)}`;
    headers.location = `${redirect}${redirect.includes('?') ? '&' : '?'}${query}`;
    return emptyResponse(303, ctx.requestId, headers);
  }
  const status = fields.get('success_action_status');
  if (status === '201') {
    const xml = s3Xml('PostResponse', { Location: headers.location, Bucket: bucket, Key: key, ETag: etag }, ctx.requestId);
    return { status: 201, headers: Object.assign({}, xml.headers, headers), body: xml.body };
  }
  return emptyResponse(status === '200' ? 200 : 204, ctx.requestId, headers);
}

/** An absolute http(s) URL without control characters, or undefined (S3 then answers as without one). */
function redirectUrl(value: string | undefined): string | undefined {
  if (value === undefined || !/^https?:\/\/[^\s\u0000-\u001f\u007f]+$/i.test(value)) return undefined;
  return value;
}

/** Where the object now lives, as the client addressed the bucket (`x-forwarded-proto`, else https). */
function objectUrl(ctx: BucketContext, key: string): string {
  const proto = ctx.request.headers.get('x-forwarded-proto') === 'http' ? 'http' : 'https';
  const host = ctx.request.headers.get('host') ?? '';
  return `${proto}://${host}${ctx.request.rawPath.replace(/\/$/, '')}/${encodeKey(key)}`;
}
