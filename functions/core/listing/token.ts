/**
 * The gateway's own listing positions. A listing resumes after the last name the caller was shown (a key or
 * a common prefix); a store that resumes more cheaply from its own marker (Azure's NextMarker, a GCS page
 * token: both name backend keys, with the backend prefix) adds it as a hint. The whole position is sealed
 * with AES-256-GCM under a key derived from SESSION_TOKEN_KEY, bound to the listing's prefix and delimiter:
 * nothing in a token is readable, and one that does not open (altered, cut short, another deployment's key,
 * another listing) is refused. So a client can neither read a backend position nor make the gateway start
 * from one it chose; a name it makes up goes in `start-after` or a V1 `marker`, as on S3.
 */
import { S3Error } from '../errors';
import { fromBase64Url, toBase64Url, type CryptoKey } from '../bytes';

/** Where a listing resumes: after the name `after`; `hint` is the store's marker for it, when it has one. */
export interface ListPosition {
  readonly after?: string;
  readonly hint?: ListHint;
}

/** A store's own resume marker, for the segment it was issued in (sealed with the token's position and listing). */
export interface ListHint {
  /** The virtual bucket whose store issued it. */
  readonly bucket: string;
  /** The key range (in that bucket's key space) the store was listing. */
  readonly range: string;
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
const TAG_BYTES = 16;
/** The shortest token the gateway issues (sealing `[""]`): a `gw1.` marker shorter than this is a key. */
const MIN_SEALED_BYTES = NONCE_BYTES + TAG_BYTES + '[""]'.length;
/** Names what the derived key seals here, beside the listing the token belongs to (the additional data). */
const PURPOSE = 's3-gateway listing position v2';
const MAX_TOKEN_CHARS = 8 * 1024;

function incorrect(): S3Error {
  return new S3Error('InvalidArgument', 'The continuation token provided is incorrect');
}

/** Seals and opens positions with one key: derived from SESSION_TOKEN_KEY, or random for this process or isolate. */
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
    const { after = null, hint } = position;
    const fields: Fields = hint === undefined ? [after] : [after, hint.bucket, hint.range, hint.token ?? null];
    const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
    const plaintext = new TextEncoder().encode(JSON.stringify(fields));
    const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce, additionalData: boundTo(listing) }, await this.cryptoKey(), plaintext);
    const out = new Uint8Array(NONCE_BYTES + sealed.byteLength);
    out.set(nonce, 0);
    out.set(new Uint8Array(sealed), NONCE_BYTES);
    return toBase64Url(out);
  }

  /**
   * A V2 continuation token's position in `listing`; one this deployment did not issue for this prefix and
   * delimiter, or altered, is InvalidArgument (as on S3).
   */
  async decode(listing: Listing, token: string): Promise<ListPosition> {
    const bytes = token.length <= MAX_TOKEN_CHARS ? fromBase64Url(token) : undefined;
    if (bytes === undefined || bytes.length < MIN_SEALED_BYTES) throw incorrect();
    let plaintext: ArrayBuffer;
    try {
      plaintext = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytes.subarray(0, NONCE_BYTES), additionalData: boundTo(listing) }, await this.cryptoKey(), bytes.subarray(NONCE_BYTES));
    } catch {
      throw incorrect();
    }
    const fields = parseFields(new TextDecoder().decode(plaintext));
    if (fields === undefined) throw incorrect();
    const [after, bucket, range, storeToken] = fields;
    const hint = bucket === undefined || range === undefined ? undefined : { bucket, range, token: storeToken ?? undefined };
    return { after: after ?? undefined, hint };
  }

  /**
   * A V1 marker: one tagged as the gateway's and long enough to be a sealed position must open as one for
   * this listing (else InvalidArgument, as a token); any other marker is a key to start after.
   */
  async marker(listing: Listing, marker: string): Promise<ListPosition> {
    if (marker.startsWith(MARKER_TAG)) {
      const token = marker.slice(MARKER_TAG.length);
      if ((fromBase64Url(token)?.length ?? 0) >= MIN_SEALED_BYTES) return this.decode(listing, token);
    }
    return { after: marker };
  }
}

/** What a token seals: the last name shown (null: none yet), and the hint's bucket, range and store token. */
type Fields = [string | null] | [string | null, string, string, string | null];

/** The additional data a token is sealed with: its purpose and the listing it belongs to. */
function boundTo(listing: Listing): Uint8Array {
  return new TextEncoder().encode(JSON.stringify([PURPOSE, listing.prefix, listing.delimiter ?? '']));
}

function parseFields(text: string): Fields | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value)) return undefined;
  const [after, bucket, range, token] = value as unknown[];
  const isText = (x: unknown): x is string => typeof x === 'string';
  if (after !== null && !isText(after)) return undefined;
  if (value.length === 1) return [after];
  if (value.length !== 4 || !isText(bucket) || !isText(range) || (token !== null && !isText(token))) return undefined;
  return [after, bucket, range, token];
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
