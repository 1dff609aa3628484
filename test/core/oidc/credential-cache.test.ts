/**
 * The credential cache with a frozen clock and a fake exchange (pure logic): single-flight, refresh-ahead
 * while the old credential serves, never a credential about to expire, and failures that do not stick.
 */
import { CredentialCache, type TemporaryCredentials } from '../../../functions/core/oidc/credential-cache';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** An exchange the test settles by hand, counting its calls. */
class FakeExchange {
  calls = 0;
  private pending: Array<{ resolve: (c: TemporaryCredentials) => void; reject: (e: Error) => void }> = [];

  readonly fn = (): Promise<TemporaryCredentials> => {
    this.calls++;
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  };

  succeed(expiresAt: number, id = `KEY${this.calls}`): void {
    const next = this.pending.shift();
    if (!next) throw new Error('no exchange in flight');
    next.resolve({ accessKeyId: id, secretAccessKey: `secret-${id}`, sessionToken: `token-${id}`, expiresAt });
  }

  fail(message = 'token service down'): void {
    const next = this.pending.shift();
    if (!next) throw new Error('no exchange in flight');
    next.reject(new Error(message));
  }

  get inFlight(): number {
    return this.pending.length;
  }
}

/** Lets promise callbacks run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

let now: number;
let cache: CredentialCache;
let exchange: FakeExchange;

beforeEach(() => {
  now = Date.UTC(2030, 0, 1);
  cache = new CredentialCache({ now: () => now, refreshAheadMs: MINUTE, minRemainingMs: 15_000, retryAfterMs: 5_000 });
  exchange = new FakeExchange();
});

describe('on a cold cache', () => {
  it('makes one exchange for 50 concurrent callers and gives them all its credential', async () => {
    const callers = Array.from({ length: 50 }, () => cache.get('role|sub', exchange.fn));
    await settle();
    expect(exchange.calls).toBe(1);
    expect(cache.pending('role|sub')).toBe(true);
    exchange.succeed(now + HOUR);
    const results = await Promise.all(callers);
    expect(new Set(results.map((c) => c.accessKeyId))).toEqual(new Set(['KEY1']));
    expect(cache.pending('role|sub')).toBe(false);
  });

  it('keeps keys apart: another (role, subject) gets its own exchange', async () => {
    const a = cache.get('role|a', exchange.fn);
    const b = cache.get('role|b', exchange.fn);
    await settle();
    expect(exchange.calls).toBe(2);
    exchange.succeed(now + HOUR, 'A');
    exchange.succeed(now + HOUR, 'B');
    expect((await a).accessKeyId).toBe('A');
    expect((await b).accessKeyId).toBe('B');
  });
});

describe('while the credential is fresh', () => {
  it('serves it from the cache without exchanging', async () => {
    const first = cache.get('k', exchange.fn);
    await settle();
    exchange.succeed(now + HOUR);
    await first;
    now += HOUR - MINUTE - 1;
    expect((await cache.get('k', exchange.fn)).accessKeyId).toBe('KEY1');
    expect(exchange.calls).toBe(1);
  });
});

describe('within the refresh margin', () => {
  async function warm(expiresIn = HOUR): Promise<void> {
    const first = cache.get('k', exchange.fn);
    await settle();
    exchange.succeed(now + expiresIn);
    await first;
  }

  it('starts one renewal in the background and keeps serving the current credential until it lands', async () => {
    await warm();
    now += HOUR - MINUTE;
    const during = await Promise.all(Array.from({ length: 20 }, () => cache.get('k', exchange.fn)));
    expect(during.every((c) => c.accessKeyId === 'KEY1')).toBe(true);
    expect(exchange.calls).toBe(2);
    exchange.succeed(now + HOUR, 'KEY2');
    await settle();
    expect((await cache.get('k', exchange.fn)).accessKeyId).toBe('KEY2');
    expect(exchange.calls).toBe(2);
  });

  it('never hands out a credential with less than the minimum left: callers wait for the renewal', async () => {
    await warm();
    now += HOUR - 14_000;
    const waiting = cache.get('k', exchange.fn);
    let settled = false;
    void waiting.then(() => (settled = true));
    await settle();
    expect(settled).toBe(false);
    expect(exchange.calls).toBe(2);
    exchange.succeed(now + HOUR, 'KEY2');
    expect((await waiting).accessKeyId).toBe('KEY2');
  });

  it('lets waiting callers join a background renewal already in flight', async () => {
    await warm();
    now += HOUR - MINUTE;
    await cache.get('k', exchange.fn); // starts the renewal, served KEY1
    now += MINUTE - 10_000; // KEY1 now too close to expiry
    const waiting = cache.get('k', exchange.fn);
    await settle();
    expect(exchange.calls).toBe(2);
    exchange.succeed(now + HOUR, 'KEY2');
    expect((await waiting).accessKeyId).toBe('KEY2');
  });

  it('after a failed background renewal keeps serving, and tries again only after the retry delay', async () => {
    await warm();
    now += HOUR - MINUTE;
    await cache.get('k', exchange.fn);
    exchange.fail();
    await settle();
    now += 4_000;
    expect((await cache.get('k', exchange.fn)).accessKeyId).toBe('KEY1');
    expect(exchange.calls).toBe(2);
    now += 1_000;
    expect((await cache.get('k', exchange.fn)).accessKeyId).toBe('KEY1');
    expect(exchange.calls).toBe(3);
    exchange.succeed(now + HOUR, 'KEY3');
    await settle();
    expect((await cache.get('k', exchange.fn)).accessKeyId).toBe('KEY3');
  });
});

describe('a failed exchange', () => {
  it('fails every caller that waited for it, and does not poison the cache: the next call exchanges again', async () => {
    const callers = Array.from({ length: 5 }, () => cache.get('k', exchange.fn));
    await settle();
    exchange.fail('AccessDenied');
    for (const caller of callers) await expect(caller).rejects.toThrow('AccessDenied');
    expect(cache.pending('k')).toBe(false);
    const retry = cache.get('k', exchange.fn);
    await settle();
    expect(exchange.calls).toBe(2);
    exchange.succeed(now + HOUR);
    expect((await retry).accessKeyId).toBe('KEY2');
  });

  it('is not kept as the exchange in flight even when the exchange function throws synchronously', async () => {
    let calls = 0;
    const throwing = (): Promise<TemporaryCredentials> => {
      calls++;
      throw new Error('bad request');
    };
    await expect(cache.get('k', throwing)).rejects.toThrow('bad request');
    await expect(cache.get('k', throwing)).rejects.toThrow('bad request');
    expect(calls).toBe(2);
    expect(cache.pending('k')).toBe(false);
  });

  it('leaves an expired credential unused: callers wait for a fresh one', async () => {
    const first = cache.get('k', exchange.fn);
    await settle();
    exchange.succeed(now + HOUR);
    await first;
    now += 2 * HOUR;
    const next = cache.get('k', exchange.fn);
    await settle();
    exchange.fail();
    await expect(next).rejects.toThrow('token service down');
  });
});

describe('defaults', () => {
  it('renews 60 s before expiry', async () => {
    const defaults = new CredentialCache({ now: () => now });
    const first = defaults.get('k', exchange.fn);
    await settle();
    exchange.succeed(now + HOUR);
    await first;
    now += HOUR - 60_001;
    await defaults.get('k', exchange.fn);
    expect(exchange.calls).toBe(1);
    now += 1;
    await defaults.get('k', exchange.fn);
    expect(exchange.calls).toBe(2);
  });
});
