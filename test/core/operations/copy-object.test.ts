import { backendCopySource, parseCopySource } from '../../../functions/core/operations/copy-object';
import type { S3Backend } from '../../../functions/core/config/types';
import { s3CodeOf } from '../../support/thrown';
import { parseConfig } from '../../../functions/core/config/parse';
import { ACTIONS } from '../../../functions/core/config/types';
import { Gateway } from '../../../functions/core/gateway';
import type { BackendRequest } from '../../../functions/core/http';
import { azuriteOptions, bucketToml, credentialToml, everywhere, s3Options } from '../../support/config-toml';
import { backendRecorder } from '../../support/backend-recorder';
import { proxyRequest } from '../../support/proxy-request';
import { smithySigner, type TestCredentials } from '../sigv4/smithy';

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

/**
 * CopyObject on Azure and GCS buckets, through Gateway.handle in process: what the handler checks before the
 * store copies, answered as S3 answers it, with nothing sent to a backend. The backends are stand-ins
 * (test/support/backend-recorder.ts); the copies themselves run against Azurite and the GCS emulator in
 * test/e2e/ (store-contract.ts).
 */
describe('CopyObject on a bucket that is not S3', () => {
  const HOST = 'gateway.test';
  const KEYS: TestCredentials = { accessKeyId: 'ALLKEY00000000000000', secretAccessKey: 'all/secret/key/000000000000000000000000' };
  const CONFIG = [
    bucketToml({ name: 'data', backend_type: 's3' }, s3Options('http://backend.test:9000', 'data', { accessKeyId: 'BACKENDKEY', secretAccessKey: 'backend-secret' })),
    bucketToml({ name: 'blobs', backend_type: 'azure' }, azuriteOptions('http://azure.test:10000/devstoreaccount1', 'blobs')),
    bucketToml({ name: 'other-account', backend_type: 'azure' }, { ...azuriteOptions('http://azure.test:10000/devstoreaccount1', 'blobs'), account_name: 'other' }),
    bucketToml({ name: 'cloud', backend_type: 'gcs' }, { bucket_name: 'cloud', endpoint: 'http://gcs.test:4443', api: 'json' }),
    credentialToml(KEYS, { principal_name: 'all' }, [everywhere([...ACTIONS])]),
  ].join('\n');

  async function copy(path: string, headers: Record<string, string>): Promise<{ status: number; code?: string; body: string; sent: number }> {
    const seen: BackendRequest[] = [];
    const gateway = new Gateway(parseConfig(CONFIG, {}), { client: backendRecorder(seen), now: () => Date.UTC(2026, 11, 1) });
    const all = { host: HOST, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...headers };
    const signed = await smithySigner(KEYS, 'us-east-1').sign({ method: 'PUT', protocol: 'http:', hostname: HOST, path, query: {}, headers: all }, { signingDate: new Date(Date.UTC(2026, 11, 1)) });
    const result = await gateway.handle(proxyRequest('PUT', path, '', signed.headers));
    if (result.kind !== 'response') throw new Error(`a ${result.kind}, not a response`);
    const body = typeof result.response.body === 'string' ? result.response.body : new TextDecoder().decode(result.response.body as Uint8Array);
    return { status: result.response.status, code: /<Code>([^<]*)<\/Code>/.exec(body)?.[1], body, sent: seen.length };
  }

  it.each([
    ['an S3 bucket\'s source', '/blobs/k', { 'x-amz-copy-source': '/data/src' }],
    ['a GCS source', '/blobs/k', { 'x-amz-copy-source': '/cloud/src' }],
    ['a source in another Azure account', '/blobs/k', { 'x-amz-copy-source': '/other-account/src' }],
    ['an Azure source', '/cloud/k', { 'x-amz-copy-source': '/blobs/src' }],
    ['one version of the source', '/blobs/k', { 'x-amz-copy-source': '/blobs/src?versionId=v1' }],
    ['tags', '/cloud/k', { 'x-amz-copy-source': '/cloud/src', 'x-amz-tagging-directive': 'REPLACE', 'x-amz-tagging': 'a=b' }],
    ['object lock', '/blobs/k', { 'x-amz-copy-source': '/blobs/src', 'x-amz-object-lock-legal-hold': 'ON' }],
    ['a KMS key', '/blobs/k', { 'x-amz-copy-source': '/blobs/src', 'x-amz-server-side-encryption': 'aws:kms' }],
  ])('GIVEN %s THEN 501 NotImplemented, and nothing is sent', async (_name, path, headers) => {
    expect(await copy(path, headers)).toMatchObject({ status: 501, code: 'NotImplemented', sent: 0 });
  });

  it.each([
    ['an unknown metadata directive', 'InvalidArgument', '/blobs/k', { 'x-amz-copy-source': '/blobs/src', 'x-amz-metadata-directive': 'copy' }],
    ['an unknown tagging directive', 'InvalidArgument', '/blobs/k', { 'x-amz-copy-source': '/blobs/src', 'x-amz-tagging-directive': 'KEEP' }],
    ['more than 10 tags to replace', 'BadRequest', '/blobs/k', { 'x-amz-copy-source': '/blobs/src', 'x-amz-tagging-directive': 'REPLACE', 'x-amz-tagging': Array.from({ length: 11 }, (_, i) => `k${i}=v`).join('&') }],
    ['a copy onto itself that changes nothing', 'InvalidRequest', '/cloud/k', { 'x-amz-copy-source': '/cloud/k' }],
    ['SSE-C keys for the source', 'InvalidRequest', '/blobs/k', { 'x-amz-copy-source': '/blobs/src', 'x-amz-copy-source-server-side-encryption-customer-algorithm': 'AES256' }],
    ['metadata over 2 KiB', 'MetadataTooLarge', '/blobs/k', { 'x-amz-copy-source': '/blobs/src', 'x-amz-metadata-directive': 'REPLACE', 'x-amz-meta-big': 'x'.repeat(2048) }],
  ])('GIVEN %s THEN 400 %s, and nothing is sent', async (_name, code, path, headers) => {
    expect(await copy(path, headers)).toMatchObject({ status: 400, code, sent: 0 });
  });

  it('GIVEN a copy onto itself with REPLACE, or a tagging directive (on Azure) THEN the store copies, and S3\'s CopyObjectResult answers', async () => {
    for (const [path, headers] of [
      ['/cloud/k', { 'x-amz-copy-source': '/cloud/k', 'x-amz-metadata-directive': 'REPLACE' }],
      ['/blobs/k', { 'x-amz-copy-source': '/blobs/src', 'x-amz-tagging-directive': 'COPY' }],
      ['/blobs/k', { 'x-amz-copy-source': '/blobs/src', 'x-amz-tagging-directive': 'REPLACE', 'x-amz-tagging': 'a=b' }],
    ] as const) {
      const out = await copy(path, headers);
      expect([path, out.status]).toEqual([path, 200]);
      expect(out.body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n?<CopyObjectResult xmlns="http:\/\/s3.amazonaws.com\/doc\/2006-03-01\/"><LastModified>[^<]+Z<\/LastModified><ETag>[^<]*<\/ETag><\/CopyObjectResult>$/);
    }
  });
});
