/**
 * Secretless backend credentials (spec: "Backend authentication", OIDC): mint a JWT, exchange it at the
 * token service, cache the result, and turn token-service failures into the client's S3 error.
 */
import type { S3Backend, StaticKeys } from '../config/types';
import { ConfigError } from '../config/parse';
import { S3Error } from '../errors';
import { silent, type Log } from '../log';
import { NO_METRICS, type Metrics } from '../observability/metrics';
import { CredentialCache, type TemporaryCredentials } from './credential-cache';
import { TokenServiceError, defaultStsEndpoint, roleSessionName, type TokenExchange } from './exchange';
import { mintToken } from './mint';
import type { IdentityProvider } from './provider-key';

/** What one OIDC bucket exchanges for: the role, as whom, and where. */
export interface FederationTarget {
  /** The virtual bucket, for the log only (the cache is shared by buckets with the same role and subject). */
  readonly bucket: string;
  readonly roleArn: string;
  readonly subject: string;
  readonly audience: string;
  /** `oidc_sts_endpoint`; undefined: AWS's regional STS. */
  readonly stsEndpoint?: string;
  readonly region: string;
}

export interface BackendCredentialsOptions {
  readonly provider: IdentityProvider;
  readonly exchange: TokenExchange;
  readonly now: () => number;
  readonly log?: Log;
  /** Counts each exchange's outcome, and whether credentials came from the cache. */
  readonly metrics?: Metrics;
  /** DurationSeconds asked for; undefined: the token service's default. */
  readonly sessionDurationSeconds?: number;
  /** @default 60 */
  readonly refreshAheadSeconds?: number;
}

/**
 * The gateway's credential source for `auth_type = "oidc"` buckets. One instance per Gateway, so the cache
 * lives per process on Node and per execution environment on Lambda.
 */
export class BackendCredentials {
  private readonly cache: CredentialCache;
  private readonly log: Log;
  private readonly metrics: Metrics;

  constructor(private readonly options: BackendCredentialsOptions) {
    this.log = options.log ?? silent;
    this.metrics = options.metrics ?? NO_METRICS;
    this.cache = new CredentialCache({ now: options.now, refreshAheadMs: (options.refreshAheadSeconds ?? 60) * 1000 });
  }

  /**
   * Credentials for signing a request to the target's backend.
   *
   * @throws S3Error 403 AccessDenied when the token service refuses the role, 502 BadGateway when it fails
   *   otherwise, 503 ServiceUnavailable when it cannot be reached.
   */
  async get(target: FederationTarget): Promise<StaticKeys> {
    const endpoint = target.stsEndpoint ?? defaultStsEndpoint(target.region);
    // Credentials from one token service mean nothing to another, so the endpoint and audience are part of
    // the key too; for one token service the key is (role, subject), as decided.
    const key = JSON.stringify([endpoint, target.roleArn, target.subject, target.audience]);
    // A hit is a call that started no exchange (one already under way, shared, counts as a hit too).
    let exchanged = false;
    try {
      return await this.cache.get(key, () => {
        exchanged = true;
        return this.exchange(target, endpoint);
      });
    } catch (err) {
      throw toS3Error(err, target);
    } finally {
      this.metrics.oidcCredentials(!exchanged);
    }
  }

  private async exchange(target: FederationTarget, endpoint: string): Promise<TemporaryCredentials> {
    const started = this.options.now();
    const webIdentityToken = await mintToken(this.options.provider, { subject: target.subject, audience: target.audience, now: started });
    const about = { bucket: target.bucket, role: target.roleArn, subject: target.subject, tokenService: endpoint };
    try {
      const credentials = await this.options.exchange({
        endpoint,
        region: target.region,
        roleArn: target.roleArn,
        roleSessionName: roleSessionName(target.subject),
        webIdentityToken,
        durationSeconds: this.options.sessionDurationSeconds,
      });
      this.metrics.oidcExchange('ok');
      this.log({
        level: 'info',
        event: 'oidc-exchange',
        outcome: 'ok',
        ...about,
        expiration: new Date(credentials.expiresAt).toISOString(),
        ms: this.options.now() - started,
      });
      return credentials;
    } catch (err) {
      const failure = asTokenServiceError(err);
      this.metrics.oidcExchange(failure.kind);
      this.log({
        level: 'error',
        event: 'oidc-exchange',
        outcome: failure.kind,
        ...about,
        code: failure.code,
        ...(failure.status === undefined ? {} : { status: failure.status }),
        message: withoutTokens(failure.message),
        ms: this.options.now() - started,
      });
      throw failure;
    }
  }
}

function asTokenServiceError(err: unknown): TokenServiceError {
  if (err instanceof TokenServiceError) return err;
  const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : 'NetworkError';
  return new TokenServiceError('unreachable', code, err instanceof Error ? err.message : String(err));
}

/** The client's error for a failed exchange; the role and the token service's details stay in the log. */
function toS3Error(err: unknown, target: FederationTarget): unknown {
  if (!(err instanceof TokenServiceError)) return err;
  switch (err.kind) {
    case 'refused':
      return new S3Error('AccessDenied', `Access Denied: the token service refused the gateway's backend role for bucket ${target.bucket}`);
    case 'failed':
      return new S3Error('BadGateway', `The token service failed to issue backend credentials for bucket ${target.bucket} (${err.code})`);
    case 'unreachable':
      return new S3Error('ServiceUnavailable', `The token service for bucket ${target.bucket} is unreachable`);
  }
}

/** Anything shaped like a JWT in a token service's message is blanked, should one ever echo the token. */
function withoutTokens(message: string): string {
  return message.replace(/[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}/g, '[token]').slice(0, 300);
}

/**
 * The signing keys of each S3 bucket: its static keys, none (unsigned), or, for `auth_type = "oidc"`,
 * credentials exchanged at its token service through `federated` (cached there).
 *
 * @throws ConfigError for an `oidc` bucket when the gateway is not an identity provider.
 */
export function s3CredentialSource(federated: BackendCredentials | undefined): (bucket: string, backend: S3Backend) => () => Promise<StaticKeys | undefined> {
  return (bucket, backend) => {
    const auth = backend.auth;
    if (auth.type !== 'oidc') return async () => (auth.type === 'static' ? auth.keys : undefined);
    if (federated === undefined) {
      throw new ConfigError([`[[buckets]] "${bucket}": backend_options.auth_type "oidc" needs OIDC_PROVIDER_KEY and OIDC_PROVIDER_ISSUER in the environment`]);
    }
    const target = { bucket, roleArn: auth.roleArn, subject: auth.subject, audience: auth.audience, stsEndpoint: auth.stsEndpoint, region: backend.region };
    return () => federated.get(target);
  };
}
