import type { Role } from '../config/types';
import { StsError } from './errors';
import type { StsParams } from './routes';

/** AssumeRoleWithWebIdentity's parameters (spec, STS operations), validated before any token work. */
export interface AssumeRoleParams {
  /** The role's `role_id`, sent verbatim as `RoleArn`. */
  readonly roleArn: string;
  readonly webIdentityToken: string;
  /** As requested, at least 900; capped by the role later. Undefined when absent. */
  readonly durationSeconds?: number;
}

/** Session length when DurationSeconds is omitted (decisions.md). */
export const DEFAULT_DURATION_SECONDS = 3600;
export const MIN_DURATION_SECONDS = 900;
/** AWS's limits on the token parameter: 4 to 20000 characters. */
const MAX_TOKEN_CHARS = 20_000;

/**
 * Reads and validates the parameters.
 *
 * @throws StsError `ValidationError` for a missing RoleArn or WebIdentityToken, an oversized token, or a
 *   DurationSeconds that is not a whole number of seconds or is below 900.
 */
export function assumeRoleParams(params: StsParams): AssumeRoleParams {
  const roleArn = required(params, 'RoleArn');
  const webIdentityToken = required(params, 'WebIdentityToken');
  if (webIdentityToken.length > MAX_TOKEN_CHARS) {
    throw new StsError('ValidationError', `WebIdentityToken is longer than ${MAX_TOKEN_CHARS} characters`);
  }
  const raw = params.get('DurationSeconds');
  if (raw === undefined || raw === '') return { roleArn, webIdentityToken };
  if (!/^\d{1,9}$/.test(raw)) throw new StsError('ValidationError', 'DurationSeconds must be a whole number of seconds');
  const durationSeconds = Number(raw);
  if (durationSeconds < MIN_DURATION_SECONDS) {
    throw new StsError(
      'ValidationError',
      `DurationSeconds ${durationSeconds} is below the minimum of ${MIN_DURATION_SECONDS} seconds`,
    );
  }
  return { roleArn, webIdentityToken, durationSeconds };
}

/** The session length granted: the request's (default 3600), capped by the role's `max_session_duration_secs`. */
export function sessionSeconds(requested: number | undefined, role: Role): number {
  return Math.min(requested ?? DEFAULT_DURATION_SECONDS, role.maxSessionDurationSecs);
}

function required(params: StsParams, name: string): string {
  const value = params.get(name);
  if (value === undefined || value === '') throw new StsError('ValidationError', `Missing required parameter ${name}`);
  return value;
}
