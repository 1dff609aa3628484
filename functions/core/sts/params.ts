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
 * @throws StsError `ValidationError` for a missing RoleArn or WebIdentityToken, an oversized token, a
 *   DurationSeconds that is not a whole number of seconds or is below 900, or a session policy.
 */
export function assumeRoleParams(params: StsParams): AssumeRoleParams {
  refuseSessionPolicies(params);
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

/**
 * A session policy (`Policy`, `PolicyArns.member.N.arn`) narrows what the session may do on AWS. The gateway
 * has no IAM policies to intersect with a role's scopes, and ignoring one would hand the caller more than it
 * asked for, so a request carrying one is refused (configure-aws-credentials sends them when its
 * `inline-session-policy` or `managed-session-policies` input is set).
 */
function refuseSessionPolicies(params: StsParams): void {
  for (const name of params.keys()) {
    if ((name === 'Policy' && params.get(name) !== '') || name.startsWith('PolicyArns.')) {
      throw new StsError(
        'ValidationError',
        'Session policies (Policy, PolicyArns) are not supported by this gateway: narrow the role\'s scopes in its configuration instead',
      );
    }
  }
}

function required(params: StsParams, name: string): string {
  const value = params.get(name);
  if (value === undefined || value === '') throw new StsError('ValidationError', `Missing required parameter ${name}`);
  return value;
}
