import { sha256Hex, toHex, uriEncode } from '../../sigv4/encoding';

/**
 * Google Cloud Storage V4 signed URLs (GOOG4-RSA-SHA256) on Web Crypto:
 * https://cloud.google.com/storage/docs/access-control/signing-urls-manually
 * One function per step, each checked against Google's conformance vectors (test/fixtures/gcs-v4-signing).
 */

type Subtle = typeof globalThis.crypto.subtle;
export type RsaKey = Awaited<ReturnType<Subtle['importKey']>>;

export const GOOG4_ALGORITHM = 'GOOG4-RSA-SHA256';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
/** Longest lifetime Google accepts for a V4 signed URL: seven days. */
export const MAX_EXPIRES_SECONDS = 604_800;

export interface GcsSignRequest {
  readonly method: string;
  /** `https://storage.googleapis.com` (scheme, host and port of the URL); no trailing slash. */
  readonly origin: string;
  /** The `host` header value signed; what the HTTP client will send for `origin`. */
  readonly host: string;
  /** Canonical path, already percent-encoded with the one key encoder (`/bucket/object`). */
  readonly path: string;
  /** Extra query parameters, decoded. */
  readonly query?: Readonly<Record<string, string>>;
  /** Headers the request will carry and that are signed (besides `host`); names in any case. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly clientEmail: string;
  /** Milliseconds since the epoch. */
  readonly now: number;
  readonly expiresSeconds: number;
}

export interface GcsSignedUrl {
  readonly url: string;
  readonly canonicalRequest: string;
  readonly stringToSign: string;
  readonly signature: string;
}

/** `20190201T090000Z` */
export function googDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** Header names lower-cased, values trimmed with runs of spaces and tabs collapsed to one space. */
export function canonicalHeaders(headers: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(headers)
    .map(([name, value]): [string, string] => [name.toLowerCase(), value.replace(/[ \t]+/g, ' ').trim()])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Query parameters RFC 3986-encoded (names and values) and sorted by encoded name. */
export function canonicalQuery(query: Readonly<Record<string, string>>): string {
  return Object.entries(query)
    .map(([name, value]) => [uriEncode(name, true), uriEncode(value, true)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

export function canonicalRequest(method: string, path: string, query: string, headers: [string, string][], payloadHash: string): string {
  const lines = headers.map(([name, value]) => `${name}:${value}\n`).join('');
  return [method, path, query, lines, headers.map(([name]) => name).join(';'), payloadHash].join('\n');
}

export async function stringToSign(timestamp: string, scope: string, request: string): Promise<string> {
  return [GOOG4_ALGORITHM, timestamp, scope, await sha256Hex(request)].join('\n');
}

/** Imports the PEM PKCS#8 private key of a service-account JSON key for RSASSA-PKCS1-v1_5 with SHA-256. */
export async function importServiceAccountKey(pem: string): Promise<RsaKey> {
  const base64 = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, '').replace(/\s+/g, '');
  const der = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return globalThis.crypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
}

/** Lower-case hex of the RSA-SHA256 signature of `text`. */
export async function rsaSign(key: RsaKey, text: string): Promise<string> {
  return toHex(await globalThis.crypto.subtle.sign('RSASSA-PKCS1-v1_5', key, new TextEncoder().encode(text)));
}

/**
 * A V4 signed URL. The payload is `UNSIGNED-PAYLOAD` unless an `x-goog-content-sha256` header is signed.
 *
 * @example await signUrl({ method: 'GET', origin: 'https://storage.googleapis.com', host: 'storage.googleapis.com',
 *   path: '/bucket/object', clientEmail, now: Date.now(), expiresSeconds: 900 }, await importServiceAccountKey(pem))
 */
export async function signUrl(request: GcsSignRequest, key: RsaKey): Promise<GcsSignedUrl> {
  if (!(request.expiresSeconds >= 1 && request.expiresSeconds <= MAX_EXPIRES_SECONDS)) {
    throw new RangeError(`V4 signed URLs live 1 to ${MAX_EXPIRES_SECONDS} seconds, not ${request.expiresSeconds}`);
  }
  const timestamp = googDate(request.now);
  const scope = `${timestamp.slice(0, 8)}/auto/storage/goog4_request`;
  const headers = canonicalHeaders(Object.assign({}, request.headers, { host: request.host }));
  const payloadHash = headers.find(([name]) => name === 'x-goog-content-sha256')?.[1] ?? UNSIGNED_PAYLOAD;
  const query = canonicalQuery({
    ...request.query,
    'X-Goog-Algorithm': GOOG4_ALGORITHM,
    'X-Goog-Credential': `${request.clientEmail}/${scope}`,
    'X-Goog-Date': timestamp,
    'X-Goog-Expires': String(request.expiresSeconds),
    'X-Goog-SignedHeaders': headers.map(([name]) => name).join(';'),
  });
  const canonical = canonicalRequest(request.method.toUpperCase(), request.path, query, headers, payloadHash);
  const toSign = await stringToSign(timestamp, scope, canonical);
  const signature = await rsaSign(key, toSign);
  return {
    url: `${request.origin}${request.path}?${query}&X-Goog-Signature=${signature}`,
    canonicalRequest: canonical,
    stringToSign: toSign,
    signature,
  };
}
