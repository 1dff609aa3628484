import { ConfigError } from '../../functions/core/config/parse';
import { DEFAULT_DRAIN_TIMEOUT_MS, drainTimeoutMs } from '../../functions/runtime/node-drain';

describe('GATEWAY_DRAIN_TIMEOUT_MS', () => {
  it('GIVEN nothing set THEN 25 s: under the 30 s Kubernetes and ECS wait before SIGKILL', () => {
    expect(DEFAULT_DRAIN_TIMEOUT_MS).toBe(25_000);
    expect(drainTimeoutMs({})).toBe(25_000);
    expect(drainTimeoutMs({ GATEWAY_DRAIN_TIMEOUT_MS: '' })).toBe(25_000);
  });

  it.each([
    ['0', 0],
    ['90000', 90_000],
    ['3600000', 3_600_000],
  ])('GIVEN %p THEN %p ms', (value, ms) => {
    expect(drainTimeoutMs({ GATEWAY_DRAIN_TIMEOUT_MS: value })).toBe(ms);
  });

  it.each(['soon', '-1', '2.5', '1e4', ' 100', '3600001', '99999999999999999999'])('GIVEN %p THEN the start-up is refused, naming the variable and the range', (value) => {
    expect(() => drainTimeoutMs({ GATEWAY_DRAIN_TIMEOUT_MS: value })).toThrow(ConfigError);
    expect(() => drainTimeoutMs({ GATEWAY_DRAIN_TIMEOUT_MS: value })).toThrow(`GATEWAY_DRAIN_TIMEOUT_MS must be a whole number of milliseconds from 0 to 3600000 (got "${value}")`);
  });
});
