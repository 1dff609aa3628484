import { copySourceRange, invalidRange, parseRange, rangeHeader, resolveRange, unsatisfiedRange } from '../../functions/core/range';

describe('a Range header as S3 reads it', () => {
  it.each([
    ['bytes=0-9', { first: 0, last: 9 }],
    ['bytes=10-', { first: 10 }],
    ['bytes=-5', { suffix: 5 }],
    ['bytes=-0', { suffix: 0 }],
    ['BYTES=0-9', { first: 0, last: 9 }],
    ['bytes= 0-9 ', { first: 0, last: 9 }],
    ['bytes=0-9,', { first: 0, last: 9 }],
    ['bytes=00-09', { first: 0, last: 9 }],
    ['bytes=5-5', { first: 5, last: 5 }],
  ])('%j is one range', (header, range) => {
    expect(parseRange(header)).toEqual(range);
  });

  it.each(['', 'bytes', 'bytes=', 'bytes=-', 'bytes=a-b', 'bytes 0-9', 'items=0-9', 'bytes=9-0', 'bytes=0-1,3-4', 'bytes=1e2-200', 'bytes=+1-5', 'bytes=0x10-20', 'bytes=-+5', 'bytes=0-9-'])(
    '%j is ignored, as S3 ignores it: the whole object',
    (header) => {
      expect(parseRange(header)).toBeUndefined();
    },
  );

  it('is absent without a header', () => {
    expect(parseRange(undefined)).toBeUndefined();
  });

  it('goes to a backend in one form', () => {
    expect(['bytes= 0-9', 'bytes=10-', 'bytes=-5'].map((h) => rangeHeader(parseRange(h)!))).toEqual(['bytes=0-9', 'bytes=10-', 'bytes=-5']);
  });
});

describe('the bytes a range selects', () => {
  it.each([
    [{ first: 0, last: 9 }, 1000, { first: 0, last: 9 }],
    [{ first: 990, last: 2000 }, 1000, { first: 990, last: 999 }],
    [{ first: 999 }, 1000, { first: 999, last: 999 }],
    [{ suffix: 5 }, 1000, { first: 995, last: 999 }],
    [{ suffix: 5000 }, 1000, { first: 0, last: 999 }],
  ])('%j of %d bytes: %j', (range, size, bytes) => {
    expect(resolveRange(range, size)).toEqual(bytes);
  });

  it.each([
    [{ first: 1000 }, 1000],
    [{ first: 1e20 }, 1000],
    [{ suffix: 0 }, 1000],
    [{ first: 0 }, 0],
    [{ suffix: 5 }, 0],
  ])('%j of %d bytes: none, which S3 answers with 416 InvalidRange', (range, size) => {
    expect(resolveRange(range, size)).toBeUndefined();
    expect(invalidRange(range, size)).toMatchObject({ code: 'InvalidRange', status: 416, detail: { ActualObjectSize: String(size) } });
  });
});

describe('a store that answered an unsatisfiable range as if it were satisfiable', () => {
  const headers = (entries: Record<string, string>): Headers => new Headers(entries);

  it('whole (200), as Azurite does: 416', () => {
    expect(unsatisfiedRange({ first: 1002 }, 200, headers({ 'content-length': '1000' }))?.code).toBe('InvalidRange');
  });

  it('with an empty part (206 bytes 1000-999/1000), as the GCS emulator does: 416', () => {
    expect(unsatisfiedRange({ first: 1000 }, 206, headers({ 'content-range': 'bytes 1000-999/1000' }))?.code).toBe('InvalidRange');
  });

  it('whole for `bytes=-0`, as RGW does: 416', () => {
    expect(unsatisfiedRange({ suffix: 0 }, 206, headers({ 'content-range': 'bytes 0-999/1000' }))?.code).toBe('InvalidRange');
  });

  it('leaves alone a part of a satisfiable range, any other status, a read without a range, or an answer without a length', () => {
    expect(unsatisfiedRange({ first: 0, last: 9 }, 206, headers({ 'content-range': 'bytes 0-9/1000' }))).toBeUndefined();
    expect(unsatisfiedRange({ first: 2000 }, 304, headers({}))).toBeUndefined();
    expect(unsatisfiedRange(undefined, 200, headers({ 'content-length': '0' }))).toBeUndefined();
    expect(unsatisfiedRange({ first: 5 }, 200, headers({}))).toBeUndefined();
  });
});

describe('UploadPartCopy\'s x-amz-copy-source-range as S3 takes it', () => {
  it('GIVEN bytes=first-last within the source THEN those bytes; GIVEN none THEN the whole source', () => {
    expect(copySourceRange('bytes=0-9', 10)).toEqual({ first: 0, last: 9 });
    expect(copySourceRange('bytes=5-5', 10)).toEqual({ first: 5, last: 5 });
    expect(copySourceRange(undefined, 10)).toEqual({ first: 0, last: 9 });
  });

  it('GIVEN any other form THEN 400 InvalidArgument naming the header (a GET would ignore it)', () => {
    for (const header of ['0-9', 'bytes=0-', 'bytes=-5', 'bytes=0-1,3-4', 'bytes= 0-1', 'Bytes=0-1', 'bytes=a-b', '']) {
      expect(() => copySourceRange(header, 10)).toThrow(expect.objectContaining({ code: 'InvalidArgument', status: 400, detail: { ArgumentName: 'x-amz-copy-source-range', ArgumentValue: header } }));
    }
  });

  it('GIVEN a range past the source\'s end or reversed THEN 416 InvalidRange (a GET would shorten it)', () => {
    for (const header of ['bytes=0-10', 'bytes=10-12', 'bytes=3-2']) {
      expect(() => copySourceRange(header, 10)).toThrow(expect.objectContaining({ code: 'InvalidRange', status: 416 }));
    }
  });
});
