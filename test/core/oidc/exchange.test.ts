/** The parts of the exchange that are pure: session names, default endpoints, and sorting SDK failures. */
import { TokenServiceError, classifyStsError, defaultStsEndpoint, roleSessionName } from '../../../functions/core/oidc/exchange';

describe('roleSessionName', () => {
  it.each([
    ['s3-proxy', 's3-proxy'],
    ['repo:org/app:ref:refs/heads/main', 'repo-org-app-ref-refs-heads-main'],
    ['user@example.com,team=a+b', 'user@example.com,team=a+b'],
    ['ünï cødé', '-n--c-d-'],
    ['x', 'x-'],
    ['a'.repeat(100), 'a'.repeat(64)],
  ])('%s becomes %s', (subject, name) => {
    expect(roleSessionName(subject)).toBe(name);
    expect(name).toMatch(/^[\w+=,.@-]{2,64}$/);
  });
});

describe('defaultStsEndpoint', () => {
  it('is the regional AWS endpoint, in the .cn partition for China regions', () => {
    expect(defaultStsEndpoint('eu-west-1')).toBe('https://sts.eu-west-1.amazonaws.com');
    expect(defaultStsEndpoint('cn-north-1')).toBe('https://sts.cn-north-1.amazonaws.com.cn');
  });
});

/** An error shaped as the SDK throws them (a service exception or a transport error with retry metadata). */
function sdkError(fields: { name: string; message?: string; status?: number; code?: string }): Error {
  return Object.assign(new Error(fields.message ?? ''), {
    name: fields.name,
    code: fields.code,
    $metadata: fields.status === undefined ? { attempts: 2 } : { httpStatusCode: fields.status },
  });
}

describe('classifyStsError', () => {
  it.each([
    [sdkError({ name: 'AccessDenied', message: 'Not authorized to perform sts:AssumeRoleWithWebIdentity', status: 403 }), 'refused', 'AccessDenied'],
    [sdkError({ name: 'IDPRejectedClaim', status: 403 }), 'refused', 'IDPRejectedClaim'],
    [sdkError({ name: 'InvalidIdentityToken', message: 'No OpenIDConnect provider found', status: 400 }), 'failed', 'InvalidIdentityToken'],
    [sdkError({ name: 'IDPCommunicationError', status: 400 }), 'failed', 'IDPCommunicationError'],
    [sdkError({ name: 'InternalFailure', status: 500 }), 'failed', 'InternalFailure'],
    [sdkError({ name: 'Throttling', status: 400 }), 'unreachable', 'Throttling'],
    [sdkError({ name: 'ServiceUnavailable', status: 503 }), 'unreachable', 'ServiceUnavailable'],
    [sdkError({ name: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:1' }), 'unreachable', 'ECONNREFUSED'],
    [sdkError({ name: 'TimeoutError', message: 'Connection timed out after 3000 ms' }), 'unreachable', 'TimeoutError'],
  ])('%s is %s with code %s', (err, kind, code) => {
    expect(classifyStsError(err)).toMatchObject({ kind, code });
  });

  it('takes the code read from the raw answer when the SDK could not parse it (Ceph RGW’s S3-style errors)', () => {
    const unparsed = sdkError({ name: 'Unknown', message: 'UnknownError', status: 403 });
    expect(classifyStsError(unparsed, 'AccessDenied')).toMatchObject({ kind: 'refused', code: 'AccessDenied', message: 'The token service answered 403 AccessDenied' });
    expect(classifyStsError(sdkError({ name: 'Unknown', status: 502 }))).toMatchObject({ kind: 'failed', code: 'HTTP502' });
  });

  it('passes a TokenServiceError through unchanged', () => {
    const err = new TokenServiceError('failed', 'X', 'y', 400);
    expect(classifyStsError(err)).toBe(err);
  });
});
