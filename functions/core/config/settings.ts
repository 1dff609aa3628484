/**
 * The gateway's settings from the environment (SESSION_TOKEN_KEY, OIDC_PROVIDER_*, OIDC_*_SECONDS,
 * MAX_UPLOAD_BYTES), validated with the file's: each problem names the variable, never its value.
 */
import type { Settings } from './types';
import { decodeBase64, isHttpUrl, type Environment } from './reader';

export function readSettings(env: Environment, fileMaxUpload: number | undefined, problems: string[]): Settings {
  const settings: { -readonly [K in keyof Settings]: Settings[K] } = {};
  const sessionKey = env.SESSION_TOKEN_KEY;
  if (sessionKey) {
    const bytes = decodeBase64(sessionKey);
    if (bytes?.length === 32) settings.sessionTokenKey = bytes;
    else problems.push('environment SESSION_TOKEN_KEY: must be the base64 encoding of exactly 32 bytes');
  }
  if (env.OIDC_PROVIDER_KEY) settings.oidcProviderKey = env.OIDC_PROVIDER_KEY;
  if (env.OIDC_PROVIDER_ISSUER) {
    if (isHttpUrl(env.OIDC_PROVIDER_ISSUER)) settings.oidcProviderIssuer = env.OIDC_PROVIDER_ISSUER.replace(/\/+$/, '');
    else problems.push('environment OIDC_PROVIDER_ISSUER: must be an http(s) URL');
  }
  readOidcSettings(env, settings, problems);
  const envMax = env.MAX_UPLOAD_BYTES;
  if (envMax !== undefined && envMax !== '') {
    if (/^\d+$/.test(envMax) && Number(envMax) > 0) settings.maxUploadBytes = Number(envMax);
    else problems.push('environment MAX_UPLOAD_BYTES: must be a positive integer (bytes)');
  } else if (fileMaxUpload !== undefined) {
    if (fileMaxUpload > 0) settings.maxUploadBytes = fileMaxUpload;
    else problems.push('configuration: max_upload_bytes must be a positive integer (bytes)');
  }
  return settings;
}

/**
 * The rest of the identity-provider settings. The PEMs are only carried here; the Gateway reads them into
 * keys at construction and refuses to start (ConfigError) on a bad one.
 */
function readOidcSettings(env: Environment, settings: { -readonly [K in keyof Settings]: Settings[K] }, problems: string[]): void {
  if (env.OIDC_PROVIDER_CERT) settings.oidcProviderCert = env.OIDC_PROVIDER_CERT;
  if (env.OIDC_PROVIDER_PREVIOUS_KEY) settings.oidcProviderPreviousKey = env.OIDC_PROVIDER_PREVIOUS_KEY;
  if (env.OIDC_PROVIDER_PREVIOUS_CERT) settings.oidcProviderPreviousCert = env.OIDC_PROVIDER_PREVIOUS_CERT;
  const duration = env.OIDC_SESSION_DURATION_SECONDS;
  if (duration) {
    if (/^\d+$/.test(duration) && Number(duration) >= 900 && Number(duration) <= 43200) settings.oidcSessionDurationSeconds = Number(duration);
    else problems.push('environment OIDC_SESSION_DURATION_SECONDS: must be an integer from 900 to 43200 (seconds)');
  }
  const refreshAhead = env.OIDC_REFRESH_AHEAD_SECONDS;
  if (refreshAhead) {
    if (/^\d+$/.test(refreshAhead)) settings.oidcRefreshAheadSeconds = Number(refreshAhead);
    else problems.push('environment OIDC_REFRESH_AHEAD_SECONDS: must be a non-negative integer (seconds)');
  }
}
