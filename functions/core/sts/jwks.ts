import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { BackendClient } from '../http';
import { readBounded } from '../streams';
import { StsError, quote } from './errors';

/**
 * Issuers' signing keys, found through OpenID discovery (`<issuer>/.well-known/openid-configuration` →
 * `jwks_uri`) and kept per Gateway instance, so per process on the native server and per cold start on
 * Lambda. Both documents are fetched over https only. Successes are kept for `ttlMs`; failures for
 * `negativeTtlMs`, so a broken or unreachable issuer is not hammered by every request. A token naming an
 * unknown `kid` may force one early refetch (key rotation), at most once per `minRefetchIntervalMs` per
 * issuer, so a stream of made-up kids cannot turn the gateway into a load generator. One fetch per issuer is
 * in flight at a time; concurrent callers share it.
 *
 * Entries are keyed by the issuer exactly as configured (`matchIssuer` maps a token's `iss` to it), and
 * only the configured issuers (`issuers`) are ever fetched, so no token can add a key to the cache: tokens
 * naming any other issuer cost no fetch and leave no entry. The cache is bounded all the same, in entries
 * and in bytes of JWKS held, dropping the least recently used issuer first.
 */
export interface JwksCacheOptions {
  /** How long fetched keys are used without asking again. @default 600000 (10 minutes) */
  readonly ttlMs?: number;
  /** How long a failed discovery or JWKS fetch is remembered. @default 15000 */
  readonly negativeTtlMs?: number;
  /** Shortest interval between two fetches of one issuer's keys. @default 30000 */
  readonly minRefetchIntervalMs?: number;
  /** Time allowed for each of the two fetches. @default 5000 */
  readonly timeoutMs?: number;
  /** Largest discovery document or JWKS read. @default 262144 */
  readonly maxDocumentBytes?: number;
  /**
   * The only issuers whose keys are fetched (the roles' `trusted_oidc_issuers`); any other is refused as
   * untrusted without a fetch or an entry. @default any https issuer
   */
  readonly issuers?: Iterable<string>;
  /** Most issuers held at once. @default 100, or the number of `issuers` when that is more */
  readonly maxEntries?: number;
  /**
   * Most bytes of JWKS documents held at once, summed over issuers. One document may exceed it on its own
   * (it is bounded by `maxDocumentBytes`); then it is the only one held. @default 4194304 (4 MiB)
   */
  readonly maxBytes?: number;
}

const DEFAULT_MAX_ENTRIES = 100;
const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/** An issuer's verified-to-be-well-formed key set, and jose's key selector over it (which caches imports). */
export interface IssuerKeys {
  readonly jwks: JSONWebKeySet;
  readonly getKey: JWTVerifyGetKey;
}

interface Entry {
  /** When the last fetch (success or failure) finished. */
  fetchedAt: number;
  expiresAt: number;
  keys?: IssuerKeys;
  /** Size of the JWKS document `keys` came from (0 without keys), counted against `maxBytes`. */
  bytes: number;
  error?: StsError;
  inflight?: Promise<IssuerKeys>;
}

/** What the cache holds now. */
export interface JwksCacheUsage {
  readonly entries: number;
  readonly bytes: number;
}

/**
 * The configured issuer a token's `iss` names, or undefined when it names none. Configured issuers are in
 * canonical form (the configuration strips their trailing slashes); `iss` must be one of them exactly, or one
 * of them followed by a single `/` (issuers such as Auth0 put one there). Nothing else is normalized: a
 * different case of scheme or host, an explicit port, percent-encoding, a query, a fragment, whitespace or
 * more slashes each make another, untrusted issuer, as AWS STS compares `iss` with the provider URL as a
 * string.
 *
 * @example matchIssuer(['https://token.actions.githubusercontent.com'], 'https://token.actions.githubusercontent.com/') // 'https://token.actions.githubusercontent.com'
 */
export function matchIssuer(configured: readonly string[], iss: string): string | undefined {
  return configured.find((issuer) => iss === issuer || iss === `${issuer}/`);
}

