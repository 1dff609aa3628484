import { S3Error } from '../../../functions/core/errors';
import { thrownBy } from '../../support/thrown';
import {
  authKind,
  parseAuthorizationHeader,
  parsePresignedQuery,
  parseSignedRequest,
} from '../../../functions/core/sigv4';

const SIGNATURE = 'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41';
const CREDENTIAL = 'AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request';

function authorization({
  algorithm = 'AWS4-HMAC-SHA256',
  credential = CREDENTIAL,
  signedHeaders = 'host;range;x-amz-content-sha256;x-amz-date',
  signature = SIGNATURE,
  omit = '',
}: { algorithm?: string; credential?: string; signedHeaders?: string; signature?: string; omit?: string } = {}): string {
  const components = [
    ['Credential', credential],
    ['SignedHeaders', signedHeaders],
    ['Signature', signature],
  ].filter(([name]) => name !== omit);
  return `${algorithm} ${components.map(([k, v]) => `${k}=${v}`).join(', ')}`;
}

function headersWith(extra: Record<string, string> = {}): Headers {
  return new Headers({ host: 'examplebucket.s3.amazonaws.com', 'x-amz-date': '20130524T000000Z', ...extra });
}

function presignedQuery(overrides: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = {
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': CREDENTIAL,
    'X-Amz-Date': '20130524T000000Z',
    'X-Amz-Expires': '86400',
    'X-Amz-SignedHeaders': 'host',
    'X-Amz-Signature': SIGNATURE,
    ...overrides,
  };
  return Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
}

const errorOf = (f: () => unknown): S3Error => thrownBy(S3Error, f);

describe('authKind', () => {
  it('tells header, presigned, anonymous and both apart', () => {
    expect(authKind(new Headers({ authorization: 'x' }), '')).toBe('header');
    expect(authKind(new Headers(), 'X-Amz-Credential=a')).toBe('presigned');
    expect(authKind(new Headers(), 'X-Amz-Signature=a&X-Amz-Algorithm=b')).toBe('presigned');
    expect(authKind(new Headers(), 'prefix=X-Amz-Credential&list-type=2')).toBe('anonymous');
    expect(authKind(new Headers(), '')).toBe('anonymous');
    expect(authKind(new Headers({ authorization: 'x' }), 'X-Amz-Algorithm=a')).toBe('both');
  });

  it('recognizes a percent-encoded presigned parameter name', () => {
    expect(authKind(new Headers(), 'X%2DAmz%2DCredential=a')).toBe('presigned');
  });
});

describe('parseSignedRequest', () => {
  it('is undefined for an anonymous request', () => {
    expect(parseSignedRequest(new Headers(), 'list-type=2')).toBeUndefined();
  });

  it('refuses a request that authenticates both by header and by query with InvalidArgument', () => {
    const error = errorOf(() => parseSignedRequest(headersWith({ authorization: authorization() }), presignedQuery()));
    expect(error.code).toBe('InvalidArgument');
    expect(error.message).toMatch(/Only one auth mechanism allowed/);
  });
});

