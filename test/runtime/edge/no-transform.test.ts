import { withNoTransform } from '../../../functions/runtime/edge/no-transform';

describe('withNoTransform', () => {
  it('marks a response that has no Cache-Control', () => {
    expect(withNoTransform({ 'content-type': 'text/plain' })).toEqual({ 'content-type': 'text/plain', 'cache-control': 'no-transform' });
  });

  it("adds to an object's own Cache-Control, whatever its name's case", () => {
    expect(withNoTransform({ 'Cache-Control': 'max-age=60' })).toEqual({ 'cache-control': 'max-age=60, no-transform' });
  });

  it('leaves one already marked as it is', () => {
    const headers = { 'cache-control': 'public, No-Transform' };
    expect(withNoTransform(headers)).toBe(headers);
  });
});
