import { compareKeys } from '../keys';
import type { Action, Scope } from '../config/types';

/**
 * Scope matching. Takes scopes that are already resolved (templates filled in for STS sessions), so long-lived
 * keys and temporary credentials share one matcher.
 */

/** A prefix that is empty or ends in `/` covers keys starting with it; `data` covers `data` and `data/…`, never `database`. */
export function prefixCovers(prefix: string, key: string): boolean {
  if (prefix === '' || prefix.endsWith('/')) return key.startsWith(prefix);
  return key === prefix || key.startsWith(prefix + '/');
}

function scopeCovers(scope: Scope, bucket: string, key: string): boolean {
  if (scope.bucket !== '*' && scope.bucket !== bucket) return false;
  // An empty bucket (a `{claim}` template that resolved to nothing) never grants anything.
  if (scope.bucket === '') return false;
  return scope.prefixes.length === 0 || scope.prefixes.some((p) => prefixCovers(p, key));
}

/**
 * Whether `scopes` allow `action` on `key` in `bucket`. For ListBucket the key is the listing's `prefix`.
 * `get_object_version` is granted only when listed explicitly.
 */
export function isAllowed(scopes: readonly Scope[], bucket: string, action: Action, key: string): boolean {
  return scopes.some((scope) => scope.actions.includes(action) && scopeCovers(scope, bucket, key));
}

/** Whether any scope grants `action` somewhere in `bucket` (the first stage of DeleteObjects). */
export function isAllowedSomewhere(scopes: readonly Scope[], bucket: string, action: Action): boolean {
  return scopes.some((s) => s.actions.includes(action) && s.bucket !== '' && (s.bucket === '*' || s.bucket === bucket));
}

/** Whether any scope names `bucket` (or `*`), whatever its actions and prefixes. */
export function holdsScopeOn(scopes: readonly Scope[], bucket: string): boolean {
  return scopes.some((s) => s.bucket !== '' && (s.bucket === '*' || s.bucket === bucket));
}

/**
 * A run of keys in key order: every key starting with `prefix`, or (`exact`) the key `prefix` alone. A grant
 * on `data` is the key `data` and the run `data/`, never `database/…`.
 */
export interface KeyRange {
  readonly prefix: string;
  readonly exact: boolean;
}

/**
 * The keys `action` is granted on in `bucket`, as disjoint ranges in key order (`[{ prefix: '' }]`: the
 * whole bucket). Only scopes for this bucket (or `*`) that hold this action count: a listing built from
 * these ranges never reaches a key another bucket's scope, or another action, was granted on.
 */
export function grantedRanges(scopes: readonly Scope[], bucket: string, action: Action): KeyRange[] {
  const ranges: KeyRange[] = [];
  for (const scope of scopes) {
    if (!scope.actions.includes(action) || scope.bucket === '' || (scope.bucket !== '*' && scope.bucket !== bucket)) continue;
    if (scope.prefixes.length === 0) return [{ prefix: '', exact: false }];
    for (const p of scope.prefixes) {
      if (p === '' || p.endsWith('/')) ranges.push({ prefix: p, exact: false });
      else ranges.push({ prefix: p, exact: true }, { prefix: `${p}/`, exact: false });
    }
  }
  ranges.sort((a, b) => compareKeys(a.prefix, b.prefix));
  const out: KeyRange[] = [];
  // A range sorts after every range holding it, so one pass drops the nested ones.
  for (const range of ranges) if (!out.some((o) => holds(o, range))) out.push(range);
  return out;
}

/**
 * `ranges` cut down to keys starting with `prefix`: those that lie under it, or `prefix` itself when it
 * lies inside one of them (the usual case: a listing authorized on its prefix).
 */
export function rangesUnder(ranges: readonly KeyRange[], prefix: string): KeyRange[] {
  const out: KeyRange[] = [];
  for (const range of ranges) {
    if (!range.exact && prefix.startsWith(range.prefix)) return [{ prefix, exact: false }];
    if (range.prefix.startsWith(prefix)) out.push(range);
  }
  return out;
}

function holds(outer: KeyRange, inner: KeyRange): boolean {
  return outer.exact ? inner.exact && inner.prefix === outer.prefix : inner.prefix.startsWith(outer.prefix);
}
