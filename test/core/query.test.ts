import { Query } from '../../functions/core/query';

describe('Query', () => {
  it('is empty for an empty query string', () => {
    const q = new Query('');
    expect([...q.names()]).toEqual([]);
    expect(q.has('')).toBe(false);
  });

  it('keeps the raw string as sent', () => {
    expect(new Query('a=%20&b').raw).toBe('a=%20&b');
  });

  it('reads a name without "=" as present with an empty value', () => {
    const q = new Query('uploads');
    expect(q.has('uploads')).toBe(true);
    expect(q.get('uploads')).toBe('');
  });

  it('reads a name with "=" and nothing after it as present with an empty value', () => {
    expect(new Query('versionId=').get('versionId')).toBe('');
  });

  it('reports an absent name as absent', () => {
    const q = new Query('a=1');
    expect(q.has('b')).toBe(false);
    expect(q.get('b')).toBeUndefined();
  });

  it('percent-decodes names and values', () => {
    const q = new Query('prefix=a%2Fb%20c&x%2Did=GetObject');
    expect(q.get('prefix')).toBe('a/b c');
    expect(q.get('x-id')).toBe('GetObject');
  });

  it('leaves a plus sign a plus', () => {
    expect(new Query('prefix=a+b').get('prefix')).toBe('a+b');
  });

  it('splits on the first "=" only', () => {
    expect(new Query('token=abc==').get('token')).toBe('abc==');
  });

  it('keeps the first occurrence of a repeated name', () => {
    expect(new Query('prefix=first&prefix=second').get('prefix')).toBe('first');
  });

  it('skips empty parts', () => {
    expect([...new Query('&&a=1&&b=2&').names()]).toEqual(['a', 'b']);
  });

  it('keeps a malformed escape as sent instead of failing', () => {
    const q = new Query('prefix=100%&bad%zz=1');
    expect(q.get('prefix')).toBe('100%');
    expect(q.get('bad%zz')).toBe('1');
  });

  it('lists names in the order they were sent', () => {
    expect([...new Query('list-type=2&prefix=p&delimiter=%2F').names()]).toEqual(['list-type', 'prefix', 'delimiter']);
  });

  it('is case-sensitive, as S3 parameter names are', () => {
    const q = new Query('versionid=v1');
    expect(q.has('versionId')).toBe(false);
    expect(q.get('versionid')).toBe('v1');
  });
});
