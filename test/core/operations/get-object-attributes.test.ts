import { attributes, attributesAnswer, requestedAttributes, type AttributesRead } from '../../../functions/core/operations/get-object-attributes';
import { errorResponse } from '../../../functions/core/responses';
import { S3Error } from '../../../functions/core/errors';

/**
 * GetObjectAttributes reads the attributes a client names and answers them from the store's HEAD. Its
 * answers through every runtime and store: test/e2e/read.test.ts and the store contract.
 */

describe('requestedAttributes: x-amz-object-attributes', () => {
  it('reads the comma-separated names, with spaces around them', () => {
    expect([...requestedAttributes('ETag, ObjectSize,StorageClass')]).toEqual(['ETag', 'ObjectSize', 'StorageClass']);
  });

  it.each([null, '', ' , '])('refuses a missing or empty header (%p) with InvalidArgument', (header) => {
    expect(() => requestedAttributes(header)).toThrow(expect.objectContaining({ code: 'InvalidArgument', message: expect.stringContaining('either missing or empty') }));
  });

  it.each(['Colour', 'etag', 'ETag,,ObjectSize'])('refuses a name S3 does not know (%p) with InvalidArgument', (header) => {
    expect(() => requestedAttributes(header)).toThrow(expect.objectContaining({ code: 'InvalidArgument', status: 400, message: 'Invalid attribute name specified.' }));
  });
});

describe('attributes: the answer from a HEAD\'s headers', () => {
  const all = requestedAttributes('ETag,Checksum,ObjectParts,StorageClass,ObjectSize');

  it('writes the ETag without quotes and STANDARD where HEAD names no storage class; Checksum has nothing to show', () => {
    expect(attributes({ etag: '"9dd4e461268c8034f5c8564e155c67a6"', 'content-length': '42' }, all)).toEqual({
      ETag: '9dd4e461268c8034f5c8564e155c67a6',
      ObjectParts: undefined,
      StorageClass: 'STANDARD',
      ObjectSize: 42,
    });
  });

  it('counts the parts of an object uploaded in parts, from its ETag', () => {
    const out = attributes({ etag: '"0123456789abcdef0123456789abcdef-12"', 'content-length': '5', 'x-amz-storage-class': 'STANDARD_IA' }, all);
    expect(out).toMatchObject({ ETag: '0123456789abcdef0123456789abcdef-12', ObjectParts: { PartsCount: 12 }, StorageClass: 'STANDARD_IA' });
  });

  it('shows only the attributes asked for', () => {
    expect(attributes({ etag: '"e-3"', 'content-length': '5' }, requestedAttributes('ObjectSize'))).toEqual({ ETag: undefined, ObjectParts: undefined, StorageClass: undefined, ObjectSize: 5 });
  });
});

describe('attributesAnswer: the store\'s answer to the HEAD as the client\'s', () => {
  const read: AttributesRead = { wanted: requestedAttributes('ETag,ObjectSize'), requestId: 'REQ', resource: '/b/k?attributes' };
  const text = (body: unknown): string => (typeof body === 'string' ? body : new TextDecoder().decode(body as Uint8Array));

  it('writes the document from a 200, with Last-Modified and the version id', () => {
    const out = attributesAnswer({ status: 200, headers: { etag: '"abc"', 'content-length': '3', 'last-modified': 'Mon, 07 Dec 2026 12:00:00 GMT', 'x-amz-version-id': 'v1', 'x-amz-meta-a': 'x' } }, read);
    expect(out.status).toBe(200);
    expect(out.headers).toMatchObject({ 'last-modified': 'Mon, 07 Dec 2026 12:00:00 GMT', 'x-amz-version-id': 'v1' });
    expect(out.headers['x-amz-meta-a']).toBeUndefined();
    expect(text(out.body)).toContain('<GetObjectAttributesResponse xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><ETag>abc</ETag><ObjectSize>3</ObjectSize></GetObjectAttributesResponse>');
  });

  it('answers a bodiless 404 as NoSuchKey in XML, NoSuchVersion for a version, keeping a delete marker\'s headers', () => {
    const gone = attributesAnswer({ status: 404, headers: { 'x-amz-delete-marker': 'true', 'x-amz-version-id': 'dm1', 'last-modified': 'x' } }, read);
    expect([gone.status, gone.errorCode]).toEqual([404, 'NoSuchKey']);
    expect(gone.headers).toMatchObject({ 'x-amz-delete-marker': 'true', 'x-amz-version-id': 'dm1' });
    expect(gone.headers['last-modified']).toBeUndefined();
    expect(text(gone.body)).toContain('<Resource>/b/k?attributes</Resource>');
    expect(attributesAnswer({ status: 404, headers: {} }, { ...read, versionId: 'v9' }).errorCode).toBe('NoSuchVersion');
  });

  it('answers a delete marker\'s version (405 to a HEAD) as MethodNotAllowed, and other statuses by S3\'s code for them', () => {
    expect([405, 403, 400, 503].map((status) => attributesAnswer({ status, headers: {} }, read).errorCode)).toEqual(['MethodNotAllowed', 'AccessDenied', 'InvalidArgument', 'SlowDown']);
  });

  it('keeps the code a store already named, with a body for the GET the client sent', () => {
    const built = errorResponse(new S3Error('NoSuchBucket', 'The specified bucket does not exist'), 'REQ', 'HEAD', '/b/k');
    const out = attributesAnswer(built, read);
    expect([out.status, out.errorCode]).toEqual([404, 'NoSuchBucket']);
    expect(text(out.body)).toContain('<Code>NoSuchBucket</Code>');
  });
});
