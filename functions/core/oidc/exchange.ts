/**
 * Exchanging the gateway's web identity for temporary backend credentials at a token service
 * (`AssumeRoleWithWebIdentity`: AWS STS, Ceph RGW, or another gateway's own STS endpoint).
 *
 * The core depends only on the `TokenExchange` function type. `stsTokenExchange` implements it with
 * @aws-sdk/client-sts, loaded on first use: the SDK selects its own HTTP handler per platform (node:https
 * on Node and Lambda, fetch in workers), an adapter may hand it a different `requestHandler`, or provide a
 * `TokenExchange` of its own.
 */
import type { AssumeRoleWithWebIdentityCommandOutput, STSClient, STSClientConfig } from '@aws-sdk/client-sts';
import type { TemporaryCredentials } from './credential-cache';

export interface WebIdentityRequest {
  /** The token service's URL (`oidc_sts_endpoint`, else `defaultStsEndpoint(region)`). */
  readonly endpoint: string;
  /** Region the request is made in (the bucket's). */
  readonly region: string;
  readonly roleArn: string;
  /** Already restricted to what STS accepts; see `roleSessionName`. */
  readonly roleSessionName: string;
  readonly webIdentityToken: string;
  /** Omitted: the token service's default (AWS: 3600 s). */
  readonly durationSeconds?: number;
}

/**
 * Performs one AssumeRoleWithWebIdentity.
 *
 * @throws TokenServiceError classifying the failure; any other rejection counts as `unreachable`.
 */
export type TokenExchange = (request: WebIdentityRequest) => Promise<TemporaryCredentials>;

/**
 * How a token service failed. `refused`: it answered AccessDenied (the role's trust policy said no);
 * `failed`: any other answer (invalid token, unknown role, malformed response); `unreachable`: no answer
 * (connection refused, timeout) or it said it is unavailable (503, throttling).
 */
export type TokenServiceFailure = 'refused' | 'failed' | 'unreachable';

