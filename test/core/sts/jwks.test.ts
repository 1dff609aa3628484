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