export class JwksCache {
  /** In order of last use, least recent first. */
  private readonly entries = new Map<string, Entry>();
  private readonly issuers?: ReadonlySet<string>;
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;
  private readonly minRefetchIntervalMs: number;
  private readonly timeoutMs: number;
  private readonly maxDocumentBytes: number;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private bytes = 0;

  /**
   * @param client Executes the https GETs (node:http on Node; the core never uses global fetch).
   * @param now Milliseconds since the epoch.
   */
  constructor(
    private readonly client: BackendClient,
    private readonly now: () => number,
    options: JwksCacheOptions = {},
  ) {
    this.issuers = options.issuers === undefined ? undefined : new Set(options.issuers);
    this.ttlMs = options.ttlMs ?? 600_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 15_000;
    this.minRefetchIntervalMs = options.minRefetchIntervalMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.maxDocumentBytes = options.maxDocumentBytes ?? 256 * 1024;
    this.maxEntries = Math.max(1, options.maxEntries ?? Math.max(DEFAULT_MAX_ENTRIES, this.issuers?.size ?? 0));
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  /**
   * The issuer's keys, from the cache while fresh.
   *
   * @param issuer A configured issuer, as `matchIssuer` returned it (never a token's `iss` as sent).
   * @throws StsError `IDPCommunicationError` (unreachable, non-200) or `InvalidIdentityToken` (not one of
   *   `issuers`, not https, malformed documents, issuer mismatch), possibly remembered from a recent attempt.
   */
  async keys(issuer: string): Promise<IssuerKeys> {
    this.admit(issuer);
    const entry = this.use(issuer);
    if (entry?.inflight) return entry.inflight;
    if (entry && this.now() < entry.expiresAt) {
      if (entry.keys) return entry.keys;
      if (entry.error) throw entry.error;
    }
    return this.fetch(issuer);
  }

  /**
   * Fetches the keys again after a token named a `kid` the cached set lacks; undefined when the issuer was
   * fetched too recently to ask again (the caller then refuses the token).
   */
  async refresh(issuer: string): Promise<IssuerKeys | undefined> {
    this.admit(issuer);
    const entry = this.use(issuer);
    if (entry?.inflight) return entry.inflight;
    if (entry && this.now() - entry.fetchedAt < this.minRefetchIntervalMs) return undefined;
    return this.fetch(issuer);
  }

  /** How many issuers and how many bytes of JWKS the cache holds. */
  usage(): JwksCacheUsage {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /** Refuses an issuer outside the configured set before anything is fetched or stored for it. */
  private admit(issuer: string): void {
    if (this.issuers !== undefined && !this.issuers.has(issuer)) {
      throw new StsError('InvalidIdentityToken', `The issuer ${quote(issuer)} is not a trusted issuer`);
    }
  }

  /** The issuer's entry, marked as the most recently used. */
  private use(issuer: string): Entry | undefined {
    const entry = this.entries.get(issuer);
    if (entry) {
      this.entries.delete(issuer);
      this.entries.set(issuer, entry);
    }
    return entry;
  }

  private fetch(issuer: string): Promise<IssuerKeys> {
    const entry: Entry = this.entries.get(issuer) ?? { fetchedAt: 0, expiresAt: 0, bytes: 0 };
    const inflight = this.discover(issuer).then(
      ({ keys, bytes }) => {
        entry.inflight = undefined;
        this.hold(issuer, entry, { keys, bytes, error: undefined, fetchedAt: this.now(), expiresAt: this.now() + this.ttlMs });
        return keys;
      },
      (err: unknown) => {
        entry.inflight = undefined;
        const error = err instanceof StsError ? err : new StsError('IDPCommunicationError', `Could not fetch the keys of issuer ${quote(issuer)}`);
        // A failed refresh keeps serving the keys it had until they expire; only the error is new.
        const keep = entry.keys !== undefined && this.now() < entry.expiresAt;
        this.hold(issuer, entry, keep ? { error, fetchedAt: this.now() } : { error, fetchedAt: this.now(), keys: undefined, bytes: 0, expiresAt: this.now() + this.negativeTtlMs });
        throw error;
      },
    );
    entry.inflight = inflight;
    this.hold(issuer, entry, {});
    return inflight;
  }

  /** Stores `changes` into the issuer's entry, marks it most recently used, and evicts down to the bounds. */
  private hold(issuer: string, entry: Entry, changes: Partial<Entry>): void {
    const held = this.entries.get(issuer);
    if (held !== undefined) this.bytes -= held.bytes;
    Object.assign(entry, changes);
    this.entries.delete(issuer);
    this.entries.set(issuer, entry);
    this.bytes += entry.bytes;
    this.evict(issuer);
  }

  /**
   * Drops the least recently used entries until the cache is within `maxEntries` and `maxBytes`. Neither
   * `keep` (the entry just stored) nor an entry whose fetch is in flight is dropped: its callers share that
   * fetch, and its result is stored (and bounded) when it settles.
   */
  private evict(keep: string): void {
    for (const [issuer, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) return;
      if (issuer === keep || entry.inflight) continue;
      this.entries.delete(issuer);
      this.bytes -= entry.bytes;
    }
  }

  private async discover(issuer: string): Promise<{ keys: IssuerKeys; bytes: number }> {
    const discoveryUrl = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const { value: doc } = await this.getJson(httpsUrl(discoveryUrl, `The discovery document of issuer ${quote(issuer)}`), 'discovery document');
    if (typeof doc.issuer !== 'string' || matchIssuer([trimSlash(issuer)], doc.issuer) === undefined) {
      throw new StsError('InvalidIdentityToken', `The discovery document at ${quote(discoveryUrl)} names issuer ${quote(doc.issuer)}, not ${quote(issuer)}`);
    }
    if (typeof doc.jwks_uri !== 'string') {
      throw new StsError('InvalidIdentityToken', `The discovery document at ${quote(discoveryUrl)} has no jwks_uri`);
    }
    const jwksUrl = httpsUrl(doc.jwks_uri, `The jwks_uri of issuer ${quote(issuer)}`);
    const { value: jwks, bytes } = await this.getJson(jwksUrl, 'JWKS');
    if (!Array.isArray(jwks.keys) || !jwks.keys.every((k) => typeof k === 'object' && k !== null && !Array.isArray(k))) {
      throw new StsError('InvalidIdentityToken', `The JWKS at ${quote(jwksUrl)} has no keys array`);
    }
    const set = jwks as unknown as JSONWebKeySet;
    return { keys: { jwks: set, getKey: createLocalJWKSet(set) }, bytes };
  }

  /** GETs a JSON object over https, bounded in time and size; `bytes` is the document's length. */
  private async getJson(url: string, what: string): Promise<{ value: Record<string, unknown>; bytes: number }> {
    let response;
    try {
      response = await this.client({ method: 'GET', url, headers: { accept: 'application/json' } }, AbortSignal.timeout(this.timeoutMs));
    } catch {
      throw new StsError('IDPCommunicationError', `Could not reach the issuer's ${what} at ${quote(url)}`);
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new StsError('IDPCommunicationError', `The issuer's ${what} at ${quote(url)} answered HTTP ${response.status}`);
    }
    const bytes = await readBounded(response.body, this.maxDocumentBytes).catch(() => {
      throw new StsError('IDPCommunicationError', `Could not read the issuer's ${what} at ${quote(url)}`);
    });
    if (bytes === undefined) throw new StsError('InvalidIdentityToken', `The issuer's ${what} at ${quote(url)} is larger than ${this.maxDocumentBytes} bytes`);
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new StsError('InvalidIdentityToken', `The issuer's ${what} at ${quote(url)} is not JSON`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new StsError('InvalidIdentityToken', `The issuer's ${what} at ${quote(url)} is not a JSON object`);
    }
    return { value: value as Record<string, unknown>, bytes: bytes.byteLength };
  }
}

/** The URL normalized, when it is absolute https; anything else (http included) is refused. */
function httpsUrl(url: string, what: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StsError('InvalidIdentityToken', `${what} ${quote(url)} is not a URL`);
  }
  if (parsed.protocol !== 'https:') throw new StsError('InvalidIdentityToken', `${what} ${quote(url)} is not https; keys are fetched over https only`);
  return parsed.href;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
