import { S3Error } from '../../functions/core/errors';
import { emptyResponse, errorResponse, newRequestId, s3Xml, S3_XMLNS, xmlResponse } from '../../functions/core/responses';
import { childOf, parseXml, textOf } from '../../functions/core/xml';

const REQUEST_ID = '0123456789ABCDEF';

describe('errorResponse', () => {
  it('renders an S3 error as the S3 error document with its status', () => {
    const response = errorResponse(new S3Error('NoSuchBucket', 'The specified bucket does not exist'), REQUEST_ID, 'GET', '/nope/k');
    expect(response).toEqual({
      status: 404,
      headers: { 'content-type': 'application/xml', 'cache-control': 'no-transform', 'x-amz-request-id': REQUEST_ID },
      body:
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message>' +
        `<Resource>/nope/k</Resource><RequestId>${REQUEST_ID}</RequestId></Error>`,
      errorCode: 'NoSuchBucket',
    });
  });

  it('adds the error detail elements between the message and the resource', () => {
    const err = new S3Error('NoSuchBucket', 'missing', { BucketName: 'nope' });
    expect(errorResponse(err, REQUEST_ID, 'GET', '/nope').body).toContain(
      '<Message>missing</Message><BucketName>nope</BucketName><Resource>/nope</Resource>',
    );
  });

  it('escapes the message, the detail and the resource', () => {
    const err = new S3Error('InvalidRequest', `bad <key> & "quote" 'it'`, { Key: '<script>&' });
    const { body } = errorResponse(err, REQUEST_ID, 'PUT', '/b/<x>&y');
    expect(body).toContain('<Message>bad &lt;key&gt; &amp; &quot;quote&quot; &apos;it&apos;</Message>');
    expect(body).toContain('<Key>&lt;script&gt;&amp;</Key>');
    expect(body).toContain('<Resource>/b/&lt;x&gt;&amp;y</Resource>');
    const error = childOf(parseXml(body as string), 'Error');
    expect(textOf(childOf(error, 'Message'))).toBe(`bad <key> & "quote" 'it'`);
    expect(textOf(childOf(error, 'Resource'))).toBe('/b/<x>&y');
  });

  it('gives a HEAD request the status and request id but no body', () => {
    const response = errorResponse(new S3Error('NoSuchKey', 'The specified key does not exist.'), REQUEST_ID, 'HEAD', '/b/k');
    expect(response).toEqual({ status: 404, headers: { 'x-amz-request-id': REQUEST_ID }, body: null, errorCode: 'NoSuchKey' });
  });

  it('turns anything that is not an S3 error into a 500 InternalError that does not reveal it', () => {
    const response = errorResponse(new Error('secret connection string postgres://u:p@h'), REQUEST_ID, 'GET', '/b/k');
    expect(response.status).toBe(500);
    expect(response.body).toContain('<Code>InternalError</Code>');
    expect(response.body).toContain('<Message>We encountered an internal error. Please try again.</Message>');
    expect(response.body).not.toContain('postgres');
  });

  it('turns a thrown non-error into a 500 InternalError, with no body for HEAD', () => {
    expect(errorResponse('boom', REQUEST_ID, 'GET', '/').status).toBe(500);
    expect(errorResponse(undefined, REQUEST_ID, 'HEAD', '/')).toEqual({ status: 500, headers: { 'x-amz-request-id': REQUEST_ID }, body: null, errorCode: 'InternalError' });
  });

  it.each<[ConstructorParameters<typeof S3Error>[0], number]>([
    ['AccessDenied', 403],
    ['InvalidAccessKeyId', 403],
    ['SignatureDoesNotMatch', 403],
    ['RequestTimeTooSkewed', 403],
    ['AuthorizationHeaderMalformed', 400],
    ['AuthorizationQueryParametersError', 400],
    ['InvalidToken', 400],
    ['ExpiredToken', 400],
    ['NoSuchBucket', 404],
    ['InvalidRequest', 400],
    ['EntityTooLarge', 400],
    ['MalformedXML', 400],
    ['BadDigest', 400],
    ['XAmzContentSHA256Mismatch', 400],
    ['NotImplemented', 501],
    ['ServiceUnavailable', 503],
    ['GatewayTimeout', 504],
  ])('answers %s with status %i, as decided', (code, status) => {
    expect(errorResponse(new S3Error(code, 'm'), REQUEST_ID, 'GET', '/').status).toBe(status);
  });
});

describe('xmlResponse, s3Xml and emptyResponse', () => {
  it('xmlResponse sets the content type, no-transform and the request id, and lets extra headers add to them', () => {
    expect(xmlResponse(201, '<x/>', REQUEST_ID, { etag: '"e"' })).toEqual({
      status: 201,
      headers: { 'content-type': 'application/xml', 'cache-control': 'no-transform', 'x-amz-request-id': REQUEST_ID, etag: '"e"' },
      body: '<x/>',
    });
  });

  it('s3Xml answers 200 with a document in the S3 namespace', () => {
    const response = s3Xml('ListAllMyBucketsResult', { Buckets: { Bucket: [{ Name: 'a' }, { Name: 'b' }] } }, REQUEST_ID);
    expect(S3_XMLNS).toBe('http://s3.amazonaws.com/doc/2006-03-01/');
    expect(response.status).toBe(200);
    expect(response.headers['x-amz-request-id']).toBe(REQUEST_ID);
    expect(response.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<ListAllMyBucketsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        '<Buckets><Bucket><Name>a</Name></Bucket><Bucket><Name>b</Name></Bucket></Buckets></ListAllMyBucketsResult>',
    );
  });

  it('emptyResponse has no body and carries the request id', () => {
    expect(emptyResponse(204, REQUEST_ID, { 'x-amz-version-id': 'v' })).toEqual({
      status: 204,
      headers: { 'x-amz-request-id': REQUEST_ID, 'x-amz-version-id': 'v' },
      body: null,
    });
  });
});

describe('newRequestId', () => {
  it('is 16 upper-case hex characters, different each time', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newRequestId()));
    for (const id of ids) expect(id).toMatch(/^[0-9A-F]{16}$/);
    expect(ids.size).toBe(100);
  });
});
