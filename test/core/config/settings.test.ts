/** The identity-provider settings read from the environment (the keys themselves are checked by the Gateway). */
import { parseConfig } from '../../../functions/core/config/parse';
import { problemsOf } from '../../support/config-problems';

const OIDC_BUCKET = (extra = ''): string =>
  `[[buckets]]\nname = "b"\nbackend_type = "s3"\n[buckets.backend_options]\nauth_type = "oidc"\noidc_role_arn = "arn:aws:iam::1:role/r"\n${extra}\n`;
const ENV = { OIDC_PROVIDER_KEY: 'pem', OIDC_PROVIDER_ISSUER: 'https://gw.example.com' };

describe('OIDC provider settings', () => {
  it('carries the certificate, the previous key and certificate, and the session settings', () => {
    const { settings } = parseConfig('', {
      ...ENV,
      OIDC_PROVIDER_CERT: 'cert',
      OIDC_PROVIDER_PREVIOUS_KEY: 'old',
      OIDC_PROVIDER_PREVIOUS_CERT: 'old cert',
      OIDC_SESSION_DURATION_SECONDS: '900',
      OIDC_REFRESH_AHEAD_SECONDS: '120',
    });
    expect(settings).toEqual({
      oidcProviderKey: 'pem',
      oidcProviderIssuer: 'https://gw.example.com',
      oidcProviderCert: 'cert',
      oidcProviderPreviousKey: 'old',
      oidcProviderPreviousCert: 'old cert',
      oidcSessionDurationSeconds: 900,
      oidcRefreshAheadSeconds: 120,
    });
  });

  it.each([['899'], ['43201'], ['1h']])('refuses OIDC_SESSION_DURATION_SECONDS=%s (STS accepts 900 to 43200)', (value) => {
    expect(problemsOf('', { OIDC_SESSION_DURATION_SECONDS: value })).toEqual([
      'environment OIDC_SESSION_DURATION_SECONDS: must be an integer from 900 to 43200 (seconds)',
    ]);
  });

  it('refuses an OIDC_REFRESH_AHEAD_SECONDS that is not a whole number of seconds', () => {
    expect(problemsOf('', { OIDC_REFRESH_AHEAD_SECONDS: '-1' })).toEqual(['environment OIDC_REFRESH_AHEAD_SECONDS: must be a non-negative integer (seconds)']);
  });

  it('defaults the subject to s3-proxy and refuses an empty one', () => {
    const backend = parseConfig(OIDC_BUCKET(), ENV).buckets.get('b')?.backend;
    expect(backend?.type === 's3' && backend.auth).toMatchObject({ type: 'oidc', subject: 's3-proxy', audience: 'sts.amazonaws.com' });
    expect(problemsOf(OIDC_BUCKET('oidc_subject = ""'), ENV)).toEqual([
      '[[buckets]] #1 "b": backend_options.oidc_subject must not be empty (omit it for the default "s3-proxy")',
    ]);
  });
});
