import type { Role } from '../../../functions/core/config/types';
import { StsError } from '../../../functions/core/sts/errors';
import { acceptedAudience, acceptedSubject, globMatches } from '../../../functions/core/sts/trust-policy';
import { thrownBy } from '../../support/thrown';

const ROLE: Role = {
  roleId: 'arn:aws:iam::000000000000:role/ci',
  name: 'ci',
  trustedIssuers: ['https://token.actions.githubusercontent.com'],
  requiredAudiences: ['sts.amazonaws.com', 'https://github.com/acme'],
  subjectConditions: ['repo:acme/*:ref:refs/heads/main', 'repo:acme@1001/*:environment:prod'],
  maxSessionDurationSecs: 3600,
  scopes: [],
};

const refusal = (fn: () => unknown): StsError => thrownBy(StsError, fn);

describe('globMatches', () => {
  it.each<[string, string, boolean]>([
    ['repo:acme/*:ref:refs/heads/main', 'repo:acme/widgets:ref:refs/heads/main', true],
    ['repo:acme/*:ref:refs/heads/main', 'repo:acme/widgets:ref:refs/heads/main-evil', false],
    ['repo:acme/*:ref:refs/heads/main', 'repo:acme-evil/x:ref:refs/heads/main', false],
    ['repo:acme/*', 'repo:acme/a/b:c', true],
    ['*', '', true],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'aXbYbZc', true],
    ['a*b*c', 'acb', false],
    ['ab*ba', 'aba', false],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
    ['repo:acme/.*', 'repo:acme/x', false],
  ])('%s against %s is %s', (pattern, value, expected) => {
    expect(globMatches(pattern, value)).toBe(expected);
  });
});

describe('acceptedAudience', () => {
  it('accepts a string aud or any entry of an array aud that the role requires', () => {
    expect(acceptedAudience(ROLE, { aud: 'sts.amazonaws.com' })).toBe('sts.amazonaws.com');
    expect(acceptedAudience(ROLE, { aud: ['other', 'https://github.com/acme'] })).toBe('https://github.com/acme');
  });

  it('refuses another audience with AccessDenied naming both sides', () => {
    const err = refusal(() => acceptedAudience(ROLE, { aud: 'api://other' }));
    expect(err.code).toBe('AccessDenied');
    expect(err.message).toContain('"api://other"');
    expect(err.message).toContain('sts.amazonaws.com');
  });

  it('refuses a token without aud', () => {
    expect(refusal(() => acceptedAudience(ROLE, {})).message).toMatch(/no aud claim/);
  });

  it('accepts nothing when the role requires no audience', () => {
    const err = refusal(() => acceptedAudience({ ...ROLE, requiredAudiences: [] }, { aud: 'sts.amazonaws.com' }));
    expect(err.code).toBe('AccessDenied');
    expect(err.message).toMatch(/has no required_audiences/);
  });
});

describe('acceptedSubject', () => {
  it('accepts both GitHub subject forms when a condition matches', () => {
    expect(acceptedSubject(ROLE, { sub: 'repo:acme/widgets:ref:refs/heads/main' })).toBe('repo:acme/widgets:ref:refs/heads/main');
    expect(acceptedSubject(ROLE, { sub: 'repo:acme@1001/widgets@2002:environment:prod' })).toBe('repo:acme@1001/widgets@2002:environment:prod');
  });

  it('refuses a subject no condition matches with AccessDenied naming it', () => {
    const err = refusal(() => acceptedSubject(ROLE, { sub: 'repo:acme/widgets:pull_request' }));
    expect(err.code).toBe('AccessDenied');
    expect(err.message).toContain('"repo:acme/widgets:pull_request"');
  });

  it('accepts nothing when the role has no subject conditions', () => {
    expect(refusal(() => acceptedSubject({ ...ROLE, subjectConditions: [] }, { sub: 'x' })).message).toMatch(/no subject_conditions/);
  });

  it('refuses a token without sub as an invalid token', () => {
    expect(refusal(() => acceptedSubject(ROLE, { sub: undefined })).code).toBe('InvalidIdentityToken');
  });
});
