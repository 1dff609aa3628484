/**
 * Reading what an S3 backend answered to a request the core sent itself (copy, batch delete, multipart
 * control), and answering the client with it: as a document rewritten into the virtual bucket's name and
 * key space. Errors too are rewritten (`S3Store.errorResponse`): a backend error document names the backend
 * bucket, and keys under `backend_prefix`.
 */
import { S3Error, notImplemented } from '../errors';
import { backendBytes } from '../streams';
import { S3Store } from '../backends/s3';
import { passThroughHeaders } from '../backends/store';
export { documentHeaders } from '../backends/store';
import type { BackendResponse, ProxyResponse } from '../http';
import { S3_XMLNS, xmlResponse } from '../responses';
import { buildXml, childOf, parseXml, type ParsedXml, type XmlNode, type XmlValue } from '../xml';
import type { BucketContext } from '../context';

/** The bucket's store when it is an S3 backend; multipart and batch delete exist only there (spec rule 8). */
export function s3StoreOf(ctx: BucketContext, operation: string): S3Store {
  if (ctx.store instanceof S3Store) return ctx.store;
  throw notImplemented(`${operation} on a bucket with backend_type "${ctx.bucket.backend.type}"`);
}

/** The backend's answer as it is: status, headers (with the gateway's request id) and body. */
export function passThrough(response: BackendResponse, body: Uint8Array, requestId: string): ProxyResponse {
  const headers = passThroughHeaders(response.headers, requestId);
  delete headers['content-length'];
  return { status: response.status, headers, body };
}

/** The backend's error (`body`: its document) in the client's terms, at the status the backend gave. */
export function backendErrorResponse(ctx: BucketContext, response: BackendResponse, body: Uint8Array): ProxyResponse {
  return s3StoreOf(ctx, ctx.request.method).errorResponse(response.status, response.headers, body, ctx.requestId, ctx.request.rawPath);
}

/** A parsed element with children. */
export type XmlElement = Exclude<ParsedXml, string>;

/**
 * What the backend answered, read as the document `root`: the parsed root (and the text, for what parsing
 * drops: the order of differently named elements) on a 200 that carries it, else
 * the response to give the client. Errors (including an `<Error>` inside a 200) are rewritten for the client;
 * a 200 with some other document means the backend does not implement the operation (s3rver answers
 * unknown sub-resources with a listing) and is a 502, never a misleading success.
 */
export async function readDocument(
  response: BackendResponse,
  root: string,
  ctx: BucketContext,
): Promise<{ readonly document: XmlElement; readonly text: string; readonly response?: undefined } | { readonly response: ProxyResponse }> {
  const body = await backendBytes(response.body);
  if (response.status !== 200) return { response: backendErrorResponse(ctx, response, body) };
  const text = utf8(body);
  const doc = parseXml(text);
  const element = childOf(doc, root);
  // An empty element (`<DeleteResult/>`, a quiet batch delete) parses as text.
  if (element !== undefined) return { document: typeof element === 'string' ? {} : element, text };
  if (childOf(doc, 'Error') !== undefined) return { response: backendErrorResponse(ctx, response, body) };
  throw new S3Error('BadGateway', `The backend did not answer with ${root}`);
}

/** The document the gateway writes back: `root` with the S3 namespace. */
export function documentResponse(root: string, node: XmlNode, requestId: string, headers: Record<string, string> = {}): ProxyResponse {
  return xmlResponse(200, buildXml(root, node, S3_XMLNS), requestId, headers);
}

/** A parsed element as a node the builder writes again (whitespace between elements dropped). */
export function toXmlNode(parsed: ParsedXml | undefined): XmlNode {
  if (parsed === undefined || typeof parsed === 'string') return {};
  const out: Record<string, XmlValue | XmlValue[]> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (name === '#text') continue;
    out[name] = Array.isArray(value) ? value.map(toXmlValue) : toXmlValue(value);
  }
  return out;
}

function toXmlValue(value: ParsedXml): XmlValue {
  return typeof value === 'string' ? value : toXmlNode(value);
}

const decoder = new TextDecoder();

export function utf8(body: Uint8Array): string {
  return decoder.decode(body);
}
