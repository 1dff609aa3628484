import { parseConfig } from '../../../functions/core/config/parse';
import { Gateway } from '../../../functions/core/gateway';
import { lazyGateway, newGateway } from '../../../functions/runtime/shared/lazy-gateway';

/** A runtime's gateway: built on first use, kept, and built again after a failure. */

describe('lazyGateway', () => {
  it('GIVEN several calls, some at once THEN the gateway is built once and every call gets it', async () => {
    const build = jest.fn(async (region: string) => ({ region }));
    const load = lazyGateway(build, () => undefined);
    const [a, b] = await Promise.all([load('eu'), load('eu')]);
    const c = await load('eu');
    expect(build).toHaveBeenCalledTimes(1);
    expect(build).toHaveBeenCalledWith('eu');
    expect(a).toBe(b);
    expect(c).toBe(a);
  });

  it('GIVEN a build that fails THEN the failure is reported once, reaches every waiting caller, and the next call builds again', async () => {
    const reported: unknown[] = [];
    const outage = new Error('SSM unreachable');
    let attempts = 0;
    const load = lazyGateway(async () => {
      attempts++;
      if (attempts === 1) throw outage;
      return 'gateway';
    }, (err) => reported.push(err));
    const first = await Promise.allSettled([load(), load()]);
    expect(first).toEqual([{ status: 'rejected', reason: outage }, { status: 'rejected', reason: outage }]);
    expect(reported).toEqual([outage]);
    await expect(load()).resolves.toBe('gateway');
    await expect(load()).resolves.toBe('gateway');
    expect(attempts).toBe(2);
  });
});

describe('newGateway', () => {
  const CONFIG = '[[buckets]]\nname = "b"\nbackend_type = "s3"\n[buckets.backend_options]\nendpoint = "http://127.0.0.1:9"\nbucket_name = "b"\n';
  const client = async (): Promise<never> => Promise.reject(new Error('no backend here'));

  it('GIVEN SESSION_TOKEN_KEY THEN the gateway seals with it and nothing is said', () => {
    const warnings: string[] = [];
    const gateway = newGateway(parseConfig(CONFIG, { SESSION_TOKEN_KEY: Buffer.alloc(32, 1).toString('base64') }), { client }, (line) => warnings.push(line));
    expect(gateway).toBeInstanceOf(Gateway);
    expect(warnings).toEqual([]);
  });

  it('GIVEN no SESSION_TOKEN_KEY THEN one warning says whose random key seals the tokens', () => {
    const warnings: string[] = [];
    newGateway(parseConfig(CONFIG, {}), { client }, (line) => warnings.push(line), 'isolate');
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0])).toMatchObject({ level: 'warn', message: expect.stringContaining('random per-isolate key') });
  });
});
