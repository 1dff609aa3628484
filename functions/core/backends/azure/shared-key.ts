import { hmac } from '../../bytes';
import type { HeaderMap } from '../../http';
import { toBase64 } from '../../bytes';

/**
 * Azure Storage Shared Key authorization for the Blob service (version 2015-02-21 and later):
 * https://learn.microsoft.com/rest/api/storageservices/authorize-with-shared-key
 */

/** The standard headers of the string-to-sign, in its order. */
const STANDARD_HEADERS = [
  'content-encoding', 'content-language', 'content-length', 'content-md5', 'content-type', 'date',
  'if-modified-since', 'if-match', 'if-none-match', 'if-unmodified-since', 'range',
];

export interface SharedKeyRequest {
  readonly method: string;
  /** Absolute URL as it will be sent (path percent-encoded, query included). */
  readonly url: string;
  /** Header names lower-case; must already include `x-ms-date` and `x-ms-version`. */
  readonly headers: HeaderMap;
}

/**
 * The string-to-sign. `Content-Length` is empty when zero (2015-02-21+); canonicalized headers are the
 * `x-ms-*` headers sorted; the canonicalized resource is `/account` + the URL path as sent, then each query
 * parameter as `\nname:value` with names lower-cased and sorted and values decoded.
 */
export function sharedKeyStringToSign(account: string, request: SharedKeyRequest): string {
  const headers = request.headers;
  const standard = STANDARD_HEADERS.map((name) => {
    const value = headers[name] ?? '';
    return name === 'content-length' && value === '0' ? '' : value;
  });
  const msHeaders = Object.keys(headers)
    .filter((name) => name.startsWith('x-ms-'))
    .sort()
    .map((name) => `${name}:${headers[name].replace(/\s+/g, ' ').trim()}\n`)
    .join('');
  return [request.method.toUpperCase(), ...standard].join('\n') + '\n' + msHeaders + canonicalizedResource(account, request.url);
}

function canonicalizedResource(account: string, url: string): string {
  const match = /^[a-z]+:\/\/[^/?#]*([^?#]*)(?:\?([^#]*))?/i.exec(url);
  const path = match?.[1] || '/';
  const params = new Map<string, string[]>();
  for (const part of (match?.[2] ?? '').split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeURIComponent(eq < 0 ? part : part.slice(0, eq)).toLowerCase();
    const value = eq < 0 ? '' : decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
    params.set(name, [...(params.get(name) ?? []), value]);
  }
  let out = `/${account}${path}`;
  for (const name of [...params.keys()].sort()) out += `\n${name}:${(params.get(name) as string[]).sort().join(',')}`;
  return out;
}

/** The `Authorization` header value: `SharedKey account:base64(HMAC-SHA256(key, string-to-sign))`. */
export async function sharedKeyAuthorization(account: string, key: Uint8Array, request: SharedKeyRequest): Promise<string> {
  const signature = await hmac(key, sharedKeyStringToSign(account, request));
  return `SharedKey ${account}:${toBase64(signature)}`;
}
