import { formatAmzDate } from '../../../functions/core/sigv4/dates';

describe('formatAmzDate', () => {
  it('writes ISO 8601 basic, to the second', () => {
    expect(formatAmzDate(Date.UTC(2013, 4, 24))).toBe('20130524T000000Z');
    expect(formatAmzDate(Date.UTC(2026, 10, 27, 23, 59, 59, 999))).toBe('20261127T235959Z');
  });

  it('GIVEN times within one second and across seconds THEN each gets its own second, whatever came before', () => {
    const base = Date.UTC(2026, 10, 27, 12, 0, 0);
    expect([base + 999, base, base + 1000, base - 1, base + 1000].map(formatAmzDate)).toEqual([
      '20261127T120000Z',
      '20261127T120000Z',
      '20261127T120001Z',
      '20261127T115959Z',
      '20261127T120001Z',
    ]);
  });
});
