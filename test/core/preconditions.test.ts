import { S3Error } from '../../functions/core/errors';
import { bareTags, checkWriteIfMatch, checkWritePreconditions, evaluatePreconditions, preconditionResponse } from '../../functions/core/preconditions';

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
    [{ 'if-match': 'abc' }, undefined],
    [{ 'if-none-match': 'abc' }, 304],
    [{ 'if-none-match': 'W/abc' }, 304],
    [{ 'if-none-match': '"abc"' }, 304],
    [{ 'if-none-match': 'W/"abc"' }, 304],
    [{ 'if-none-match': '*' }, 304],
    [{ 'if-none-match': '"other", "abc"' }, 304],
    [{ 'if-none-match': '"other"' }, undefined],
  ])('%j: %s (If-Match compares strongly, If-None-Match weakly; both take * and lists, and tags quoted or bare)', (headers, result) => {
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

/** The code a write's precondition check throws, or 'passes'. */
function writeRefusal(check: () => void): string {
  try {
    check();
    return 'passes';
  } catch (err) {
    return err instanceof S3Error ? `${err.status} ${err.code}` : 'not an S3Error';
  }
}

describe('a write\'s preconditions (PutObject, CompleteMultipartUpload)', () => {
  it.each([
    [{}, 'passes'],
    [{ 'if-match': '"abc"' }, 'passes'],
    [{ 'if-none-match': '*' }, 'passes'],
    [{ 'if-none-match': ' * ' }, 'passes'],
    [{ 'if-none-match': '"abc"' }, '501 NotImplemented'],
    [{ 'if-none-match': '' }, '501 NotImplemented'],
    [{ 'if-none-match': '*', 'if-match': '"abc"' }, '501 NotImplemented'],
    [{ 'if-none-match': '*', 'if-match': '*' }, '501 NotImplemented'],
  ])('%j: %s (If-None-Match is taken only as *, and never beside If-Match)', (headers, result) => {
    expect(writeRefusal(() => checkWritePreconditions(new Headers(headers)))).toBe(result);
  });

  it('names the header S3 does not take in its 501', () => {
    expect(() => checkWritePreconditions(new Headers({ 'if-none-match': '"abc"' }))).toThrow(
      expect.objectContaining({ message: 'A header you provided implies functionality that is not implemented', detail: { Header: 'If-None-Match' } }),
    );
  });

  it.each([
    ['"abc"', '"abc"', 'passes'],
    ['abc', '"abc"', 'passes'],
    ['"abc"', 'abc', 'passes'],
    ['*', '"abc"', 'passes'],
    ['"other", "abc"', '"abc"', 'passes'],
    ['"other"', '"abc"', '412 PreconditionFailed'],
    ['W/"abc"', '"abc"', '412 PreconditionFailed'],
    ['"abc"', undefined, '404 NoSuchKey'],
    ['*', undefined, '404 NoSuchKey'],
  ])('If-Match %s over an object of ETag %s: %s (quoted or not; no object is NoSuchKey)', (ifMatch, etag, result) => {
    expect(writeRefusal(() => checkWriteIfMatch(ifMatch, etag, 'k'))).toBe(result);
  });
});

describe('bareTags: a write\'s If-Match as sent on, which S3 and the stores that match only bare tags both take', () => {
  it.each([
    ['"abc"', 'abc'],
    ['abc', 'abc'],
    ['*', '*'],
    ['"a", "b"', 'a, b'],
    ['W/"abc"', 'W/"abc"'],
    ['""', ''],
  ])('%s -> %s', (value, bare) => {
    expect(bareTags(value)).toBe(bare);
  });
});
