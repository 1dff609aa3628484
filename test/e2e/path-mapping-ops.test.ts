import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListObjectVersionsCommand,
  ListPartsCommand,
  UploadPartCopyCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { awsCli, jsClient } from '../support/clients';
import { startGateway, TRANSPORT_RUNTIMES, type RunningGateway, type RuntimeName } from '../support/gateway';
import { ADMIN, codeOf, putDirect, readText } from './fixtures';
import { ADDED_ACTIONS, SPEC_ACTIONS, startOpsBackends, type OpsBackends } from './s3-ops-fixtures';

/**
 * With `[path_mapping]` (segments = 2), `acme:widgets` is addressed as the bucket `acme` with keys under
 * `widgets/`. Every answer that names a bucket and key names what the client addressed, never the internal
 * name, which no client can address (security review of issue 20): the multipart answers, and the version and
 * upload listings, which on a client-level bucket serve the one mapped bucket their prefix names.
 */
let backends: OpsBackends;

beforeAll(async () => {
  backends = await startOpsBackends();
  for (const n of [1, 2]) await putDirect(backends.direct, 'vers', 'widgets/doc.txt', `doc ${n}`);
  await putDirect(backends.direct, 'vers', 'gadgets/doc.txt', 'gadget');
}, 120_000);

afterAll(() => backends?.stop());

function config(): string {
  const mapped = (name: string): string => `
[[buckets]]
name = "${name}"
backend_type = "s3"
[buckets.backend_options]
endpoint = "${backends.rgw.endpoint}"
bucket_name = "vers"
backend_prefix = "${name.split(':')[1]}/"
access_key_id = "${backends.rgw.accessKeyId}"
secret_access_key = "${backends.rgw.secretAccessKey}"
`;
  return `
[path_mapping]
segments = 2
${mapped('acme:widgets')}
${mapped('acme:gadgets')}

[[credentials]]
access_key_id = "${ADMIN.accessKeyId}"
secret_access_key = "${ADMIN.secretAccessKey}"
[[credentials.allowed_scopes]]
bucket = "*"
actions = [${[...SPEC_ACTIONS, ...ADDED_ACTIONS].map((a) => `"${a}"`).join(', ')}]
`;
}

describe.each(TRANSPORT_RUNTIMES)('[path_mapping]: answers name the bucket and key the client addressed (%s runtime)', (runtime: RuntimeName) => {
  let gw: RunningGateway;
  let admin: S3Client;
  const key = `widgets/mp/${runtime}.txt`;

  beforeAll(async () => {
    gw = await startGateway(runtime, { config: config() });
    admin = jsClient(gw.endpoint, ADMIN);
  }, 60_000);

  afterAll(async () => {
    admin?.destroy();
    await gw?.stop();
  });

  it('a multipart upload: Create, ListParts, ListMultipartUploads and Complete all say acme and widgets/…', async () => {
    const created = await admin.send(new CreateMultipartUploadCommand({ Bucket: 'acme', Key: key }));
    expect([created.Bucket, created.Key]).toEqual(['acme', key]);
    const part = await admin.send(new UploadPartCommand({ Bucket: 'acme', Key: key, UploadId: created.UploadId, PartNumber: 1, Body: 'one part' }));
    const parts = await admin.send(new ListPartsCommand({ Bucket: 'acme', Key: key, UploadId: created.UploadId }));
    expect([parts.Bucket, parts.Key, parts.Parts?.length]).toEqual(['acme', key, 1]);
    const uploads = await admin.send(new ListMultipartUploadsCommand({ Bucket: 'acme', Prefix: 'widgets/mp/' }));
    expect(uploads.Bucket).toBe('acme');
    expect(uploads.Uploads?.map((u) => [u.Key, u.UploadId])).toContainEqual([key, created.UploadId]);
    const done = await admin.send(
      new CompleteMultipartUploadCommand({ Bucket: 'acme', Key: key, UploadId: created.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] } }),
    );
    expect([done.Bucket, done.Key, done.Location]).toEqual(['acme', key, `/acme/${key}`]);
    expect(await readText(backends.direct, 'vers', `widgets/mp/${runtime}.txt`)).toBe('one part');
  });

  it('aws-cli prints the addressable names too', async () => {
    const run = await awsCli('v2', gw.endpoint, ADMIN, ['s3api', 'create-multipart-upload', '--bucket', 'acme', '--key', `${key}.cli`, '--output', 'json']);
    const out = JSON.parse(run.stdout) as { Bucket: string; Key: string; UploadId: string };
    expect([out.Bucket, out.Key]).toEqual(['acme', `${key}.cli`]);
    await admin.send(new AbortMultipartUploadCommand({ Bucket: 'acme', Key: `${key}.cli`, UploadId: out.UploadId }));
  });

  it('a part copy between mapped buckets, its source addressed as the client sees it', async () => {
    const { UploadId } = await admin.send(new CreateMultipartUploadCommand({ Bucket: 'acme', Key: `${key}.copy` }));
    const part = await admin.send(new UploadPartCopyCommand({ Bucket: 'acme', Key: `${key}.copy`, UploadId, PartNumber: 1, CopySource: 'acme/gadgets/doc.txt' }));
    await admin.send(new CompleteMultipartUploadCommand({ Bucket: 'acme', Key: `${key}.copy`, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.CopyPartResult?.ETag }] } }));
    expect(await readText(backends.direct, 'vers', `${key}.copy`)).toBe('gadget');
    expect(await codeOf(admin.send(new UploadPartCopyCommand({ Bucket: 'acme', Key: `${key}.copy`, UploadId, PartNumber: 1, CopySource: 'acme:gadgets/doc.txt' })))).toBe('NoSuchBucket');
  });

  it('ListObjectVersions on acme lists the mapped bucket its prefix names; a prefix spanning several is 501', async () => {
    const out = await admin.send(new ListObjectVersionsCommand({ Bucket: 'acme', Prefix: 'widgets/doc', MaxKeys: 1 }));
    expect([out.Name, out.Versions?.[0].Key, out.IsTruncated, out.NextKeyMarker]).toEqual(['acme', 'widgets/doc.txt', true, 'widgets/doc.txt']);
    const next = await admin.send(new ListObjectVersionsCommand({ Bucket: 'acme', Prefix: 'widgets/doc', KeyMarker: out.NextKeyMarker, VersionIdMarker: out.NextVersionIdMarker }));
    expect([next.Versions?.map((v) => v.Key), next.IsTruncated]).toEqual([['widgets/doc.txt'], false]);
    expect(await codeOf(admin.send(new ListObjectVersionsCommand({ Bucket: 'acme' })))).toBe('NotImplemented');
  });
});
