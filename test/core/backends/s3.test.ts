import { S3Store, backendError } from '../../../functions/core/backends/s3';
import type { S3Backend } from '../../../functions/core/config/types';
import { isRewriteBody, type ProxyResponse } from '../../../functions/core/http';

/**
 * A backend's S3 error document, as the client gets it: nothing that names the backend bucket, its
 * endpoint, its owner or `backend_prefix`; the key in the virtual key space.
 */

const BACKEND: S3Backend = {
  type: 's3',
  endpoint: 'http://rgw.internal:7480',
  bucketName: 'tenant-store',
  region: 'us-east-1',
  backendPrefix: 'tenant-a/',
  auth: { type: 'anonymous' },
};
const store = new S3Store(BACKEND, { client: () => Promise.reject(new Error('not used')), now: () => 0, credentials: async () => undefined });
const headers = new Headers({ 'content-type': 'application/xml', 'content-length': '230', 'x-amz-request-id': 'tx-backend' });

function rewritten(status: number, body: string): { response: ProxyResponse; xml: string } {
  const response = store.errorResponse(status, headers, new TextEncoder().encode(body), 'GATEWAYREQ', '/virtual/a.txt');
  return { response, xml: String(response.body) };
}

describe('S3Store.errorResponse', () => {
  it('rewrites what RGW answers for a missing key: S3\'s message for the empty one, no BucketName, HostId or backend request id', () => {
    const { response, xml } = rewritten(
      404,
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message></Message><BucketName>tenant-store</BucketName><RequestId>tx00000f90f</RequestId><HostId>100d-default-default</HostId></Error>',
    );
    expect(response.status).toBe(404);
    expect(xml).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Resource>/virtual/a.txt</Resource><RequestId>GATEWAYREQ</RequestId></Error>');
    expect(response.headers['x-amz-request-id']).toBe('GATEWAYREQ');
    expect(response.headers['content-length']).toBeUndefined();
  });

  it('maps Key into the virtual key space and drops one outside it', () => {
    expect(rewritten(404, '<Error><Code>NoSuchKey</Code><Key>tenant-a/a.txt</Key></Error>').xml).toContain('<Key>a.txt</Key>');
    expect(rewritten(404, '<Error><Code>NoSuchKey</Code><Key>other/a.txt</Key></Error>').xml).not.toContain('<Key>');
  });

  it('GIVEN RGW\'s message-less InvalidPart (a part missing from a completed upload) THEN S3\'s words for it', () => {
    expect(rewritten(400, '<Error><Code>InvalidPart</Code><Message></Message></Error>').xml).toContain("<Message>One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not have matched the part&apos;s entity tag.</Message>");
  });

  it('GIVEN no message for a code S3 has no words for here (or one named like an object property) THEN it says the backend answered that code', () => {
    expect(rewritten(400, '<Error><Code>InvalidArgument</Code></Error>').xml).toContain('<Message>The backend answered InvalidArgument</Message>');
    expect(rewritten(400, '<Error><Code>constructor</Code><Message></Message></Error>').xml).toContain('<Message>The backend answered constructor</Message>');
  });

  it('replaces a message, and drops a detail, that names the backend bucket, endpoint, prefix or an ARN', () => {
    const aws = rewritten(
      403,
      '<Error><Code>AccessDenied</Code><Message>User: arn:aws:iam::123456789012:user/gw is not authorized to perform: s3:GetObject on resource: "arn:aws:s3:::tenant-store/tenant-a/a.txt"</Message></Error>',
    ).xml;
    expect(aws).toContain('<Message>The backend answered AccessDenied</Message>');
    expect(aws).not.toMatch(/tenant|arn:|123456789012/);
    const copy = rewritten(400, '<Error><Code>InvalidArgument</Code><Message>Invalid copy source</Message><ArgumentName>x-amz-copy-source</ArgumentName><ArgumentValue>/tenant-store/tenant-a/s.txt</ArgumentValue></Error>').xml;
    expect(copy).toContain('<ArgumentName>x-amz-copy-source</ArgumentName>');
    expect(copy).not.toContain('ArgumentValue');
  });

  it('a backend redirect names neither the backend\'s address nor its bucket, in the body or Location', () => {
    const redirect = new Headers({ location: 'http://tenant-store.rgw.internal:7480/tenant-a/a.txt', 'x-amz-request-id': 'tx' });
    const response = store.errorResponse(301, redirect, new TextEncoder().encode('<Error><Code>PermanentRedirect</Code><Endpoint>rgw.internal:7480</Endpoint><Bucket>tenant-store</Bucket></Error>'), 'R', '/virtual/a.txt');
    expect(response.status).toBe(301);
    expect(response.headers.location).toBeUndefined();
    expect(String(response.body)).not.toMatch(/rgw\.internal|tenant-store/);
  });

  it('keeps details that describe the request', () => {
    expect(rewritten(412, '<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-Match</Condition></Error>').xml).toContain(
      '<Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-Match</Condition>',
    );
  });

  it('answers an unreadable body with the code for the status', () => {
    expect(rewritten(503, '<html>busy</html>').xml).toContain('<Code>SlowDown</Code>');
    expect(rewritten(500, '').xml).toContain('<Code>InternalError</Code>');
  });

  it('a forwarded error is read and rewritten; a success or a HEAD error streams through as it is', async () => {
    const forward = await store.forwardObject({ method: 'GET', key: 'a.txt', headers: {}, requestId: 'R', resource: '/virtual/a.txt' });
    const failed = forward.respond(404, headers);
    expect(isRewriteBody(failed)).toBe(true);
    if (isRewriteBody(failed)) expect(String(failed.rewrite(new TextEncoder().encode('<Error><Code>NoSuchKey</Code><BucketName>tenant-store</BucketName></Error>')).body)).not.toContain('tenant-store');
    expect(isRewriteBody(forward.respond(307, headers))).toBe(true);
    expect(isRewriteBody(forward.respond(200, headers))).toBe(false);
    expect(isRewriteBody(forward.respond(304, headers))).toBe(false);
    const head = await store.forwardObject({ method: 'HEAD', key: 'a.txt', headers: {}, requestId: 'R' });
    expect(isRewriteBody(head.respond(404, headers))).toBe(false);
  });
});

describe('backendError: the error in a document the gateway read itself', () => {
  it('GIVEN an S3 code THEN that code, with the backend\'s message', () => {
    expect(backendError(404, '<Error><Code>NoSuchUpload</Code><Message>gone</Message></Error>')).toMatchObject({ code: 'NoSuchUpload', status: 404, message: 'gone' });
  });

  it.each(['constructor', '__proto__', 'toString', 'Unheard'])('GIVEN the code %j, which is no S3 code THEN 502 BadGateway naming it', (code) => {
    expect(backendError(400, `<Error><Code>${code}</Code></Error>`)).toMatchObject({ code: 'BadGateway', status: 502, message: `The backend answered 400 ${code}` });
  });
});
