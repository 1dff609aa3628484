/**
 * The SigV4 signing key, derived by four chained HMACs from the secret. It only changes with the day, so
 * verification keeps it, with its HMAC pads precomputed, and each request then costs one HMAC instead of five.
 */
import { hmac, importHmacKey, type HmacKey } from '../bytes';
import { SCOPE_TERMINATOR } from './string-to-sign';

/** Enough for every active key of a busy gateway on two days around midnight; old entries are dropped. */
const MAX_CACHED_KEYS = 256;

/** Least recently used first (Map keeps insertion order and a hit is re-inserted). */
const cache = new Map<string, HmacKey>();

function derive(secret: string, date: string, region: string, service: string): HmacKey {
  const kDate = hmac(`AWS4${secret}`, date);
  const kRegion = hmac(kDate, region);
  const kService = hmac(kRegion, service);
  return importHmacKey(hmac(kService, SCOPE_TERMINATOR));
}

/**
 * The signing key for a secret and credential scope, from the cache when it was derived before.
 *
 * @param date `YYYYMMDD`, the scope's date.
 * @example const key = signingKey(secret, '20130524', 'us-east-1', 's3'); hmac(key, stringToSign)
 */
export function signingKey(secret: string, date: string, region: string, service: string): HmacKey {
  for (const hit of recent) {
    if (hit !== undefined && hit.secret === secret && hit.date === date && hit.region === region && hit.service === service) return hit.key;
  }
  const key = cachedKey(secret, date, region, service);
  recent[next] = { secret, date, region, service, key };
  next = (next + 1) % recent.length;
  return key;
}

/**
 * The last few keys asked for, compared field by field before the cache is consulted: a request asks for two
 * (the client's, to verify, and the backend's, to sign), and building the cache's id, hashing it and moving
 * the entry to the back of the LRU cost ~3 µs of a small GET's CPU each time (profiled).
 */
interface Recent {
  readonly secret: string;
  readonly date: string;
  readonly region: string;
  readonly service: string;
  readonly key: HmacKey;
}
const recent: (Recent | undefined)[] = [undefined, undefined, undefined, undefined];
let next = 0;

function cachedKey(secret: string, date: string, region: string, service: string): HmacKey {
  // Date, region and service never contain a newline in a parsed scope, and the secret comes last, so two
  // different inputs cannot share an id unless the same secret is involved.
  const id = `${date}\n${region}\n${service}\n${secret}`;
  const cached = cache.get(id);
  if (cached !== undefined) {
    cache.delete(id);
    cache.set(id, cached);
    return cached;
  }
  const derived = derive(secret, date, region, service);
  if (cache.size >= MAX_CACHED_KEYS) cache.delete(cache.keys().next().value as string);
  cache.set(id, derived);
  return derived;
}
