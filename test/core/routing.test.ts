import { S3Error } from '../../functions/core/errors';
import { Query } from '../../functions/core/query';
import { parsePath, routeS3, type Operation } from '../../functions/core/routing';

/** Routes `METHOD /path?query` as a client would send it, with optional headers. */
function route(method: string, target: string, headers: Record<string, string> = {}): Operation {
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  const rawQuery = q < 0 ? '' : target.slice(q + 1);
  return routeS3(method, rawPath, new Query(rawQuery), new Headers(headers));
}

/** The S3 error a request is refused with; fails the test when it is routed. */
function refusal(method: string, target: string, headers: Record<string, string> = {}): S3Error {
  try {
    route(method, target, headers);
  } catch (err) {
    expect(err).toBeInstanceOf(S3Error);
    return err as S3Error;
  }
  throw new Error(`${method} ${target} was routed`);
}

const COPY = { 'x-amz-copy-source': '/src/a.txt' };

describe('routeS3: the operations of the specification', () => {
  it.each<[string, string, Record<string, string>, Operation]>([
    ['GET', '/', {}, { name: 'ListBuckets' }],
    ['GET', '/b', {}, { name: 'ListObjects', bucket: 'b', version: 1 }],
    ['GET', '/b/', {}, { name: 'ListObjects', bucket: 'b', version: 1 }],
    ['GET', '/b?list-type=1&prefix=x', {}, { name: 'ListObjects', bucket: 'b', version: 1 }],
    ['GET', '/b?list-type=2&prefix=a%2F&delimiter=%2F', {}, { name: 'ListObjects', bucket: 'b', version: 2 }],
    ['HEAD', '/b', {}, { name: 'HeadBucket', bucket: 'b' }],
    ['GET', '/b?location', {}, { name: 'GetBucketLocation', bucket: 'b' }],
    ['GET', '/b?versioning', {}, { name: 'GetBucketVersioning', bucket: 'b' }],
    ['GET', '/b?uploads', {}, { name: 'ListMultipartUploads', bucket: 'b' }],
    ['POST', '/b?delete', {}, { name: 'DeleteObjects', bucket: 'b' }],
    ['POST', '/b', {}, { name: 'PostObject', bucket: 'b' }],
    ['POST', '/b?delete=', {}, { name: 'DeleteObjects', bucket: 'b' }],
    ['GET', '/b/k', {}, { name: 'GetObject', bucket: 'b', key: 'k', versionId: undefined }],
    ['GET', '/b/k?versionId=v1', {}, { name: 'GetObject', bucket: 'b', key: 'k', versionId: 'v1' }],
    ['HEAD', '/b/k', {}, { name: 'HeadObject', bucket: 'b', key: 'k', versionId: undefined }],
    ['HEAD', '/b/k?versionId=v1', {}, { name: 'HeadObject', bucket: 'b', key: 'k', versionId: 'v1' }],
    ['PUT', '/b/k', {}, { name: 'PutObject', bucket: 'b', key: 'k' }],
    ['PUT', '/b/k', COPY, { name: 'CopyObject', bucket: 'b', key: 'k', copySource: '/src/a.txt' }],
    ['DELETE', '/b/k', {}, { name: 'DeleteObject', bucket: 'b', key: 'k', versionId: undefined }],
    ['DELETE', '/b/k?versionId=v1', {}, { name: 'DeleteObject', bucket: 'b', key: 'k', versionId: 'v1' }],
    ['PUT', '/b', {}, { name: 'CreateBucket', bucket: 'b' }],
    ['GET', '/b?versions', {}, { name: 'ListObjectVersions', bucket: 'b' }],
    ['GET', '/b?versions&prefix=a&key-marker=k&version-id-marker=v', {}, { name: 'ListObjectVersions', bucket: 'b' }],
    ['GET', '/b/k?tagging', {}, { name: 'GetObjectTagging', bucket: 'b', key: 'k', versionId: undefined }],
    ['PUT', '/b/k?tagging', {}, { name: 'PutObjectTagging', bucket: 'b', key: 'k', versionId: undefined }],
    ['DELETE', '/b/k?tagging&versionId=v2', {}, { name: 'DeleteObjectTagging', bucket: 'b', key: 'k', versionId: 'v2' }],
    ['PUT', '/b/k?partNumber=2&uploadId=u1', COPY, { name: 'UploadPartCopy', bucket: 'b', key: 'k', uploadId: 'u1', partNumber: 2, copySource: '/src/a.txt' }],
    ['POST', '/b/k?uploads', {}, { name: 'CreateMultipartUpload', bucket: 'b', key: 'k' }],
    ['PUT', '/b/k?partNumber=3&uploadId=u1', {}, { name: 'UploadPart', bucket: 'b', key: 'k', uploadId: 'u1', partNumber: 3 }],
    ['POST', '/b/k?uploadId=u1', {}, { name: 'CompleteMultipartUpload', bucket: 'b', key: 'k', uploadId: 'u1' }],
    ['DELETE', '/b/k?uploadId=u1', {}, { name: 'AbortMultipartUpload', bucket: 'b', key: 'k', uploadId: 'u1' }],
    ['GET', '/b/k?uploadId=u1', {}, { name: 'ListParts', bucket: 'b', key: 'k', uploadId: 'u1' }],
  ])('%s %s routes to the operation', (method, target, headers, expected) => {
    expect(route(method, target, headers)).toEqual(expected);
  });

  it('treats an empty versionId as absent', () => {
    expect(route('GET', '/b/k?versionId=')).toEqual({ name: 'GetObject', bucket: 'b', key: 'k', versionId: undefined });
    expect(route('HEAD', '/b/k?versionId')).toEqual({ name: 'HeadObject', bucket: 'b', key: 'k', versionId: undefined });
  });

  it('decodes a percent-encoded versionId', () => {
    expect(route('GET', '/b/k?versionId=3%2Fxyz%3D')).toMatchObject({ versionId: '3/xyz=' });
  });

  it('keeps the versionId of DeleteObject, which deletes exactly that version (the spec ignores it: ADR 0012)', () => {
    expect(route('DELETE', '/b/k?versionId=v1')).toMatchObject({ name: 'DeleteObject', versionId: 'v1' });
    expect(route('DELETE', '/b/k?versionId=')).toMatchObject({ name: 'DeleteObject', versionId: undefined });
  });

  it('passes the copy source header through undecoded, including its versionId', () => {
    expect(route('PUT', '/b/k', { 'x-amz-copy-source': 'src/a%20b.txt?versionId=v9' })).toEqual({
      name: 'CopyObject',
      bucket: 'b',
      key: 'k',
      copySource: 'src/a%20b.txt?versionId=v9',
    });
  });

  it('routes a list-type other than 1 or 2 to InvalidArgument', () => {
    const err = refusal('GET', '/b?list-type=3');
    expect(err.code).toBe('InvalidArgument');
    expect(err.status).toBe(400);
  });
});

