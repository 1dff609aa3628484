/**
 * ListMultipartUploads: asked of the backend under `backend_prefix` (keys URL-encoded so any key survives the
 * XML), answered in the virtual bucket's name and key space; uploads outside the caller's scopes are dropped.
 */
import { isAllowed } from '../authorization';
import type { Scope } from '../config/types';
import { S3Error } from '../errors';
import type { ProxyResponse } from '../http';
import { encodeKey } from '../keys';
import type { XmlNode } from '../xml';
import { childOf, listOf, textOf, type ParsedXml } from '../xml';
import { documentHeaders, documentResponse, readDocument, s3StoreOf, toXmlNode } from './backend-response';
import type { BucketContext } from '../context';

export interface ListUploadsParams {
  readonly prefix: string;
  readonly delimiter?: string;
  readonly keyMarker?: string;
  readonly uploadIdMarker?: string;
  readonly maxUploads: number;
  readonly encodeUrl: boolean;
}

/** Reads the listing parameters, with S3's defaults and limits. */
export function listUploadsParams(ctx: BucketContext): ListUploadsParams {
  const q = ctx.query;
  const rawMax = q.get('max-uploads');
  if (rawMax !== undefined && !/^\d+$/.test(rawMax)) throw new S3Error('InvalidArgument', 'Provided max-uploads not an integer or within integer range');
  const encoding = q.get('encoding-type');
  if (encoding !== undefined && encoding !== 'url') throw new S3Error('InvalidArgument', 'Invalid Encoding Method specified in Request');
  return {
    prefix: q.get('prefix') ?? '',
    delimiter: q.get('delimiter') || undefined,
    keyMarker: q.get('key-marker') || undefined,
    uploadIdMarker: q.get('upload-id-marker') || undefined,
    maxUploads: Math.min(rawMax === undefined ? 1000 : Number(rawMax), 1000),
    encodeUrl: encoding === 'url',
  };
}

export async function listMultipartUploads(ctx: BucketContext, params: ListUploadsParams, scopes?: readonly Scope[]): Promise<ProxyResponse> {
  const store = s3StoreOf(ctx, 'ListMultipartUploads');
  const query: Record<string, string> = {
    uploads: '',
    'encoding-type': 'url',
    'max-uploads': String(params.maxUploads),
    prefix: store.backendKey(params.prefix),
  };
  if (params.delimiter) query.delimiter = params.delimiter;
  if (params.keyMarker) query['key-marker'] = store.backendKey(params.keyMarker);
  if (params.uploadIdMarker) query['upload-id-marker'] = params.uploadIdMarker;
  const response = await store.send({ method: 'GET', query, headers: {} }, ctx.request.signal);
  const read = await readDocument(response, 'ListMultipartUploadsResult', ctx.requestId);
  if (read.response) return read.response;
  const result = read.document;

  const encode = (value: string): string => (params.encodeUrl ? encodeKey(value) : value);
  /** A backend key (URL-encoded by request) in the virtual space, or undefined outside the prefix. */
  const virtual = (node: ParsedXml | undefined): string | undefined => {
    const raw = textOf(node);
    if (raw === undefined || raw === '') return undefined;
    return store.virtualKey(safeDecode(raw));
  };
  const allowed = (key: string): boolean => scopes === undefined || isAllowed(scopes, ctx.bucket.name, 'list_bucket', key);
  const uploads: XmlNode[] = [];
  for (const upload of listOf(result, 'Upload')) {
    const key = virtual(childOf(upload, 'Key'));
    if (key === undefined || !allowed(key)) continue;
    uploads.push(Object.assign(toXmlNode(upload), { Key: encode(key) }));
  }
  const prefixes: XmlNode[] = [];
  for (const cp of listOf(result, 'CommonPrefixes')) {
    const prefix = virtual(childOf(cp, 'Prefix'));
    if (prefix !== undefined) prefixes.push({ Prefix: encode(prefix) });
  }
  const nextKeyMarker = virtual(childOf(result, 'NextKeyMarker'));
  return documentResponse(
    'ListMultipartUploadsResult',
    {
      Bucket: ctx.bucket.name,
      KeyMarker: encode(params.keyMarker ?? ''),
      UploadIdMarker: params.uploadIdMarker ?? '',
      NextKeyMarker: nextKeyMarker === undefined ? undefined : encode(nextKeyMarker),
      NextUploadIdMarker: textOf(childOf(result, 'NextUploadIdMarker')),
      Prefix: encode(params.prefix),
      Delimiter: params.delimiter === undefined ? undefined : encode(params.delimiter),
      MaxUploads: params.maxUploads,
      EncodingType: params.encodeUrl ? 'url' : undefined,
      IsTruncated: textOf(childOf(result, 'IsTruncated')) ?? 'false',
      Upload: uploads,
      CommonPrefixes: prefixes,
    },
    ctx.requestId,
    documentHeaders(response),
  );
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
