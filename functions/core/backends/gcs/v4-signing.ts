import { fromBase64, sha256HexSync, toHex, uriEncode } from '../../bytes';
import { UNSIGNED_PAYLOAD, canonicalHeaderValue, canonicalHeaders, canonicalQuery, canonicalRequest, stringToSign } from '../../sigv4';

/**
 * Google Cloud Storage V4 signed URLs (GOOG4-RSA-SHA256) on Web Crypto:
 * https://cloud.google.com/storage/docs/access-control/signing-urls-manually
 * The canonical request is SigV4's (same steps, same encoder); only the algorithm name, the scope and the RSA
 * signature differ. Checked against Google's conformance vectors (test/fixtures/gcs-v4-signing).
 */

type Subtle = typeof globalThis.crypto.subtle;
export type RsaKey = Awaited<ReturnType<Subtle['importKey']>>;

export const GOOG4_ALGORITHM = 'GOOG4-RSA-SHA256';
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

/**
 * The canonical headers of a signed URL: names lower-cased and sorted, values normalized as SigV4 does.
 * Returns the block and the `;`-joined name list.
 */
function signedHeaderBlock(headers: Readonly<Record<string, string>>): { block: string; names: string[] } {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
  const names = Object.keys(lower).sort();
  return { block: canonicalHeaders(lower, names), names };
}

/** Decoded query parameters as a raw query string, for SigV4's canonical query (which sorts and re-encodes). */
function rawQueryOf(query: Readonly<Record<string, string>>): string {
  return Object.entries(query)
    .map(([name, value]) => `${uriEncode(name, true)}=${uriEncode(value, true)}`)
    .join('&');
}

/** Imports the PEM PKCS#8 private key of a service-account JSON key for RSASSA-PKCS1-v1_5 with SHA-256. */
export async function importServiceAccountKey(pem: string): Promise<RsaKey> {
  const base64 = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, '').replace(/\s+/g, '');
  const der = fromBase64(base64);
  if (der === undefined) throw new TypeError('The service account key is not PEM');
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
  const headers = signedHeaderBlock(Object.assign({}, request.headers, { host: request.host }));
  const contentSha256 = Object.entries(request.headers ?? {}).find(([name]) => name.toLowerCase() === 'x-goog-content-sha256');
  const payloadHash = contentSha256 === undefined ? UNSIGNED_PAYLOAD : canonicalHeaderValue(contentSha256[1]);
  const query = canonicalQuery(
    rawQueryOf({
      ...request.query,
      'X-Goog-Algorithm': GOOG4_ALGORITHM,
      'X-Goog-Credential': `${request.clientEmail}/${scope}`,
      'X-Goog-Date': timestamp,
      'X-Goog-Expires': String(request.expiresSeconds),
      'X-Goog-SignedHeaders': headers.names.join(';'),
    }),
  );
  const canonical = canonicalRequest({
    method: request.method.toUpperCase(),
    rawPath: request.path,
    canonicalQuery: query,
    canonicalHeaders: headers.block,
    signedHeaders: headers.names,
    payloadHash,
  });
  const toSign = stringToSign(timestamp, scope, sha256HexSync(canonical), GOOG4_ALGORITHM);
  const signature = await rsaSign(key, toSign);
  return {
    url: `${request.origin}${request.path}?${query}&X-Goog-Signature=${signature}`,
    canonicalRequest: canonical,
    stringToSign: toSign,
    signature,
  };
}
