import { Query } from '../../../functions/core/query';
import { formParams, matchSts, type StsMatch } from '../../../functions/core/sts/routes';

function match(method: string, target: string, headers: Record<string, string> = {}): StsMatch | undefined {
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  return matchSts({ method, rawPath, headers: new Headers(headers) }, new Query(q < 0 ? '' : target.slice(q + 1)));
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', 'content-length': '300' };

describe('matchSts', () => {
  it.each([
    ['POST', '/?Action=AssumeRoleWithWebIdentity&RoleArn=r'],
    ['GET', '/?Action=AssumeRoleWithWebIdentity&RoleArn=r'],
    ['POST', '/.sts?Action=GetCallerIdentity'],
    ['GET', '/.sts/?Action=GetCallerIdentity'],
    ['GET', '/sts/?Action=GetCallerIdentity'],
    ['GET', '/.sts/?Action=AnythingAtAll'],
  ])('%s %s takes its parameters from the query', (method, target) => {
    expect(match(method, target)).toMatchObject({ source: 'query' });
  });

  it.each([
    ['/', false],
    ['/sts/', false],
    ['/sts', false],
    ['/.sts', true],
    ['/.sts/', true],
  ])('a small form POST to %s reads its parameters from the body', (path, dedicated) => {
    expect(match('POST', path, FORM)).toEqual({ source: 'form', dedicated });
  });

  it('collects a form of exactly 64 KiB, but not one byte more', () => {
    expect(match('POST', '/', { ...FORM, 'content-length': '65536' })).toEqual({ source: 'form', dedicated: false });
    expect(match('POST', '/', { ...FORM, 'content-length': '65537' })).toBeUndefined();
    expect(match('POST', '/.sts/', { ...FORM, 'content-length': '65537' })).toBeUndefined();
  });

  it('never collects a body without a declared length', () => {
    expect(match('POST', '/', { 'content-type': FORM['content-type'], 'transfer-encoding': 'chunked' })).toBeUndefined();
    expect(match('POST', '/', { 'content-type': FORM['content-type'] })).toBeUndefined();
  });

  it.each([
    ['GET', '/', {}],
    ['GET', '/sts/', {}],
    ['GET', '/sts/?list-type=2', {}],
    ['GET', '/?Action=ListBuckets', {}],
    ['POST', '/sts/?delete', FORM],
    ['POST', '/sts/key', FORM],
    ['POST', '/', { 'content-type': 'application/xml', 'content-length': '10' }],
    ['PUT', '/?Action=AssumeRoleWithWebIdentity', {}],
    ['POST', '/.sts/', {}],
  ])('leaves %s %s to S3', (method, target, headers) => {
    expect(match(method, target, headers)).toBeUndefined();
  });

  it('asks for a small body on a query call so the signature can cover it', () => {
    expect(match('POST', '/?Action=GetCallerIdentity', { 'content-length': '20' })).toMatchObject({ source: 'query', bodyBytes: 20 });
    expect(match('POST', '/?Action=GetCallerIdentity', { 'content-length': '0' })).toMatchObject({ source: 'query', bodyBytes: 0 });
  });
});

describe('formParams', () => {
  it('decodes form encoding (+ is a space) and keeps the first occurrence', () => {
    const params = formParams(new TextEncoder().encode('Action=AssumeRoleWithWebIdentity&RoleSessionName=a+b&RoleArn=arn%3Aaws%3Aiam%3A%3A0%3Arole%2Fci&Action=Other'));
    expect(Object.fromEntries(params)).toEqual({ Action: 'AssumeRoleWithWebIdentity', RoleSessionName: 'a b', RoleArn: 'arn:aws:iam::0:role/ci' });
  });
});
