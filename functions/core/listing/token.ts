/**
 * The gateway's own listing positions. A listing resumes after the last name the caller was shown (a key or
 * a common prefix), which it already knows; nothing else in a token is readable. A store that resumes more
 * cheaply from its own marker (Azure's NextMarker, a GCS page token: both name backend keys, with the
 * backend prefix) gets it back as a hint sealed with AES-256-GCM under a key derived from SESSION_TOKEN_KEY.
 * A hint that does not open (another instance's key, a forgery) is ignored and the listing resumes by name:
 * the same entries, found with more backend reads. So a client can neither read a backend position nor
 * make the gateway start from one it chose; a name it makes up is only a start-after.
 */
import { S3Error } from '../errors';
import { fromBase64Url, toBase64Url, type CryptoKey } from '../bytes';

/** Where a listing resumes: after the name `after`; `hint` is the store's marker for it, when it has one. */
export interface ListPosition {
  readonly after?: string;
  readonly hint?: ListHint;
}

/** A store's own resume marker, bound to the segment and position it was issued for. */
export interface ListHint {
  /** The virtual bucket whose store issued it. */
  readonly bucket: string;
  /** The key range (in that bucket's key space) the store was listing. */
  readonly range: string;
  /** The listing's delimiter ('' for none). */
  readonly delimiter: string;
  /** The position (`ListPosition.after`) it was issued with. */
  readonly after?: string;
  /** The store's continuation token; absent: the segment starts from the beginning. */
  readonly token?: string;
}

/** The listing a token belongs to: its prefix and delimiter, which a token must be used with again. */
export interface Listing {
  readonly prefix: string;
  readonly delimiter?: string;
}

/** V1 markers the gateway issues start with this; any other marker is a key. */
export const MARKER_TAG = 'gw1.';

const NONCE_BYTES = 12;
const HINT_AAD = new TextEncoder().encode('s3-gateway listing hint v1');
const MAX_TOKEN_CHARS = 8 * 1024;

/** Seals and opens hints with one key: derived from SESSION_TOKEN_KEY, or random for this process or isolate. */
export class ListTokens {
  private key?: Promise<CryptoKey>;

  /** @param secret SESSION_TOKEN_KEY's bytes; absent: a random key, drawn on first use. */
  constructor(private readonly secret?: Uint8Array) {}

  private cryptoKey(): Promise<CryptoKey> {
    this.key ??= deriveKey(this.secret ?? crypto.getRandomValues(new Uint8Array(32)));
    return this.key;
  }

  /** The V2 continuation token (and the V1 marker, tagged) for `position` in `listing`. */
  async encode(listing: Listing, position: ListPosition): Promise<string> {
    const body: TokenBody = { p: listing.prefix, d: listing.delimiter ?? '' };
    if (position.after !== undefined) body.a = position.after;
    if (position.hint !== undefined) body.h = await this.seal(position.hint);
    return toBase64Url(new TextEncoder().encode(JSON.stringify(body)));
  }

  /**
   * A V2 continuation token's position in `listing`; one the gateway could not have issued, or issued for
   * another prefix or delimiter, is InvalidArgument (as on S3).
   */
  async decode(listing: Listing, token: string): Promise<ListPosition> {
    const body = token.length <= MAX_TOKEN_CHARS ? parseBody(token) : undefined;
    if (body === undefined || !belongs(body, listing)) throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect');
    const hint = body.h === undefined ? undefined : await this.open(body.h);
    return hint !== undefined && hint.after === body.a ? { after: body.a, hint } : { after: body.a };
  }

  /** A V1 marker: the gateway's own for this listing (tagged) is a position, any other is a key to start after. */
  async marker(listing: Listing, marker: string): Promise<ListPosition> {
    if (marker.startsWith(MARKER_TAG)) {
      const token = marker.slice(MARKER_TAG.length);
      const body = parseBody(token);
      if (body !== undefined && belongs(body, listing)) return this.decode(listing, token);
    }
    return { after: marker };
  }

  private async seal(hint: ListHint): Promise<string> {
    const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
    const plaintext = new TextEncoder().encode(JSON.stringify(hint));
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce, additionalData: HINT_AAD }, await this.cryptoKey(), plaintext));
    const out = new Uint8Array(NONCE_BYTES + sealed.length);
    out.set(nonce, 0);
    out.set(sealed, NONCE_BYTES);
    return toBase64Url(out);
  }

  private async open(sealed: string): Promise<ListHint | undefined> {
    const bytes = fromBase64Url(sealed);
    if (bytes === undefined || bytes.length <= NONCE_BYTES + 16) return undefined;
    let plaintext: ArrayBuffer;
    try {
      plaintext = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytes.subarray(0, NONCE_BYTES), additionalData: HINT_AAD }, await this.cryptoKey(), bytes.subarray(NONCE_BYTES));
    } catch {
      return undefined;
    }
    const value = parseJson(new TextDecoder().decode(plaintext));
    const optional = (x: unknown): boolean => x === undefined || typeof x === 'string';
    if (value === undefined || typeof value.bucket !== 'string' || typeof value.range !== 'string' || typeof value.delimiter !== 'string') return undefined;
    if (!optional(value.after) || !optional(value.token)) return undefined;
    return value as unknown as ListHint;
  }
}

/**
 * An AES-256-GCM key for one purpose (`info`): HKDF-SHA-256 of SESSION_TOKEN_KEY, so the session key itself
 * seals nothing else and what one purpose seals never opens as another's.
 */
export async function deriveKey(secret: Uint8Array, info = 's3-gateway listing token v1'): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey('raw', secret, 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: new TextEncoder().encode(info) },
    base,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

/** A token as JSON: the listing's prefix and delimiter, the last name shown, the sealed hint. */
interface TokenBody {
  readonly p: string;
  readonly d: string;
  a?: string;
  h?: string;
}

function belongs(body: TokenBody, listing: Listing): boolean {
  return body.p === listing.prefix && body.d === (listing.delimiter ?? '');
}

function parseBody(token: string): TokenBody | undefined {
  const bytes = fromBase64Url(token);
  if (bytes === undefined) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  const value = parseJson(text);
  if (value === undefined) return undefined;
  const { p, d, a, h } = value;
  if (typeof p !== 'string' || typeof d !== 'string') return undefined;
  if ((a !== undefined && typeof a !== 'string') || (h !== undefined && typeof h !== 'string')) return undefined;
  return { p, d, a, h };
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
