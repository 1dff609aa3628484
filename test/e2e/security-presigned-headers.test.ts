import { CopyObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Keys } from '../support/clients';
import { RUNTIMES, type RuntimeName } from '../support/gateway';
import { ADMIN, putDirect, readText } from './fixtures';
import { MINE, startOpsBackends, startOpsGateway, type OpsBackends, type OpsGateway } from './s3-ops-fixtures';
import { exists } from './write-fixtures';

/**
 * Presigned URLs whose presigner hoisted `x-amz-*` headers into the query (security review of issue 20):
 * @aws-sdk/s3-request-presigner moves every one but the SSE headers there, so a presigned CopyObject carries
 * `x-amz-copy-source=…` and metadata `x-amz-meta-*=…`. S3 reads such signed parameters as the headers they
 * stand for, and so does the gateway: the presigned copy is a copy (it was once an empty PutObject over the
 * destination), the metadata is stored, and a hoisted checksum is verified. The URLs are executed with plain
 * fetch, as a browser or curl would.
 */
let backends: OpsBackends;

beforeAll(async () => {
  backends = await startOpsBackends();
  await putDirect(backends.direct, 'vers', 'presigned/source.txt', 'the source');
}, 120_000);

afterAll(() => backends?.stop());

describe.each(RUNTIMES)('presigned URLs with hoisted x-amz-* parameters (%s runtime)', (runtime: RuntimeName) => {
  let ops: OpsGateway;
  const key = (name: string): string => `presigned/${runtime}/${name}`;
  const presigner = (keys: Keys, config: Partial<S3ClientConfig> = {}): S3Client =>
    new S3Client({ endpoint: ops.gw.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: keys, ...config });

  beforeAll(async () => {
    ops = await startOpsGateway(runtime, backends);
  }, 60_000);

  afterAll(() => ops?.stop());

  it('a presigned CopyObject copies the source, never writing an empty object over the destination', async () => {
    const client = presigner(ADMIN);
    const url = await getSignedUrl(client, new CopyObjectCommand({ Bucket: 'copies', Key: key('copy.txt'), CopySource: 'vers/presigned/source.txt' }), { expiresIn: 300 });
    expect(new URL(url).searchParams.get('x-amz-copy-source')).toBe('vers/presigned/source.txt');
    const res = await fetch(url, { method: 'PUT' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<CopyObjectResult');
    expect(await readText(backends.direct, 'copies', key('copy.txt'))).toBe('the source');
    client.destroy();
  });

  it('the presigned copy is authorized as a copy: a caller who may not write the destination is refused', async () => {
    const client = presigner(MINE);
    const url = await getSignedUrl(client, new CopyObjectCommand({ Bucket: 'copies', Key: key('refused.txt'), CopySource: 'vers/mine' }), { expiresIn: 300 });
    const res = await fetch(url, { method: 'PUT' });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('<Code>AccessDenied</Code>');
    expect(await exists(backends.direct, 'copies', key('refused.txt'))).toBe(false);
    client.destroy();
  });

  it('a presigned PutObject stores the metadata it was presigned with', async () => {
    const client = presigner(ADMIN, { requestChecksumCalculation: 'WHEN_REQUIRED' });
    const url = await getSignedUrl(client, new PutObjectCommand({ Bucket: 'copies', Key: key('meta.txt'), Metadata: { colour: 'blue' } }), { expiresIn: 300 });
    expect(new URL(url).searchParams.get('x-amz-meta-colour')).toBe('blue');
    const res = await fetch(url, { method: 'PUT', body: 'with metadata' });
    expect(res.status).toBe(200);
    const head = await backends.direct.send(new HeadObjectCommand({ Bucket: 'copies', Key: key('meta.txt') }));
    expect(head.Metadata).toEqual({ colour: 'blue' });
    client.destroy();
  });

  it('a checksum hoisted into the URL is verified against the body, as S3 does: one presigned for an empty body refuses another', async () => {
    // The SDK's default checksum mode computes a CRC32 when presigning, of the (empty) body it had then.
    const client = presigner(ADMIN);
    const url = await getSignedUrl(client, new PutObjectCommand({ Bucket: 'copies', Key: key('checksum.txt') }), { expiresIn: 300 });
    expect(new URL(url).searchParams.get('x-amz-checksum-crc32')).toBe('AAAAAA==');
    const res = await fetch(url, { method: 'PUT', body: 'not empty' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('<Code>BadDigest</Code>');
    expect(await exists(backends.direct, 'copies', key('checksum.txt'))).toBe(false);
    client.destroy();
  });
});
