import type { JWTPayload } from 'jose';
import type { Role } from '../config/types';
import { StsError, quote } from './errors';

/**
 * A role's trust policy over a token whose signature and times already verified: the audience and the
 * subject. Both refusals are AccessDenied (the token is genuine; the role does not accept it), and a role
 * without audiences or without subject conditions accepts nothing.
 */

/**
 * The `aud` value (string or array) that satisfies one of the role's `required_audiences`.
 *
 * @throws StsError `AccessDenied` naming the token's audiences and the role's.
 */
export function acceptedAudience(role: Role, claims: JWTPayload): string {
  if (role.requiredAudiences.length === 0) {
    throw new StsError('AccessDenied', `Role ${quote(role.roleId)} has no required_audiences, so it accepts no token`);
  }
  const aud = claims.aud;
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
  const match = audiences.find((a) => role.requiredAudiences.includes(a));
  if (match !== undefined) return match;
  const sent = audiences.length === 0 ? 'The token has no aud claim' : `The token's aud ${quote(audiences)}`;
  throw new StsError('AccessDenied', `${sent}; role ${quote(role.roleId)} requires one of ${quote(role.requiredAudiences)}`);
}

/**
 * The token's `sub`, when it matches one of the role's `subject_conditions` (`*` matches any run of
 * characters, `/` and `:` included).
 *
 * @throws StsError `InvalidIdentityToken` without a string `sub`; `AccessDenied` when no condition matches.
 */
export function acceptedSubject(role: Role, claims: JWTPayload): string {
  const sub = claims.sub;
  if (typeof sub !== 'string' || sub === '') throw new StsError('InvalidIdentityToken', 'The token has no sub claim');
  if (role.subjectConditions.length === 0) {
    throw new StsError('AccessDenied', `Role ${quote(role.roleId)} has no subject_conditions, so it accepts no subject`);
  }
  if (role.subjectConditions.some((pattern) => globMatches(pattern, sub))) return sub;
  throw new StsError(
    'AccessDenied',
    `The token's sub ${quote(sub)} matches none of role ${quote(role.roleId)}'s subject_conditions ${quote(role.subjectConditions)}`,
  );
}

/**
 * Whole-string glob match where `*` is the only wildcard; every other character is literal.
 *
 * @example globMatches('repo:acme/*:ref:refs/heads/main', 'repo:acme/widgets:ref:refs/heads/main') // true
 */
export function globMatches(pattern: string, value: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === value;
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (value.length < first.length + last.length || !value.startsWith(first) || !value.endsWith(last)) return false;
  // Greedy-free scan: each middle literal is taken at its earliest position after the previous one.
  let at = first.length;
  const end = value.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = value.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}