describe('routeS3: parameters that are not sub-resources are ignored', () => {
  it.each<[string, string, Operation]>([
    ['GET', '/b/k?x-id=GetObject', { name: 'GetObject', bucket: 'b', key: 'k', versionId: undefined }],
    ['PUT', '/b/k?x-id=PutObject', { name: 'PutObject', bucket: 'b', key: 'k' }],
    ['POST', '/b?delete&x-id=DeleteObjects', { name: 'DeleteObjects', bucket: 'b' }],
    ['POST', '/b/k?uploads&x-id=CreateMultipartUpload', { name: 'CreateMultipartUpload', bucket: 'b', key: 'k' }],
    ['PUT', '/b/k?x-id=UploadPart&partNumber=1&uploadId=u', { name: 'UploadPart', bucket: 'b', key: 'k', uploadId: 'u', partNumber: 1 }],
    ['GET', '/b?list-type=2&x-id=ListObjectsV2', { name: 'ListObjects', bucket: 'b', version: 2 }],
    ['GET', '/b/k?attributes', { name: 'GetObjectAttributes', bucket: 'b', key: 'k', versionId: undefined }],
    ['GET', '/b/k?attributes&versionId=v1', { name: 'GetObjectAttributes', bucket: 'b', key: 'k', versionId: 'v1' }],
    ['GET', '/b/k?response-content-type=text%2Fplain&partNumber=2', { name: 'GetObject', bucket: 'b', key: 'k', versionId: undefined, partNumber: 2 }],
    [
      'GET',
      '/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AK%2F20240101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20240101T000000Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host&X-Amz-Signature=abc',
      { name: 'GetObject', bucket: 'b', key: 'k', versionId: undefined },
    ],
  ])('%s %s', (method, target, expected) => {
    expect(route(method, target)).toEqual(expected);
  });
});