describe('parseAuthorizationHeader', () => {
  it('reads the credential scope, signed headers, signature and x-amz-date', () => {
    const headers = headersWith({ 'x-amz-security-token': 'token' });
    expect(parseAuthorizationHeader(authorization(), headers)).toEqual({
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      date: '20130524',
      region: 'us-east-1',
      service: 's3',
      amzDate: '20130524T000000Z',
      signedHeaders: ['host', 'range', 'x-amz-content-sha256', 'x-amz-date'],
      signature: SIGNATURE,
      presigned: false,
      securityToken: 'token',
    });
  });

  it('accepts components separated by a bare comma', () => {
    const value = `AWS4-HMAC-SHA256 Credential=${CREDENTIAL},SignedHeaders=host,Signature=${SIGNATURE}`;
    expect(parseAuthorizationHeader(value, headersWith()).signedHeaders).toEqual(['host']);
  });

  it('takes the request time from the Date header when x-amz-date is absent', () => {
    const headers = new Headers({ host: 'h', date: 'Fri, 24 May 2013 00:00:00 GMT' });
    expect(parseAuthorizationHeader(authorization(), headers).amzDate).toBe('20130524T000000Z');
  });

  it('refuses a request without a valid date with AccessDenied', () => {
    const noDate = errorOf(() => parseAuthorizationHeader(authorization(), new Headers({ host: 'h' })));
    expect(noDate.code).toBe('AccessDenied');
    expect(noDate.message).toMatch(/valid Date or x-amz-date/);
    expect(errorOf(() => parseAuthorizationHeader(authorization(), headersWith({ 'x-amz-date': '20130532T000000Z' }))).code).toBe(
      'AccessDenied',
    );
    expect(
      errorOf(() => parseAuthorizationHeader(authorization(), new Headers({ host: 'h', date: '2013-05-24' }))).code,
    ).toBe('AccessDenied');
  });

  it.each([
    ['Credential', /missing Credential/],
    ['SignedHeaders', /missing SignedHeaders/],
    ['Signature', /missing Signature/],
  ])('refuses a header without %s as AuthorizationHeaderMalformed', (omit, message) => {
    const error = errorOf(() => parseAuthorizationHeader(authorization({ omit }), headersWith()));
    expect(error.code).toBe('AuthorizationHeaderMalformed');
    expect(error.message).toMatch(message);
  });

  it.each([
    ['too few parts', 'AKID/20130524/us-east-1/s3', /Credential is mal-formed/],
    ['an empty part', 'AKID/20130524//s3/aws4_request', /Credential is mal-formed/],
    ['a wrong terminator', 'AKID/20130524/us-east-1/s3/aws4_reques', /incorrect terminal "aws4_reques"/],
    ['a bad date', 'AKID/2013-05-24/us-east-1/s3/aws4_request', /incorrect date format/],
  ])('refuses a credential with %s as AuthorizationHeaderMalformed', (_, credential, message) => {
    const error = errorOf(() => parseAuthorizationHeader(authorization({ credential }), headersWith()));
    expect(error.code).toBe('AuthorizationHeaderMalformed');
    expect(error.message).toMatch(message);
  });

  it("refuses a scope date that is not the request's day as AuthorizationHeaderMalformed", () => {
    const credential = 'AKIAIOSFODNN7EXAMPLE/20130523/us-east-1/s3/aws4_request';
    const error = errorOf(() => parseAuthorizationHeader(authorization({ credential }), headersWith()));
    expect(error.code).toBe('AuthorizationHeaderMalformed');
    expect(error.message).toMatch(/Invalid credential date "20130523"/);
  });

  it('refuses signed headers without host as AuthorizationHeaderMalformed', () => {
    const error = errorOf(() => parseAuthorizationHeader(authorization({ signedHeaders: 'x-amz-date' }), headersWith()));
    expect(error.code).toBe('AuthorizationHeaderMalformed');
    expect(error.message).toMatch(/host/);
    expect(errorOf(() => parseAuthorizationHeader(authorization({ signedHeaders: 'host;;x' }), headersWith())).code).toBe(
      'AuthorizationHeaderMalformed',
    );
  });

  it.each(['AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg=', authorization({ algorithm: 'AWS4-ECDSA-P256-SHA256' }), 'Bearer x', 'AWS4-HMAC-SHA256'])(
    'refuses another mechanism (%s) with InvalidRequest, as S3 does',
    (value) => {
      const error = errorOf(() => parseAuthorizationHeader(value, headersWith()));
      expect(error.code).toBe('InvalidRequest');
      expect(error.message).toMatch(/Please use AWS4-HMAC-SHA256/);
    },
  );
});

