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
}

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
  error?: StsError;
  inflight?: Promise<IssuerKeys>;
}

export class JwksCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;
  private readonly minRefetchIntervalMs: number;
  private readonly timeoutMs: number;
  private readonly maxDocumentBytes: number;

  /**
   * @param client Executes the https GETs (node:http on Node; the core never uses global fetch).
   * @param now Milliseconds since the epoch.
   */
  constructor(
    private readonly client: BackendClient,
    private readonly now: () => number,
    options: JwksCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 600_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 15_000;
    this.minRefetchIntervalMs = options.minRefetchIntervalMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.maxDocumentBytes = options.maxDocumentBytes ?? 256 * 1024;
  }

  /**
   * The issuer's keys, from the cache while fresh.
   *
   * @param issuer The token's `iss`, already checked against the role's trusted issuers.
   * @throws StsError `IDPCommunicationError` (unreachable, non-200) or `InvalidIdentityToken` (not https,
   *   malformed documents, issuer mismatch), possibly remembered from a recent attempt.
   */
  async keys(issuer: string): Promise<IssuerKeys> {
    const entry = this.entries.get(issuer);
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
    const entry = this.entries.get(issuer);
    if (entry?.inflight) return entry.inflight;
    if (entry && this.now() - entry.fetchedAt < this.minRefetchIntervalMs) return undefined;
    return this.fetch(issuer);
  }

  private fetch(issuer: string): Promise<IssuerKeys> {
    const entry: Entry = this.entries.get(issuer) ?? { fetchedAt: 0, expiresAt: 0 };
    this.entries.set(issuer, entry);
    const inflight = this.discover(issuer).then(
      (keys) => {
        Object.assign(entry, { keys, error: undefined, inflight: undefined, fetchedAt: this.now(), expiresAt: this.now() + this.ttlMs });
        return keys;
      },
      (err: unknown) => {
        const error = err instanceof StsError ? err : new StsError('IDPCommunicationError', `Could not fetch the keys of issuer ${quote(issuer)}`);
        // A failed refresh keeps serving the keys it had until they expire; only the error is new.
        Object.assign(entry, { error, inflight: undefined, fetchedAt: this.now() });
        if (!entry.keys || this.now() >= entry.expiresAt) Object.assign(entry, { keys: undefined, expiresAt: this.now() + this.negativeTtlMs });
        throw error;
      },
    );
    entry.inflight = inflight;
    return inflight;
  }

  private async discover(issuer: string): Promise<IssuerKeys> {
    const discoveryUrl = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const doc = await this.getJson(httpsUrl(discoveryUrl, `The discovery document of issuer ${quote(issuer)}`), 'discovery document');
    if (typeof doc.issuer !== 'string' || trimSlash(doc.issuer) !== trimSlash(issuer)) {
      throw new StsError('InvalidIdentityToken', `The discovery document at ${quote(discoveryUrl)} names issuer ${quote(doc.issuer)}, not ${quote(issuer)}`);
    }
    if (typeof doc.jwks_uri !== 'string') {
      throw new StsError('InvalidIdentityToken', `The discovery document at ${quote(discoveryUrl)} has no jwks_uri`);
    }
    const jwksUrl = httpsUrl(doc.jwks_uri, `The jwks_uri of issuer ${quote(issuer)}`);
    const jwks = await this.getJson(jwksUrl, 'JWKS');
    if (!Array.isArray(jwks.keys) || !jwks.keys.every((k) => typeof k === 'object' && k !== null && !Array.isArray(k))) {
      throw new StsError('InvalidIdentityToken', `The JWKS at ${quote(jwksUrl)} has no keys array`);
    }
    const set = jwks as unknown as JSONWebKeySet;
    return { jwks: set, getKey: createLocalJWKSet(set) };
  }

  /** GETs a JSON object over https, bounded in time and size. */
  private async getJson(url: string, what: string): Promise<Record<string, unknown>> {
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
    const text = await readBoundedText(response.body, this.maxDocumentBytes).catch(() => {
      throw new StsError('IDPCommunicationError', `Could not read the issuer's ${what} at ${quote(url)}`);
    });
    if (text === undefined) throw new StsError('InvalidIdentityToken', `The issuer's ${what} at ${quote(url)} is larger than ${this.maxDocumentBytes} bytes`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new StsError('InvalidIdentityToken', `The issuer's ${what} at ${quote(url)} is not JSON`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new StsError('InvalidIdentityToken', `The issuer's ${what} at ${quote(url)} is not a JSON object`);
    }
    return value as Record<string, unknown>;
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

/** The body as UTF-8 text, or undefined when it exceeds `max` bytes. */
async function readBoundedText(body: ReadableStream<Uint8Array> | null, max: number): Promise<string | undefined> {
  const bytes = await readBounded(body, max);
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}
