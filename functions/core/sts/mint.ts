import type { JWTPayload } from 'jose';
import type { Role, Scope } from '../config/types';
import type { SessionCredential } from '../auth/identity';

/**
 * Minting temporary credentials: the role's scopes with `{claim}` templates filled in from the token, a
 * fresh access key id and secret, and the expiry.
 */

/** A resolved template, and whether every `{claim}` in it had a non-empty string value. */
interface Resolved {
  readonly value: string;
  readonly complete: boolean;
}

const TEMPLATE = /\{([^{}]*)\}/g;
const HAS_TEMPLATE = /\{[^{}]*\}/;

/**
 * Replaces each `{name}` with the token's string claim `name`. A missing, non-string or empty claim
 * resolves to "" and marks the result incomplete. Values are inserted once, never re-expanded.
 */
export function resolveTemplate(template: string, claims: JWTPayload): Resolved {
  let complete = true;
  const value = template.replace(TEMPLATE, (_, name: string) => {
    const claim = claims[name];
    if (typeof claim === 'string' && claim !== '') return claim;
    complete = false;
    return '';
  });
  return { value, complete };
}

/**
 * The role's scopes for one token. The spec says a missing claim "resolves to an empty string, which fails
 * authorization"; taken literally, `prefixes = ["{missing}"]` would become `[""]`, and an empty prefix covers
 * the whole bucket. So anything built from a missing claim is dropped here instead: an incomplete prefix is
 * removed, a scope that had prefixes and has none left is removed (an empty list would mean the whole
 * bucket), and so is a scope whose templated bucket is incomplete or resolves to something holding `*` (a
 * claim must never turn into the every-bucket wildcard).
 *
 * @example resolveScopes([{ bucket: 'ci', prefixes: ['{repository}/'], actions: ['get_object'] }], { repository: 'acme/app' })
 * // [{ bucket: 'ci', prefixes: ['acme/app/'], actions: ['get_object'] }]
 */
export function resolveScopes(scopes: readonly Scope[], claims: JWTPayload): Scope[] {
  const out: Scope[] = [];
  for (const scope of scopes) {
    const bucket = resolveTemplate(scope.bucket, claims);
    const templated = HAS_TEMPLATE.test(scope.bucket);
    if (!bucket.complete || bucket.value === '' || (templated && bucket.value.includes('*'))) continue;
    const prefixes = scope.prefixes.map((p) => resolveTemplate(p, claims)).filter((p) => p.complete).map((p) => p.value);
    if (scope.prefixes.length > 0 && prefixes.length === 0) continue;
    out.push({ bucket: bucket.value, prefixes, actions: [...scope.actions] });
  }
  return out;
}

/** Base32 as AWS access key ids use it. */
const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** `ASIA` and 16 base32 characters: the shape of an AWS temporary access key id. */
export function newAccessKeyId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  let id = 'ASIA';
  for (const b of bytes) id += KEY_ALPHABET[b & 31];
  return id;
}

/** 40 base64 characters (240 random bits), the shape of an AWS secret access key. */
export function newSecretAccessKey(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(30));
  return btoa(String.fromCharCode(...bytes));
}

/**
 * A temporary credential for `role`, valid for `seconds` from `now`.
 *
 * @param subject The token's verified `sub`.
 * @param claims All the token's claims, for the templates.
 */
export function mintCredential(role: Role, subject: string, claims: JWTPayload, seconds: number, now: number): SessionCredential {
  return {
    accessKeyId: newAccessKeyId(),
    secretAccessKey: newSecretAccessKey(),
    scopes: resolveScopes(role.scopes, claims),
    session: { roleId: role.roleId, subject, expiresAt: now + seconds * 1000 },
  };
}
