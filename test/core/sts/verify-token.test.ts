import type { Role } from '../../../functions/core/config/types';
import { StsError } from '../../../functions/core/sts/errors';
import { JwksCache } from '../../../functions/core/sts/jwks';
import { verifyWebIdentityToken } from '../../../functions/core/sts/verify-token';
import { ISSUER, memoryIssuer, type MemoryIssuer } from './memory-issuer';

const NOW = Date.UTC(2026, 5, 1, 12);

const ROLE: Role = {
  roleId: 'arn:aws:iam::000000000000:role/ci',
  name: 'ci',
  trustedIssuers: [ISSUER],
  requiredAudiences: ['sts.amazonaws.com'],
  subjectConditions: ['repo:acme/*'],
  maxSessionDurationSecs: 3600,
  scopes: [],
};

describe('verifyWebIdentityToken', () => {
  let issuer: MemoryIssuer;
  let now: number;
  let jwks: JwksCache;

  beforeEach(async () => {
    issuer = await memoryIssuer();
    now = NOW;
    jwks = new JwksCache(issuer.client, () => now);
  });

  async function refusal(token: string, role: Role = ROLE): Promise<StsError> {
    try {
      await verifyWebIdentityToken(token, role, jwks, now);
    } catch (err) {
      if (err instanceof StsError) return err;
      throw err;
    }
    throw new Error('the token was accepted');
  }

  it('accepts a GitHub-shaped RS256 token and returns its claims', async () => {
    const claims = await verifyWebIdentityToken(await issuer.mint({ at: NOW }), ROLE, jwks, now);
    expect(claims).toMatchObject({ iss: ISSUER, sub: 'repo:acme/widgets:ref:refs/heads/main', repository: 'acme/widgets' });
  });

  it.each<[string, () => Promise<string>, string, RegExp]>([
    ['alg none', () => issuer.mint({ at: NOW, signer: 'none' }), 'InvalidIdentityToken', /alg "none" is not accepted/],
    ['HS256 signed with the public key PEM', () => issuer.mint({ at: NOW, signer: 'hs256-public-key' }), 'InvalidIdentityToken', /alg "HS256" is not accepted/],
    ['a key not in the JWKS', () => issuer.mint({ at: NOW, signer: 'unknown' }), 'InvalidIdentityToken', /No key with kid "rotated-away"/],
    ['an untrusted issuer', () => issuer.mint({ at: NOW, issuer: 'https://evil.example' }), 'InvalidIdentityToken', /issuer "https:\/\/evil.example" is not trusted/],
    ['typ other than JWT', () => issuer.mint({ at: NOW, header: { typ: 'at+jwt' } }), 'InvalidIdentityToken', /typ "at\+jwt" is not JWT/],
    ['no exp', () => issuer.mint({ at: NOW, omitExp: true }), 'InvalidIdentityToken', /no exp claim/],
    ['expired beyond the skew', () => issuer.mint({ at: NOW - 400_000, expiresIn: 300 }), 'ExpiredTokenException', /expired/],
    ['nbf beyond the skew', () => issuer.mint({ at: NOW, notBefore: 61 }), 'InvalidIdentityToken', /not valid yet/],
    ['a tampered payload', async () => {
      const [h, , s] = (await issuer.mint({ at: NOW })).split('.');
      const payload = Buffer.from(JSON.stringify({ iss: ISSUER, sub: 'repo:acme/admin', exp: NOW / 1000 + 300 })).toString('base64url');
      return `${h}.${payload}.${s}`;
    }, 'InvalidIdentityToken', /signature does not verify/],
    ['not a JWT', async () => 'not-a-jwt', 'InvalidIdentityToken', /not a well-formed JWT/],
    ...['=', '==', ' ', '\n', '+', '/', '\u00e9'].map((extra): [string, () => Promise<string>, string, RegExp] => [
      `a genuine token with ${JSON.stringify(extra)} inserted in its signature`,
      async () => {
        const token = await issuer.mint({ at: NOW });
        return token.slice(0, -2) + extra + token.slice(-2);
      },
      'InvalidIdentityToken',
      /not a well-formed JWT/,
    ]),
  ])('refuses %s', async (_, token, code, message) => {
    const err = await refusal(await token());
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
  });

  it('allows 60 seconds of skew on exp and nbf', async () => {
    await expect(verifyWebIdentityToken(await issuer.mint({ at: NOW - 359_000, expiresIn: 300 }), ROLE, jwks, now)).resolves.toBeDefined();
    await expect(verifyWebIdentityToken(await issuer.mint({ at: NOW, notBefore: 59 }), ROLE, jwks, now)).resolves.toBeDefined();
  });

  it('never fetches keys for a forged algorithm or an untrusted issuer', async () => {
    await refusal(await issuer.mint({ at: NOW, signer: 'none' }));
    await refusal(await issuer.mint({ at: NOW, signer: 'hs256-public-key' }));
    await refusal(await issuer.mint({ at: NOW, issuer: 'https://evil.example' }));
    expect(issuer.requests).toEqual([]);
  });

  it('picks up a rotated key by refetching, but not more than once per interval', async () => {
    await verifyWebIdentityToken(await issuer.mint({ at: NOW }), ROLE, jwks, now);
    const rotated = await issuer.minter.rotate('next-2026');
    now += 30_000;
    await expect(verifyWebIdentityToken(await rotated({ issuer: ISSUER, at: now }), ROLE, jwks, now)).resolves.toBeDefined();
    expect(issuer.count('jwks')).toBe(2);
    await refusal(await issuer.mint({ at: now, signer: 'unknown' }));
    await refusal(await issuer.mint({ at: now, signer: 'unknown' }));
    expect(issuer.count('jwks')).toBe(2);
  });

  it('accepts a token without kid when one of several keys signed it', async () => {
    await issuer.minter.rotate('other');
    const token = await issuer.mint({ at: NOW, header: { kid: undefined } });
    await expect(verifyWebIdentityToken(token, ROLE, jwks, now)).resolves.toBeDefined();
  });

  describe('the issuer, matched once to the configured one', () => {
    /** The token with its signature replaced: junk that only a key lookup can refuse. */
    async function junk(iss: string): Promise<string> {
      const [h, p] = (await issuer.mint({ at: NOW, issuer: iss })).split('.');
      return `${h}.${p}.${Buffer.from('not the signature').toString('base64url')}`;
    }

    it('accepts the configured issuer followed by one slash, and reports the configured issuer as iss', async () => {
      const claims = await verifyWebIdentityToken(await issuer.mint({ at: NOW, issuer: `${ISSUER}/` }), ROLE, jwks, now);
      expect(claims.iss).toBe(ISSUER);
    });

    it.each([
      `${ISSUER}//`,
      `${ISSUER}/////`,
      'HTTPS://token.actions.example',
      'https://TOKEN.actions.example',
      'https://token.actions.example:443',
      'https://token.actions.example.',
      'https://token.actions.example%2F',
      'https://token%2Eactions.example',
      `${ISSUER}/.`,
      `${ISSUER}/?`,
      `${ISSUER}?x=1`,
      `${ISSUER}#x`,
      ` ${ISSUER}`,
      `${ISSUER}\n`,
      `${ISSUER}/\t`,
    ])('refuses %j as untrusted, fetching nothing', async (variant) => {
      const err = await refusal(await issuer.mint({ at: NOW, issuer: variant }));
      expect(err.code).toBe('InvalidIdentityToken');
      expect(err.message).toMatch(/is not trusted by role/);
      expect(issuer.requests).toEqual([]);
    });

    it('spends one discovery and one JWKS fetch on any number of junk tokens naming the issuer either way', async () => {
      for (let i = 0; i < 50; i++) {
        expect((await refusal(await junk(i % 2 === 0 ? ISSUER : `${ISSUER}/`))).message).toMatch(/signature does not verify/);
        await refusal(await junk(`${ISSUER}${'/'.repeat(i + 2)}`));
      }
      expect([issuer.count('discovery'), issuer.count('jwks')]).toEqual([1, 1]);
    });

    it('holds the refetch limit for unknown kids across both spellings', async () => {
      await verifyWebIdentityToken(await issuer.mint({ at: NOW }), ROLE, jwks, now);
      for (const iss of [ISSUER, `${ISSUER}/`, ISSUER, `${ISSUER}/`]) await refusal(await issuer.mint({ at: now, issuer: iss, signer: 'unknown' }));
      expect(issuer.count('jwks')).toBe(1);
      now += 30_000;
      for (const iss of [`${ISSUER}/`, ISSUER, `${ISSUER}/`, ISSUER]) await refusal(await issuer.mint({ at: now, issuer: iss, signer: 'unknown' }));
      expect(issuer.count('jwks')).toBe(2);
    });
  });

  it('reports an unreachable issuer as IDPCommunicationError', async () => {
    issuer.mode = 'down';
    expect((await refusal(await issuer.mint({ at: NOW }))).code).toBe('IDPCommunicationError');
  });
});
