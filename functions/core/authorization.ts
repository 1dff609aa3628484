import type { Action, Scope } from './config/types';

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
