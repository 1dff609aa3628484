import type { LambdaFunctionURLEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

/** What the local Function URL knows about a received request. `IncomingMessage` satisfies it. */
export interface ReceivedRequest {
  readonly method?: string;
  /** Request target as sent: path with percent-encoding intact, then `?` and the raw query. */
  readonly url?: string;
  /** Name/value pairs in arrival order, names as sent. */
  readonly rawHeaders: readonly string[];
  readonly httpVersion: string;
  readonly socket: { readonly remoteAddress?: string; readonly localPort?: number };
}

/**
 * Hop-by-hop headers end at the Function URL's front end; the function never sees them (assumed, as for any
 * HTTP proxy; the body arrives whole in the event, so framing headers mean nothing to it).
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'proxy-connection', 'expect', 'trailer']);

/**
 * Builds the payload-2.0 event a Function URL sends: lowercase header names with repeated headers joined by
 * `,`, `Cookie` moved into `cookies`, `rawPath` and `rawQueryString` exactly as sent, decoded
 * `queryStringParameters`, the body base64-encoded unless it is text, and `requestContext.http`.
 */
export function toFunctionUrlEvent(req: ReceivedRequest, body: Buffer, now: number = Date.now()): LambdaFunctionURLEvent {
  const target = req.url ?? '/';
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  const rawQueryString = q < 0 ? '' : target.slice(q + 1);
  const { headers, cookies } = eventHeaders(req);
  const host = headers.host ?? 'localhost';
  const textBody = body.length > 0 && isText(headers['content-type']) ? utf8(body) : undefined;
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(rawQueryString ? { queryStringParameters: decodeQuery(rawQueryString) } : {}),
    requestContext: {
      accountId: 'anonymous',
      apiId: host.split('.')[0],
      domainName: host,
      domainPrefix: host.split('.')[0],
      http: {
        method: (req.method ?? 'GET').toUpperCase(),
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: clfTime(now),
      timeEpoch: now,
    },
    ...(body.length > 0 ? { body: textBody ?? body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && textBody === undefined,
  };
}

function eventHeaders(req: ReceivedRequest): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i].toLowerCase();
    const value = req.rawHeaders[i + 1];
    if (HOP_BY_HOP.has(name)) continue;
    if (name === 'cookie') cookies.push(...value.split(';').map((c) => c.trim()).filter((c) => c !== ''));
    else headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  headers['x-forwarded-proto'] ??= 'http';
  headers['x-forwarded-port'] ??= String(req.socket.localPort ?? '');
  headers['x-forwarded-for'] ??= req.socket.remoteAddress ?? '127.0.0.1';
  headers['x-amzn-trace-id'] ??= `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  return { headers, cookies };
}

/** Decoded as Function URLs do (`+` is a space); repeated parameters are joined with `,`. */
function decodeQuery(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    const value = decode(eq < 0 ? '' : part.slice(eq + 1));
    out[name] = name in out ? `${out[name]},${value}` : value;
  }
  return out;
}

function decode(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** Text bodies are passed as strings (assumed per the HTTP API rules; the handler decodes both forms). */
function isText(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return /^(text\/|application\/(json|xml|javascript)\b|[^;]*\+(json|xml)\b)/i.test(contentType.trim());
}

function utf8(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `requestContext.time` in the Common Log Format, e.g. `12/Mar/2020:19:03:58 +0000`. */
function clfTime(epochMs: number): string {
  const d = new Date(epochMs);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}
