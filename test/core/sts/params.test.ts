import type { Role } from '../../../functions/core/config/types';
import { StsError } from '../../../functions/core/sts/errors';
import { assumeRoleParams, sessionSeconds } from '../../../functions/core/sts/params';
import { thrownBy } from '../../support/thrown';

const BASE = { RoleArn: 'arn:aws:iam::000000000000:role/ci', WebIdentityToken: 'a.b.c' };
const ROLE = { maxSessionDurationSecs: 7200 } as Role;

function params(extra: Record<string, string | undefined>): Map<string, string> {
  return new Map(Object.entries({ ...BASE, ...extra }).filter((e): e is [string, string] => e[1] !== undefined));
}

const refusal = (fn: () => unknown): StsError => thrownBy(StsError, fn);

describe('assumeRoleParams', () => {
  it('reads RoleArn, WebIdentityToken and DurationSeconds', () => {
    expect(assumeRoleParams(params({ DurationSeconds: '900' }))).toEqual({ roleArn: BASE.RoleArn, webIdentityToken: 'a.b.c', durationSeconds: 900 });
    expect(assumeRoleParams(params({}))).toEqual({ roleArn: BASE.RoleArn, webIdentityToken: 'a.b.c' });
  });

  it('takes an empty Policy as none, and RoleSessionName as the SDKs send it', () => {
    expect(assumeRoleParams(params({ Policy: '', RoleSessionName: 'botocore-session-1' }))).toEqual({ roleArn: BASE.RoleArn, webIdentityToken: 'a.b.c' });
  });

  it.each<[string, Record<string, string | undefined>, RegExp]>([
    ['no RoleArn', { RoleArn: undefined }, /Missing required parameter RoleArn/],
    ['an empty WebIdentityToken', { WebIdentityToken: '' }, /Missing required parameter WebIdentityToken/],
    ['DurationSeconds 899', { DurationSeconds: '899' }, /DurationSeconds 899 is below the minimum of 900/],
    ['a fractional DurationSeconds', { DurationSeconds: '900.5' }, /whole number/],
    ['a negative DurationSeconds', { DurationSeconds: '-1' }, /whole number/],
    ['a token over 20000 characters', { WebIdentityToken: 'x'.repeat(20_001) }, /longer than 20000/],
    // Ignoring a session policy would grant more than the caller asked for: it is refused, never dropped.
    ['an inline session policy', { Policy: '{"Version":"2012-10-17","Statement":[]}' }, /Session policies \(Policy, PolicyArns\) are not supported/],
    ['a managed session policy', { 'PolicyArns.member.1.arn': 'arn:aws:iam::aws:policy/ReadOnlyAccess' }, /Session policies/],
  ])('refuses %s with ValidationError', (_, extra, message) => {
    const err = refusal(() => assumeRoleParams(params(extra)));
    expect(err.code).toBe('ValidationError');
    expect(err.status).toBe(400);
    expect(err.message).toMatch(message);
  });
});

describe('sessionSeconds', () => {
  it('defaults to 3600 and caps at the role maximum', () => {
    expect(sessionSeconds(undefined, ROLE)).toBe(3600);
    expect(sessionSeconds(1800, ROLE)).toBe(1800);
    expect(sessionSeconds(43200, ROLE)).toBe(7200);
    expect(sessionSeconds(undefined, { maxSessionDurationSecs: 900 } as Role)).toBe(900);
  });
});
