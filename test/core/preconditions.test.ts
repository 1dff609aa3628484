import { evaluatePreconditions, preconditionResponse } from '../../functions/core/preconditions';

/** A read's preconditions, evaluated as S3 evaluates them, for an object of ETAG last modified at LAST_MODIFIED. */
const ETAG = '"abc"';
const LAST_MODIFIED = 'Sat, 28 Nov 2026 10:00:00 GMT';
const evaluate = (headers: Record<string, string>): number | undefined => evaluatePreconditions(headers, ETAG, LAST_MODIFIED);

describe('If-Match and If-None-Match', () => {
  it.each([
    [{ 'if-match': '"abc"' }, undefined],
    [{ 'if-match': '"other"' }, 412],
    [{ 'if-match': '*' }, undefined],
    [{ 'if-match': '"other", "abc"' }, undefined],
    [{ 'if-match': 'W/"abc"' }, 412],
    [{ 'if-none-match': '"abc"' }, 304],
    [{ 'if-none-match': 'W/"abc"' }, 304],
    [{ 'if-none-match': '*' }, 304],
    [{ 'if-none-match': '"other", "abc"' }, 304],
    [{ 'if-none-match': '"other"' }, undefined],
  ])('%j: %s (If-Match compares strongly, If-None-Match weakly; both take * and lists)', (headers, result) => {
    expect(evaluate(headers)).toBe(result);
  });
});

describe('dates, compared in whole seconds', () => {
  it.each([
    [{ 'if-modified-since': LAST_MODIFIED }, 304],
    [{ 'if-modified-since': 'Sat, 28 Nov 2026 09:59:59 GMT' }, undefined],
    [{ 'if-unmodified-since': LAST_MODIFIED }, undefined],
    [{ 'if-unmodified-since': 'Sat, 28 Nov 2026 09:59:59 GMT' }, 412],
    [{ 'if-modified-since': 'yesterday' }, undefined],
    [{ 'if-unmodified-since': 'not a date' }, undefined],
  ])('%j: %s (what is no date is ignored)', (headers, result) => {
    expect(evaluate(headers)).toBe(result);
  });
});

describe("RFC 9110's order", () => {
  it('If-Match decides instead of If-Unmodified-Since', () => {
    expect(evaluate({ 'if-match': ETAG, 'if-unmodified-since': 'Sat, 28 Nov 2026 09:00:00 GMT' })).toBeUndefined();
  });

  it('If-None-Match decides instead of If-Modified-Since', () => {
    expect(evaluate({ 'if-none-match': '"other"', 'if-modified-since': LAST_MODIFIED })).toBeUndefined();
  });

  it('a failed If-Match or If-Unmodified-Since is 412 before any 304', () => {
    expect(evaluate({ 'if-match': '"other"', 'if-none-match': ETAG })).toBe(412);
    expect(evaluate({ 'if-unmodified-since': 'Sat, 28 Nov 2026 09:00:00 GMT', 'if-modified-since': LAST_MODIFIED })).toBe(412);
  });
});

describe('the answer', () => {
  it('304 carries the validators and no body; 412 is PreconditionFailed', () => {
    const notModified = preconditionResponse(304, 'GET', 'R', '/k', { etag: ETAG, 'last-modified': LAST_MODIFIED });
    expect(notModified).toMatchObject({ status: 304, headers: { etag: ETAG, 'last-modified': LAST_MODIFIED } });
    const failed = preconditionResponse(412, 'GET', 'R', '/k', {});
    expect(failed.status).toBe(412);
    expect(String(failed.body)).toContain('<Code>PreconditionFailed</Code>');
  });
});