describe('routeS3: requests the gateway does not serve are NotImplemented, never misrouted', () => {
  it.each<[string, string, Record<string, string>]>([
    ['GET', '/b?acl', {}],
    ['GET', '/b?policy', {}],
    ['GET', '/b?tagging', {}],
    ['GET', '/b?delete', {}],
    ['PUT', '/b?versioning', {}],
    ['GET', '/b?versions&list-type=2&uploads', {}],
    ['PUT', '/b?tagging', {}],
    ['HEAD', '/b/k?tagging', {}],
    ['POST', '/b/k?tagging', {}],
    ['PUT', '/b/k?tagging&acl', {}],
    ['DELETE', '/b', {}],
    ['POST', '/b?delete&uploads', {}],
    ['HEAD', '/b?acl', {}],
    ['HEAD', '/', {}],
    ['PUT', '/', {}],
    ['GET', '/?acl', {}],
    ['POST', '/b/k', {}],
    ['POST', '/b/k?select&select-type=2', {}],
    ['POST', '/b/k?restore', {}],
    ['GET', '/b/k?acl', {}],
    ['HEAD', '/b/k?attributes', {}],
    ['GET', '/b/k?attributes&tagging', {}],
    ['GET', '/b/k?torrent', {}],
    ['HEAD', '/b/k?uploadId=u', {}],
    ['PUT', '/b/k?acl', {}],
    ['PUT', '/b/k?retention', {}],
    ['PUT', '/b/k?partNumber=1', {}],
    ['PUT', '/b/k?uploads', {}],
    ['PATCH', '/b/k', {}],
    ['OPTIONS', '/b/k', {}],
  ])('%s %s is 501 NotImplemented', (method, target, headers) => {
    const err = refusal(method, target, headers);
    expect(err.code).toBe('NotImplemented');
    expect(err.status).toBe(501);
  });

  it('refuses a copy-source PUT with an unserved sub-resource instead of copying', () => {
    expect(refusal('PUT', '/b/k?acl', COPY).code).toBe('NotImplemented');
  });

  it('refuses a copy-source PUT with a part number but no upload id instead of copying', () => {
    expect(refusal('PUT', '/b/k?partNumber=1', COPY).code).toBe('NotImplemented');
  });

  it('names the refused sub-resource in the message', () => {
    expect(refusal('GET', '/b?policy').message).toBe('GET on the bucket sub-resource ?policy is not implemented by this gateway');
    expect(refusal('POST', '/b/k').message).toBe('POST on this object path is not implemented by this gateway');
  });

  it('names several sub-resources in one order, whatever order the query has', () => {
    expect(refusal('GET', '/b?versions&acl').message).toBe('GET on the bucket sub-resource ?acl&versions is not implemented by this gateway');
    expect(refusal('GET', '/b?acl&versions').message).toBe('GET on the bucket sub-resource ?acl&versions is not implemented by this gateway');
  });
});