export class TokenServiceError extends Error {
  constructor(
    readonly kind: TokenServiceFailure,
    /** The token service's error code (`AccessDenied`, `InvalidIdentityToken`…) or the transport's (`ECONNREFUSED`). */
    readonly code: string,
    message: string,
    /** HTTP status of the token service's answer, when there was one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'TokenServiceError';
  }
}

/** AWS's regional STS endpoint for `region`. */
export function defaultStsEndpoint(region: string): string {
  return `https://sts.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
}

/**
 * A RoleSessionName derived from the token's subject: STS accepts 2 to 64 characters of `[\w+=,.@-]`, so
 * anything else becomes `-` and the result is cut to 64.
 *
 * @example roleSessionName('repo:org/app:ref:refs/heads/main') // 'repo-org-app-ref-refs-heads-main'
 */
export function roleSessionName(subject: string): string {
  const name = subject.replace(/[^\w+=,.@-]/g, '-').slice(0, 64);
  return name.length >= 2 ? name : name.padEnd(2, '-');
}

export interface StsExchangeOptions {
  /**
   * The SDK's HTTP handler, or options for its default one.
   * @default connection timeout 3 s, request timeout 10 s, on the platform's default handler
   */
  readonly requestHandler?: STSClientConfig['requestHandler'];
  /** @default 2: one retry, with the SDK's backoff, of throttling and transient failures. */
  readonly maxAttempts?: number;
}

type StsModule = typeof import('@aws-sdk/client-sts');

let sdk: Promise<StsModule> | undefined;
function loadSdk(): Promise<StsModule> {
  // Loaded on first exchange, so a gateway without OIDC backends never pays for the SDK at start-up.
  sdk ??= import('@aws-sdk/client-sts');
  return sdk;
}

/**
 * A TokenExchange over @aws-sdk/client-sts, with one client per token-service endpoint and region.
 * AssumeRoleWithWebIdentity is an unsigned call, so no AWS credentials are looked up.
 *
 * @example
 * const exchange = stsTokenExchange({ requestHandler: { requestTimeout: 5000 } });
 */
export function stsTokenExchange(options: StsExchangeOptions = {}): TokenExchange {
  const clients = new Map<string, STSClient>();
  return async (request) => {
    const { STSClient, AssumeRoleWithWebIdentityCommand } = await loadSdk();
    const clientKey = `${request.endpoint} ${request.region}`;
    let client = clients.get(clientKey);
    if (client === undefined) {
      client = new STSClient({
        endpoint: request.endpoint,
        region: request.region,
        maxAttempts: options.maxAttempts ?? 2,
        requestHandler: options.requestHandler ?? { connectionTimeout: 3_000, requestTimeout: 10_000 },
      });
      clients.set(clientKey, client);
    }
    const command = new AssumeRoleWithWebIdentityCommand({
      RoleArn: request.roleArn,
      RoleSessionName: request.roleSessionName,
      WebIdentityToken: request.webIdentityToken,
      DurationSeconds: request.durationSeconds,
    });
    const collect = client.config.streamCollector;
    let answeredCode: string | undefined;
    // The SDK reads error codes only from STS's `<ErrorResponse>` envelope; S3-style token services (Ceph
    // RGW) answer `<Error><Code>…` at the root. Read the code from the raw answer before the SDK does.
    command.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        const response = result.response as { statusCode?: number; body?: unknown };
        if ((response.statusCode ?? 0) >= 300 && response.body != null && !(response.body instanceof Uint8Array)) {
          const bytes = await collect(response.body as Parameters<typeof collect>[0]);
          response.body = bytes;
          answeredCode = /<Code>([^<]+)<\/Code>/.exec(new TextDecoder().decode(bytes))?.[1];
        }
        return result;
      },
      { step: 'deserialize', priority: 'low', name: 'tokenServiceErrorCode' },
    );
    let answer: AssumeRoleWithWebIdentityCommandOutput;
    try {
      answer = await client.send(command);
    } catch (err) {
      throw classifyStsError(err, answeredCode);
    }
    const c = answer.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !(c.Expiration instanceof Date)) {
      throw new TokenServiceError('failed', 'IncompleteCredentials', 'The token service answered without complete credentials', 200);
    }
    return { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken, expiresAt: c.Expiration.getTime() };
  };
}

/** The shape of an SDK error: service errors carry the HTTP status, transport errors a Node `code`. */
interface SdkError {
  readonly name?: string;
  readonly code?: string;
  readonly message?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

const UNAVAILABLE_CODES = new Set(['Throttling', 'ThrottlingException', 'ServiceUnavailable', 'RequestLimitExceeded']);

/**
 * Sorts an SDK failure into refused, failed or unreachable, keeping the token service's code
 * (`answeredCode` when the SDK could not read it from the answer).
 */
export function classifyStsError(err: unknown, answeredCode?: string): TokenServiceError {
  if (err instanceof TokenServiceError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as SdkError;
  const status = e.$metadata?.httpStatusCode;
  // The SDK says only "UnknownError" when it could not read the answer; the code says more.
  const message = e.message && !/^Unknown(Error)?$/.test(e.message) ? e.message : undefined;
  if (status === undefined) {
    return new TokenServiceError('unreachable', e.code ?? e.name ?? 'NetworkError', message ?? String(err));
  }
  // A service error's name is its code; an unparseable error body leaves a generic name, so the status decides.
  const sdkCode = e.name && e.name !== 'Error' && !e.name.startsWith('Unknown') ? e.name : undefined;
  const code = sdkCode ?? answeredCode ?? `HTTP${status}`;
  const said = message ?? `The token service answered ${status} ${code}`;
  if (code === 'AccessDenied' || code === 'AccessDeniedException' || status === 403) {
    return new TokenServiceError('refused', code, said, status);
  }
  if (status === 503 || UNAVAILABLE_CODES.has(code)) return new TokenServiceError('unreachable', code, said, status);
  return new TokenServiceError('failed', code, said, status);
}
