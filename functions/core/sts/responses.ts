import type { ProxyResponse } from '../http';
import { buildXml, type XmlNode } from '../xml';
import { withErrorCode } from '../responses';
import { StsError } from './errors';

/**
 * STS documents in AWS's query-protocol shapes, so stock SDKs and CLIs parse them: `<Action>Response` >
 * `<Action>Result` plus `ResponseMetadata/RequestId`, and `ErrorResponse/Error{Type,Code,Message}` +
 * `RequestId` for failures. Built with buildXml only, so every echoed value is escaped.
 */
export const STS_XMLNS = 'https://sts.amazonaws.com/doc/2011-06-15/';

/** The temporary credentials and who they belong to, as AssumeRoleWithWebIdentity returns them. */
export interface AssumeRoleResult {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
  readonly expiration: Date;
  readonly assumedRoleArn: string;
  readonly assumedRoleId: string;
  readonly subject: string;
  /** The `aud` value that satisfied the role's `required_audiences`. */
  readonly audience: string;
  /** The issuer, as STS reports it for OIDC providers. */
  readonly provider: string;
}

export interface CallerIdentity {
  readonly arn: string;
  readonly userId: string;
  readonly account: string;
}

function stsXml(status: number, root: string, body: XmlNode, requestId: string): ProxyResponse {
  return {
    status,
    headers: { 'content-type': 'text/xml', 'x-amzn-requestid': requestId, 'x-amz-request-id': requestId },
    body: buildXml(root, body, STS_XMLNS),
  };
}

/** STS timestamps: ISO 8601 in UTC without milliseconds, as AWS writes them. */
export function stsTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function assumeRoleResponse(result: AssumeRoleResult, requestId: string): ProxyResponse {
  return stsXml(
    200,
    'AssumeRoleWithWebIdentityResponse',
    {
      AssumeRoleWithWebIdentityResult: {
        SubjectFromWebIdentityToken: result.subject,
        Audience: result.audience,
        AssumedRoleUser: { Arn: result.assumedRoleArn, AssumedRoleId: result.assumedRoleId },
        Credentials: {
          AccessKeyId: result.accessKeyId,
          SecretAccessKey: result.secretAccessKey,
          SessionToken: result.sessionToken,
          Expiration: stsTimestamp(result.expiration),
        },
        Provider: result.provider,
      },
      ResponseMetadata: { RequestId: requestId },
    },
    requestId,
  );
}

export function callerIdentityResponse(identity: CallerIdentity, requestId: string): ProxyResponse {
  return stsXml(
    200,
    'GetCallerIdentityResponse',
    {
      GetCallerIdentityResult: { Arn: identity.arn, UserId: identity.userId, Account: identity.account },
      ResponseMetadata: { RequestId: requestId },
    },
    requestId,
  );
}

/**
 * The ErrorResponse for `err`. Anything that is not an StsError is an InternalFailure whose details stay in
 * the log. `Type` is `Sender` for the caller's mistakes (4xx) and `Receiver` for the gateway's (5xx).
 */
export function stsErrorResponse(err: unknown, requestId: string): ProxyResponse {
  const e = err instanceof StsError ? err : new StsError('InternalFailure', 'The request processing has failed because of an unknown error.');
  return withErrorCode(
    stsXml(e.status, 'ErrorResponse', { Error: { Type: e.status >= 500 ? 'Receiver' : 'Sender', Code: e.code, Message: e.message }, RequestId: requestId }, requestId),
    e.code,
  );
}