describe('routeS3: part numbers', () => {
  it.each(['1', '10000', '01'])('accepts partNumber=%s', (n) => {
    expect(route('PUT', `/b/k?partNumber=${n}&uploadId=u`)).toMatchObject({ name: 'UploadPart', partNumber: Number(n) });
  });

  it.each(['0', '10001', '-1', '1.5', '1e3', 'one', '', ' 1', '0x10'])('refuses partNumber=%j with 400 InvalidArgument', (n) => {
    const err = refusal('PUT', `/b/k?partNumber=${encodeURIComponent(n)}&uploadId=u`);
    expect(err.code).toBe('InvalidArgument');
    expect(err.status).toBe(400);
  });

  it('refuses a missing partNumber value', () => {
    expect(refusal('PUT', '/b/k?partNumber&uploadId=u').code).toBe('InvalidArgument');
  });

  it.each(['GET', 'HEAD'])('reads one part of an object on %s, with its number checked as an upload\'s is', (method) => {
    expect(route(method, '/b/k?partNumber=1')).toMatchObject({ key: 'k', partNumber: 1 });
    expect(route(method, '/b/k?partNumber=10000&versionId=v')).toMatchObject({ partNumber: 10000, versionId: 'v' });
    expect(refusal(method, '/b/k?partNumber=0').code).toBe('InvalidArgument');
    expect(refusal(method, '/b/k?partNumber=10001').code).toBe('InvalidArgument');
    expect(refusal(method, '/b/k?partNumber=x').message).toBe('Part number must be an integer between 1 and 10000, inclusive');
  });

  it('treats an empty partNumber on a read as absent, as an empty versionId', () => {
    expect(route('GET', '/b/k?partNumber=')).toEqual({ name: 'GetObject', bucket: 'b', key: 'k', versionId: undefined });
    expect(route('HEAD', '/b/k?partNumber')).toEqual({ name: 'HeadObject', bucket: 'b', key: 'k', versionId: undefined });
  });
});

describe('routeS3: keys come from the raw path, decoded once', () => {
  it('keeps an encoded slash inside a key', () => {
    expect(route('GET', '/b/dir%2Ffile.txt')).toMatchObject({ bucket: 'b', key: 'dir/file.txt' });
  });

  it('keeps every slash after the bucket as part of the key', () => {
    expect(route('GET', '/b/a/b/c.txt')).toMatchObject({ bucket: 'b', key: 'a/b/c.txt' });
  });

  it('leaves a plus sign a plus, and decodes %20 as a space', () => {
    expect(route('PUT', '/b/a+b%20c')).toMatchObject({ key: 'a+b c' });
  });

  it('decodes UTF-8 escapes to unicode', () => {
    expect(route('GET', '/b/%C3%A9t%C3%A9/%F0%9F%98%80.txt')).toMatchObject({ key: 'été/😀.txt' });
  });

  it('decodes escapes exactly once', () => {
    expect(route('GET', '/b/100%2525.txt')).toMatchObject({ key: '100%25.txt' });
    expect(route('GET', '/b/100%25.txt')).toMatchObject({ key: '100%.txt' });
  });

  it('does not validate keys: a dot-dot segment reaches the operation, which refuses it', () => {
    expect(route('GET', '/b/a/%2E%2E/c')).toMatchObject({ key: 'a/../c' });
  });

  it('decodes the bucket name too', () => {
    expect(route('GET', '/my%2Dbucket/k')).toMatchObject({ bucket: 'my-bucket' });
  });

  it.each(['/b/%', '/b/abc%2', '/b/%ZZ', '/b/%C3', '/b/%C0%AF', '/b/%ED%A0%80', '/%ZZ'])(
    'refuses the malformed escape in %s with 400 InvalidRequest',
    (path) => {
      const err = refusal('GET', path);
      expect(err.code).toBe('InvalidRequest');
      expect(err.status).toBe(400);
    },
  );
});

describe('parsePath', () => {
  it('reads the root as no bucket and no key', () => {
    expect(parsePath('/')).toEqual({});
  });

  it('reads a bucket with and without a trailing slash', () => {
    expect(parsePath('/b')).toEqual({ bucket: 'b' });
    expect(parsePath('/b/')).toEqual({ bucket: 'b' });
  });

  it('splits on the first slash only, so a key may start with a slash', () => {
    expect(parsePath('/b//k')).toEqual({ bucket: 'b', key: '/k' });
    expect(parsePath('/b/k/')).toEqual({ bucket: 'b', key: 'k/' });
  });

  it('refuses a path that does not start with a slash', () => {
    expect(() => parsePath('b/k')).toThrow(expect.objectContaining({ code: 'InvalidRequest' }));
  });
});
