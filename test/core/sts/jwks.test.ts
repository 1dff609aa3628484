import { StsError } from '../../../functions/core/sts/errors';
import { JwksCache } from '../../../functions/core/sts/jwks';
import { ISSUER, memoryIssuer, type MemoryIssuer } from './memory-issuer';

async function refusal(promise: Promise<unknown>): Promise<StsError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof StsError) return err;
    throw err;
  }
  throw new Error('expected an StsError');
}

describe('JwksCache', () => {
  let issuer: MemoryIssuer;
  let now: number;
  let cache: JwksCache;

  beforeEach(async () => {
    issuer = await memoryIssuer();
    now = Date.UTC(2026, 0, 1);
    cache = new JwksCache(issuer.client, () => now, { ttlMs: 600_000, negativeTtlMs: 15_000, minRefetchIntervalMs: 30_000 });
  });

  it('finds the JWKS through the discovery document and caches it for the TTL', async () => {
    const keys = await cache.keys(ISSUER);
    expect(keys.jwks.keys.map((k) => k.kid)).toEqual(['primary-2026']);
    expect(issuer.requests).toEqual([`${ISSUER}/.well-known/openid-configuration`, `${ISSUER}/jwks`]);
    now += 599_000;
    await cache.keys(ISSUER);
    expect(issuer.requests).toHaveLength(2);
    now += 2_000;
    await cache.keys(ISSUER);
    expect(issuer.count('jwks')).toBe(2);
  });

  it('shares one fetch between concurrent callers', async () => {
    await Promise.all([cache.keys(ISSUER), cache.keys(ISSUER), cache.keys(ISSUER)]);
    expect(issuer.count('jwks')).toBe(1);
  });

  it('refetches for an unknown kid at most once per interval', async () => {
    await cache.keys(ISSUER);
    expect(await cache.refresh(ISSUER)).toBeUndefined();
    now += 30_000;
    expect(await cache.refresh(ISSUER)).toBeDefined();
    expect(await cache.refresh(ISSUER)).toBeUndefined();
    expect(issuer.count('jwks')).toBe(2);
  });

  it('remembers an unreachable issuer briefly, then asks again', async () => {
    issuer.mode = 'down';
    expect((await refusal(cache.keys(ISSUER))).code).toBe('IDPCommunicationError');
    issuer.mode = 'ok';
    expect((await refusal(cache.keys(ISSUER))).message).toMatch(/Could not reach the issuer's discovery document/);
    expect(issuer.requests).toHaveLength(1);
    now += 15_000;
    await cache.keys(ISSUER);
    expect(issuer.count('jwks')).toBe(1);
  });

  it('reports an issuer answering an error status as IDPCommunicationError', async () => {
    issuer.mode = 'error';
    const err = await refusal(cache.keys(ISSUER));
    expect(err.code).toBe('IDPCommunicationError');
    expect(err.message).toMatch(/answered HTTP 500/);
  });

  it('refuses an http:// jwks_uri without fetching it', async () => {
    issuer.mode = 'http-jwks';
    const err = await refusal(cache.keys(ISSUER));
    expect(err.code).toBe('InvalidIdentityToken');
    expect(err.message).toMatch(/jwks_uri .* is not https/);
    expect(issuer.count('jwks')).toBe(0);
  });

  it('refuses an http:// issuer without fetching its discovery document', async () => {
    const err = await refusal(cache.keys('http://token.actions.example'));
    expect(err.code).toBe('InvalidIdentityToken');
    expect(err.message).toMatch(/is not https/);
    expect(issuer.requests).toHaveLength(0);
  });

  it('refuses a discovery document that names another issuer', async () => {
    issuer.mode = 'other-issuer';
    expect((await refusal(cache.keys(ISSUER))).message).toMatch(/names issuer "https:\/\/elsewhere.example"/);
  });

  it('keeps serving cached keys when an early refresh fails', async () => {
    await cache.keys(ISSUER);
    now += 30_000;
    issuer.mode = 'down';
    expect((await refusal(cache.refresh(ISSUER))).code).toBe('IDPCommunicationError');
    expect((await cache.keys(ISSUER)).jwks.keys).toHaveLength(1);
  });
});

describe('JwksCache bounds', () => {
  const A = 'https://a.example';
  const B = 'https://b.example';
  const C = 'https://c.example';
  let issuer: MemoryIssuer;
  const now = Date.UTC(2026, 0, 1);

  beforeEach(async () => {
    issuer = await memoryIssuer();
    issuer.others.push(A, B, C);
  });

  const discoveries = (base: string): number => issuer.requests.filter((u) => u === `${base}/.well-known/openid-configuration`).length;

  it('holds at most maxEntries issuers, dropping the least recently used first', async () => {
    const cache = new JwksCache(issuer.client, () => now, { maxEntries: 2 });
    await cache.keys(A);
    await cache.keys(B);
    await cache.keys(A);
    await cache.keys(C);
    expect(cache.usage().entries).toBe(2);
    await cache.keys(A);
    await cache.keys(C);
    expect([discoveries(A), discoveries(C)]).toEqual([1, 1]);
    await cache.keys(B);
    expect(discoveries(B)).toBe(2);
    expect(cache.usage().entries).toBe(2);
  });

  it('holds at most maxBytes of JWKS documents, dropping the least recently used first', async () => {
    issuer.jwksPadding = 10_000;
    const cache = new JwksCache(issuer.client, () => now, { maxBytes: 25_000 });
    await cache.keys(A);
    const one = cache.usage().bytes;
    expect(one).toBeGreaterThan(10_000);
    await cache.keys(B);
    await cache.keys(C);
    expect(cache.usage()).toEqual({ entries: 2, bytes: 2 * one });
    await cache.keys(B);
    await cache.keys(C);
    expect([discoveries(A), discoveries(B), discoveries(C)]).toEqual([1, 1, 1]);
    await cache.keys(A);
    expect(discoveries(A)).toBe(2);
    expect(cache.usage().bytes).toBeLessThanOrEqual(25_000);
  });

  it('keeps a single JWKS larger than maxBytes, as the only one held', async () => {
    issuer.jwksPadding = 5_000;
    const cache = new JwksCache(issuer.client, () => now, { maxBytes: 1_000 });
    await cache.keys(A);
    await cache.keys(B);
    expect(cache.usage().entries).toBe(1);
    await cache.keys(B);
    expect(discoveries(B)).toBe(1);
  });

  it('counts remembered failures against maxEntries', async () => {
    const cache = new JwksCache(issuer.client, () => now, { maxEntries: 2 });
    for (const unreachable of ['https://x.example', 'https://y.example', 'https://z.example']) {
      expect((await refusal(cache.keys(unreachable))).code).toBe('IDPCommunicationError');
    }
    expect(cache.usage()).toEqual({ entries: 2, bytes: 0 });
  });

  it('never drops an issuer whose fetch is in flight: its callers still share one fetch', async () => {
    const cache = new JwksCache(issuer.client, () => now, { maxEntries: 1 });
    await Promise.all([cache.keys(A), cache.keys(B), cache.keys(A), cache.keys(C), cache.keys(B), cache.keys(A)]);
    expect([discoveries(A), discoveries(B), discoveries(C)]).toEqual([1, 1, 1]);
    expect(cache.usage().entries).toBe(1);
  });

  it('fetches only the configured issuers, exactly as configured: any other costs no fetch and no entry', async () => {
    const cache = new JwksCache(issuer.client, () => now, { issuers: [A] });
    for (const other of [B, `${A}/`, 'https://A.example', 'https://a.example:443']) {
      const err = await refusal(cache.keys(other));
      expect(err.code).toBe('InvalidIdentityToken');
      expect(err.message).toMatch(/is not a trusted issuer/);
      expect(await refusal(cache.refresh(other))).toMatchObject({ code: 'InvalidIdentityToken' });
    }
    expect(issuer.requests).toEqual([]);
    expect(cache.usage().entries).toBe(0);
    await cache.keys(A);
    expect(cache.usage().entries).toBe(1);
  });

  it('holds every configured issuer by default, however many are configured', async () => {
    const many = Array.from({ length: 150 }, (_, i) => `https://issuer-${i}.example`);
    issuer.others.push(...many);
    const cache = new JwksCache(issuer.client, () => now, { issuers: many });
    for (const base of many) await cache.keys(base);
    for (const base of many) await cache.keys(base);
    expect(cache.usage().entries).toBe(150);
    expect(issuer.count('discovery')).toBe(150);
  });
});
