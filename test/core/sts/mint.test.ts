import { isAllowed } from '../../../functions/core/auth/scopes';
import type { Role, Scope } from '../../../functions/core/config/types';
import { mintCredential, newAccessKeyId, newSecretAccessKey, resolveScopes, resolveTemplate } from '../../../functions/core/sts/mint';
import { githubClaims } from '../../support/oidc-issuer';

const CLAIMS = githubClaims({ repository: 'acme/widgets' });

describe('resolveTemplate', () => {
  it('fills {claim} from string claims, once', () => {
    expect(resolveTemplate('ci/{repository}/{ref}/', CLAIMS)).toEqual({ value: 'ci/acme/widgets/refs/heads/main/', complete: true });
    expect(resolveTemplate('{x}', { x: '{repository}' })).toEqual({ value: '{repository}', complete: true });
  });

  it('resolves missing, non-string and empty claims to "" and says so', () => {
    expect(resolveTemplate('a/{missing}/', CLAIMS)).toEqual({ value: 'a//', complete: false });
    expect(resolveTemplate('{n}', { n: 5 })).toEqual({ value: '', complete: false });
    expect(resolveTemplate('{e}', { e: '' })).toEqual({ value: '', complete: false });
  });
});

describe('resolveScopes', () => {
  const read = ['get_object', 'list_bucket'] as const;
  const scope = (bucket: string, prefixes: string[]): Scope => ({ bucket, prefixes, actions: [...read] });

  it('resolves templated buckets and prefixes', () => {
    expect(resolveScopes([scope('ci-{repository_owner}', ['{repository}/'])], CLAIMS)).toEqual([scope('ci-acme', ['acme/widgets/'])]);
  });

  it('never turns a prefix of a missing claim into a whole-bucket grant', () => {
    const resolved = resolveScopes([scope('ci', ['{missing}'])], CLAIMS);
    expect(resolved).toEqual([]);
    expect(isAllowed(resolved, 'ci', 'get_object', 'anything')).toBe(false);
  });

  it('drops only the prefixes built from missing claims', () => {
    expect(resolveScopes([scope('ci', ['{missing}/', 'shared/', '{repository}/'])], CLAIMS)).toEqual([scope('ci', ['shared/', 'acme/widgets/'])]);
  });

  it('keeps an untemplated whole-bucket scope as configured', () => {
    expect(resolveScopes([scope('ci', [])], CLAIMS)).toEqual([scope('ci', [])]);
  });

  it('drops a scope whose bucket comes from a missing claim', () => {
    expect(resolveScopes([scope('{missing}', [])], CLAIMS)).toEqual([]);
    expect(resolveScopes([scope('ci-{missing}', [])], CLAIMS)).toEqual([]);
  });

  it('never lets a claim value become the every-bucket wildcard', () => {
    expect(resolveScopes([scope('{owner}', [])], { owner: '*' })).toEqual([]);
    expect(resolveScopes([scope('*', ['{repository}/'])], CLAIMS)).toEqual([scope('*', ['acme/widgets/'])]);
  });

  it('grants only inside the resolved prefix', () => {
    const resolved = resolveScopes([scope('ci', ['{repository}'])], CLAIMS);
    expect(isAllowed(resolved, 'ci', 'get_object', 'acme/widgets/build.txt')).toBe(true);
    expect(isAllowed(resolved, 'ci', 'get_object', 'acme/widgets-evil/build.txt')).toBe(false);
    expect(isAllowed(resolved, 'ci', 'get_object', 'acme/other/build.txt')).toBe(false);
  });
});

describe('credentials', () => {
  it('have the shapes of AWS temporary credentials and are fresh each time', () => {
    expect(newAccessKeyId()).toMatch(/^ASIA[A-Z2-7]{16}$/);
    expect(newSecretAccessKey()).toMatch(/^[A-Za-z0-9+/]{40}$/);
    expect(newAccessKeyId()).not.toBe(newAccessKeyId());
  });

  it('expire after the granted seconds and carry role and subject', () => {
    const role: Role = {
      roleId: 'ci', name: 'ci', trustedIssuers: [], requiredAudiences: [], subjectConditions: [], maxSessionDurationSecs: 3600,
      scopes: [{ bucket: 'ci', prefixes: ['{repository}/'], actions: ['get_object'] }],
    };
    const credential = mintCredential(role, 'repo:acme/widgets:ref:refs/heads/main', CLAIMS, 900, 1_000_000);
    expect(credential.session).toEqual({ roleId: 'ci', subject: 'repo:acme/widgets:ref:refs/heads/main', expiresAt: 1_000_000 + 900_000 });
    expect(credential.scopes).toEqual([{ bucket: 'ci', prefixes: ['acme/widgets/'], actions: ['get_object'] }]);
  });
});
