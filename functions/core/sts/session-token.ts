import { ACTIONS, type Action, type Scope } from '../config/types';
import { S3Error } from '../errors';
import type { SessionCredential, SessionUnsealer } from '../auth/identity';
import { fromBase64Url, toBase64Url, type CryptoKey } from '../bytes';

/**
 * Sealed session tokens: the gateway keeps no session state, so the temporary credential itself (secret,
 * resolved scopes, expiry) travels inside the token, encrypted and authenticated with AES-256-GCM under
 * SESSION_TOKEN_KEY. Layout (decisions.md): base64url(12-byte nonce ‖ ciphertext ‖ 16-byte tag) of the JSON
 * below. The additional data binds the format version, so a future layout cannot be confused with this one.
 */

/** What a token holds, as JSON. Times are milliseconds since the epoch. */
interface SealedSession {
  readonly v: 1;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly roleId: string;
  readonly subject: string;
  readonly expiresAt: number;
  readonly scopes: readonly Scope[];
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const AAD = new TextEncoder().encode('s3-gateway sts session v1');
/** Tokens are carried in a header; anything larger than this is not one of ours. */
const MAX_TOKEN_CHARS = 16 * 1024;

const INVALID = 'The provided token is malformed or otherwise invalid.';

/** The AES-GCM key for a 32-byte SESSION_TOKEN_KEY; import once per process and reuse. */
export function importSessionKey(raw: Uint8Array): Promise<CryptoKey> {
  if (raw.length !== 32) throw new TypeError('SESSION_TOKEN_KEY must be 32 bytes');
  return globalThis.crypto.subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

/**
 * Seals a temporary credential into a session token.
 *
 * @example const token = await sealSession(key, { accessKeyId, secretAccessKey, scopes, session: { roleId, subject, expiresAt } });
 */
export async function sealSession(key: CryptoKey, credential: SessionCredential): Promise<string> {
  const payload: SealedSession = {
    v: 1,
    accessKeyId: credential.accessKeyId,
    secretAccessKey: credential.secretAccessKey,
    roleId: credential.session.roleId,
    subject: credential.session.subject,
    expiresAt: credential.session.expiresAt,
    scopes: credential.scopes,
  };
  const nonce = globalThis.crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const plaintext = new TextEncoder().encode(JSON.stringify(payload));
  const sealed = new Uint8Array(await globalThis.crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce, additionalData: AAD, tagLength: 128 }, key, plaintext));
  const out = new Uint8Array(NONCE_BYTES + sealed.length);
  out.set(nonce, 0);
  out.set(sealed, NONCE_BYTES);
  return toBase64Url(out);
}

/**
 * Opens a session token. Anything that does not decrypt and parse is InvalidToken (the message never says
 * which step failed); a credential past its expiry is ExpiredToken.
 *
 * @throws S3Error `InvalidToken` or `ExpiredToken`.
 */
export async function unsealSession(key: CryptoKey, token: string, now: number): Promise<SessionCredential> {
  const bytes = token.length <= MAX_TOKEN_CHARS ? fromBase64Url(token) : undefined;
  if (bytes === undefined || bytes.length < NONCE_BYTES + TAG_BYTES + 2) throw new S3Error('InvalidToken', INVALID);
  let plaintext: ArrayBuffer;
  try {
    plaintext = await globalThis.crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: bytes.subarray(0, NONCE_BYTES), additionalData: AAD, tagLength: 128 },
      key,
      bytes.subarray(NONCE_BYTES),
    );
  } catch {
    throw new S3Error('InvalidToken', INVALID);
  }
  const session = parseSealed(new TextDecoder().decode(plaintext));
  if (session === undefined) throw new S3Error('InvalidToken', INVALID);
  if (now >= session.expiresAt) throw expiredToken(session.expiresAt);
  return {
    accessKeyId: session.accessKeyId,
    secretAccessKey: session.secretAccessKey,
    scopes: session.scopes,
    session: { roleId: session.roleId, subject: session.subject, expiresAt: session.expiresAt },
  };
}

function expiredToken(expiresAt: number): S3Error {
  return new S3Error('ExpiredToken', 'The provided token has expired.', { Expiration: new Date(expiresAt).toISOString() });
}

/**
 * How many opened sessions an unsealer keeps. A client sends the same token with every request of its
 * session, and opening one (AES-GCM through Web Crypto, then parsing and checking the JSON) cost a small GET
 * a third of its CPU; a token is a few hundred bytes, so the cache stays well under a megabyte.
 */
export const OPENED_SESSIONS = 1024;

/**
 * The SessionUnsealer the Gateway uses for `x-amz-security-token`, over one imported key. It keeps the
 * sessions it opened, by token: the same token always opens to the same credential (the tag authenticates
 * every byte), so only the expiry is checked again. Tokens that do not open are not kept. When full, the
 * session opened first is dropped, to be opened again on its next use.
 */
export function sessionUnsealer(rawKey: Uint8Array): SessionUnsealer {
  const key = importSessionKey(rawKey);
  const opened = new Map<string, SessionCredential>();
  return async (token, now) => {
    const known = opened.get(token);
    if (known !== undefined) {
      if (now < known.session.expiresAt) return known;
      opened.delete(token);
      throw expiredToken(known.session.expiresAt);
    }
    const credential = await unsealSession(await key, token, now);
    if (opened.size >= OPENED_SESSIONS) opened.delete(opened.keys().next().value as string);
    opened.set(token, credential);
    return credential;
  };
}

/** Only ever fed what we sealed ourselves, but checked anyway: a wrong shape is a bug, not a grant. */
function parseSealed(json: string): SealedSession | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const s = value as Record<string, unknown>;
  const strings = ['accessKeyId', 'secretAccessKey', 'roleId', 'subject'].every((k) => typeof s[k] === 'string');
  if (s.v !== 1 || !strings || typeof s.expiresAt !== 'number' || !Array.isArray(s.scopes)) return undefined;
  if (!s.scopes.every(isScope)) return undefined;
  return value as SealedSession;
}

function isScope(value: unknown): value is Scope {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  return (
    typeof s.bucket === 'string' &&
    Array.isArray(s.prefixes) &&
    s.prefixes.every((p) => typeof p === 'string') &&
    Array.isArray(s.actions) &&
    s.actions.every((a) => (ACTIONS as readonly string[]).includes(a as Action))
  );
}