describe('parsePresignedQuery', () => {
  it('reads the X-Amz-* parameters', () => {
    expect(parsePresignedQuery(`${presignedQuery({ 'X-Amz-Security-Token': 'to/ken+=' })}&response-content-type=x`)).toEqual({
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      date: '20130524',
      region: 'us-east-1',
      service: 's3',
      amzDate: '20130524T000000Z',
      signedHeaders: ['host'],
      signature: SIGNATURE,
      presigned: true,
      expiresSeconds: 86400,
      securityToken: 'to/ken+=',
    });
  });

  it.each(['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Signature'])(
    'refuses a query without %s as AuthorizationQueryParametersError',
    (name) => {
      const error = errorOf(() => parsePresignedQuery(presignedQuery({ [name]: undefined })));
      expect(error.code).toBe('AuthorizationQueryParametersError');
      expect(error.message).toContain(`missing ${name}`);
    },
  );

  it('refuses another algorithm', () => {
    const error = errorOf(() => parsePresignedQuery(presignedQuery({ 'X-Amz-Algorithm': 'AWS4-HMAC-SHA1' })));
    expect(error.code).toBe('AuthorizationQueryParametersError');
    expect(error.message).toMatch(/only supports "AWS4-HMAC-SHA256"/);
  });

  it.each([
    ['abc', /should be a number/],
    ['1.5', /should be a number/],
    ['-1', /non-negative/],
    ['604801', /less than a week/],
  ])('refuses X-Amz-Expires=%s', (expires, message) => {
    const error = errorOf(() => parsePresignedQuery(presignedQuery({ 'X-Amz-Expires': expires })));
    expect(error.code).toBe('AuthorizationQueryParametersError');
    expect(error.message).toMatch(message);
  });

  it('accepts the longest validity, seven days', () => {
    expect(parsePresignedQuery(presignedQuery({ 'X-Amz-Expires': '604800' })).expiresSeconds).toBe(604800);
  });

  it.each([
    ['a missing aws4_request', 'AKID/20130524/us-east-1/s3', /Credential is mal-formed/],
    ['a wrong terminator', 'AKID/20130524/us-east-1/s3/aws4', /incorrect terminal "aws4"/],
    ['a scope date other than X-Amz-Date', 'AKID/20130525/us-east-1/s3/aws4_request', /Invalid credential date "20130525"/],
  ])('refuses a credential with %s', (_, credential, message) => {
    const error = errorOf(() => parsePresignedQuery(presignedQuery({ 'X-Amz-Credential': credential })));
    expect(error.code).toBe('AuthorizationQueryParametersError');
    expect(error.message).toMatch(message);
  });

  it('refuses a malformed X-Amz-Date', () => {
    const error = errorOf(() => parsePresignedQuery(presignedQuery({ 'X-Amz-Date': '2013-05-24T00:00:00Z' })));
    expect(error.code).toBe('AuthorizationQueryParametersError');
    expect(error.message).toMatch(/ISO8601/);
  });

  it('refuses signed headers without host', () => {
    const error = errorOf(() => parsePresignedQuery(presignedQuery({ 'X-Amz-SignedHeaders': 'content-type' })));
    expect(error.code).toBe('AuthorizationQueryParametersError');
    expect(error.message).toMatch(/host/);
  });

  it.each(['host;r?ange', 'host;x-amz-date x-amz-content-sha256', 'host;ran\tge', 'host;x/y'])(
    'GIVEN SignedHeaders %j, a name that is no header name THEN refused as malformed, in a header or a query, never by a lookup that throws',
    (signedHeaders) => {
      expect(errorOf(() => parsePresignedQuery(presignedQuery({ 'X-Amz-SignedHeaders': signedHeaders })))).toMatchObject({ code: 'AuthorizationQueryParametersError', message: expect.stringMatching(/no header name/) });
      const header = errorOf(() => parseAuthorizationHeader(authorization({ signedHeaders }), headersWith()));
      expect(header).toMatchObject({ code: 'AuthorizationHeaderMalformed', message: expect.stringMatching(/no header name/) });
    },
  );
});
