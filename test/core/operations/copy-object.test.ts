import { backendCopySource, parseCopySource } from '../../../functions/core/operations/copy-object';
import type { S3Backend } from '../../../functions/core/config/types';
import { s3CodeOf } from '../../support/thrown';

const backend = (bucketName: string, backendPrefix = ''): S3Backend => ({
  type: 's3',
  endpoint: 'http://127.0.0.1:9000',
  bucketName,
  region: 'us-east-1',
  backendPrefix,
  auth: { type: 'anonymous' },
});


describe('parseCopySource', () => {
  it('reads /bucket/key and bucket/key alike', () => {
    expect(parseCopySource('/photos/2024/a.jpg')).toEqual({ bucket: 'photos', key: '2024/a.jpg' });
    expect(parseCopySource('photos/2024/a.jpg')).toEqual({ bucket: 'photos', key: '2024/a.jpg' });
  });

  it('URL-decodes bucket and key, keeping a plus a plus', () => {
    expect(parseCopySource('/b/a%20b%2Fc%3Fd%23e+f%25')).toEqual({ bucket: 'b', key: 'a b/c?d#e+f%' });
    expect(parseCopySource('/b/%C3%BC%F0%9F%98%80')).toEqual({ bucket: 'b', key: 'ü😀' });
  });

  it('takes ?versionId= (decoded); an empty one is absent', () => {
    expect(parseCopySource('/b/k?versionId=abc%2Bdef')).toEqual({ bucket: 'b', key: 'k', versionId: 'abc+def' });
    expect(parseCopySource('/b/k?versionId=')).toEqual({ bucket: 'b', key: 'k' });
  });

  it('refuses a missing key, other parameters and bad encoding with InvalidArgument', () => {
    for (const raw of ['/b', 'b/', '/b/', '', '/b/k?acl', '/b/k?versionId=1&x=2', '/b/%E0%A4%A']) {
      expect(s3CodeOf(() => parseCopySource(raw))).toBe('InvalidArgument');
    }
  });

  it('refuses keys the gateway refuses everywhere with InvalidRequest', () => {
    for (const raw of ['/b/a/../c', '/b/a//c', '/b/a/%2e%2e/c', '/b/dir/', '/b/a%01']) {
      expect(s3CodeOf(() => parseCopySource(raw))).toBe('InvalidRequest');
    }
  });
});

describe('backendCopySource', () => {
  it('names the backend bucket and the key under backend_prefix, RFC 3986-encoded', () => {
    expect(backendCopySource({ bucket: 'virtual', key: 'a b/ü+*.txt' }, backend('real', 'tenant-a/'))).toBe('/real/tenant-a/a%20b/%C3%BC%2B%2A.txt');
  });

  it('carries the version', () => {
    expect(backendCopySource({ bucket: 'v', key: 'k', versionId: 'x+y/z' }, backend('real'))).toBe('/real/k?versionId=x%2By%2Fz');
  });
});
