import { CompleteMultipartUploadCommand, CopyObjectCommand, CreateMultipartUploadCommand, GetObjectTaggingCommand, PutObjectCommand, UploadPartCommand, type S3Client } from '@aws-sdk/client-s3';
import { startAzurite, type Azurite } from '../support/azurite';
import { awsCli, boto3 } from '../support/clients';
import { TRANSPORT_RUNTIMES } from '../support/gateway';
import { errorCode, rawRequest } from '../support/raw-request';
import { ACTIONS } from '../../functions/core/config/types';
import { azuriteOptions, bucketToml, credentialToml, everywhere } from '../support/config-toml';
import { ADMIN, codeOf } from './fixtures';
import { useStoreGateway } from './store-contract';

/**
 * S3 object tags on an Azure Blob backend (Azurite) as blob index tags, driven by boto3, aws-cli and the JS
 * SDK: tags given with a PutObject, a multipart upload or a copy, and Get/Put/DeleteObjectTagging, read back
 * through the gateway and straight from Azurite (docs/backends.md#object-tags-on-azure).
 */
let azurite: Azurite;

function config(): string {
  return [
    bucketToml({ name: 'azure', backend_type: 'azure' }, { ...azuriteOptions(azurite.endpoint, 'data'), backend_prefix: 'tenant/' }),
    credentialToml(ADMIN, { principal_name: 'admin' }, [everywhere([...ACTIONS])]),
  ].join('\n');
}

/** The blob's tags as Azurite holds them (Get Blob Tags past the gateway), as `key=value` strings. */
async function blobTags(key: string): Promise<string[]> {
  const res = await azurite.request('GET', `/data/tenant/${key}`, { query: 'comp=tags' });
  expect(res.status).toBe(200);
  return [...(await res.text()).matchAll(/<Tag><Key>([^<]*)<\/Key><Value>([^<]*)<\/Value><\/Tag>/g)].map(([, k, v]) => `${k}=${v}`);
}

describe.each(TRANSPORT_RUNTIMES)('object tags on an Azure Blob backend (%s runtime)', (runtime) => {
  beforeAll(async () => {
    azurite = await startAzurite();
    await azurite.createContainer('data');
  }, 60_000);
  afterAll(() => azurite?.stop());

  const fx = useStoreGateway(runtime, () => ({ config: config() }));
  const s3 = (): S3Client => fx.s3;
  const tagsOf = async (key: string): Promise<[string, string][]> =>
    ((await s3().send(new GetObjectTaggingCommand({ Bucket: 'azure', Key: key }))).TagSet ?? []).map((t) => [t.Key ?? '', t.Value ?? '']);

  it('GIVEN boto3 put_object with Tagging THEN get_object_tagging answers them and Azure holds them as blob index tags; put and delete_object_tagging replace and remove them', async () => {
    const out = await boto3('boto3-new', fx.gw.endpoint, ADMIN, `
s3.put_object(Bucket='azure', Key='boto/a.txt', Body=b'hello', Tagging='team=data eng&stage=a+b%2Bc')
first = s3.get_object_tagging(Bucket='azure', Key='boto/a.txt')['TagSet']
s3.put_object_tagging(Bucket='azure', Key='boto/a.txt', Tagging={'TagSet': [{'Key': 'only', 'Value': 'one/two:3'}]})
second = s3.get_object_tagging(Bucket='azure', Key='boto/a.txt')['TagSet']
s3.delete_object_tagging(Bucket='azure', Key='boto/a.txt')
third = s3.get_object_tagging(Bucket='azure', Key='boto/a.txt')['TagSet']
result = [first, second, third, s3.get_object(Bucket='azure', Key='boto/a.txt')['Body'].read().decode()]`);
    expect(out).toEqual([
      [{ Key: 'team', Value: 'data eng' }, { Key: 'stage', Value: 'a b+c' }],
      [{ Key: 'only', Value: 'one/two:3' }],
      [],
      'hello',
    ]);
    expect(await blobTags('boto/a.txt')).toEqual([]);
  }, 60_000);

  it('GIVEN aws-cli s3api put-object-tagging THEN get-object-tagging answers the set, and Azurite holds it', async () => {
    await s3().send(new PutObjectCommand({ Bucket: 'azure', Key: 'cli/b.txt', Body: 'b' }));
    const put = await awsCli('v2', fx.gw.endpoint, ADMIN, ['s3api', 'put-object-tagging', '--bucket', 'azure', '--key', 'cli/b.txt', '--tagging', 'TagSet=[{Key=env,Value=prod},{Key=owner,Value=ops}]']);
    expect([put.code, put.stderr]).toEqual([0, '']);
    const get = await awsCli('v2', fx.gw.endpoint, ADMIN, ['s3api', 'get-object-tagging', '--bucket', 'azure', '--key', 'cli/b.txt']);
    expect(get.code).toBe(0);
    expect(JSON.parse(get.stdout).TagSet).toEqual([{ Key: 'env', Value: 'prod' }, { Key: 'owner', Value: 'ops' }]);
    expect(await blobTags('cli/b.txt')).toEqual(['env=prod', 'owner=ops']);
  }, 60_000);

  it('GIVEN a multipart upload created with tags THEN the completed object carries them', async () => {
    const created = await s3().send(new CreateMultipartUploadCommand({ Bucket: 'azure', Key: 'mp/c.bin', Tagging: 'kind=multipart&n=2' }));
    const part = await s3().send(new UploadPartCommand({ Bucket: 'azure', Key: 'mp/c.bin', UploadId: created.UploadId, PartNumber: 1, Body: 'part' }));
    await s3().send(new CompleteMultipartUploadCommand({ Bucket: 'azure', Key: 'mp/c.bin', UploadId: created.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] } }));
    expect(await tagsOf('mp/c.bin')).toEqual([['kind', 'multipart'], ['n', '2']]);
  }, 60_000);

  it('GIVEN a copy THEN COPY keeps the source\'s tags and REPLACE sets the request\'s (none: none), onto another key or itself', async () => {
    await s3().send(new PutObjectCommand({ Bucket: 'azure', Key: 'copy/src', Body: 'src', Tagging: 'from=source' }));
    await s3().send(new CopyObjectCommand({ Bucket: 'azure', Key: 'copy/kept', CopySource: 'azure/copy/src', Tagging: 'ignored=1' }));
    await s3().send(new CopyObjectCommand({ Bucket: 'azure', Key: 'copy/replaced', CopySource: 'azure/copy/src', TaggingDirective: 'REPLACE', Tagging: 'new=tag' }));
    await s3().send(new CopyObjectCommand({ Bucket: 'azure', Key: 'copy/untagged', CopySource: 'azure/copy/src', TaggingDirective: 'REPLACE' }));
    await s3().send(new CopyObjectCommand({ Bucket: 'azure', Key: 'copy/src', CopySource: 'azure/copy/src', MetadataDirective: 'REPLACE', TaggingDirective: 'REPLACE', Tagging: 'self=2' }));
    expect([await tagsOf('copy/kept'), await tagsOf('copy/replaced'), await tagsOf('copy/untagged'), await tagsOf('copy/src')]).toEqual([
      [['from', 'source']], [['new', 'tag']], [], [['self', '2']],
    ]);
  }, 60_000);

  it('GIVEN tags over S3\'s limits or outside Azure\'s characters THEN S3\'s answer, and nothing is written', async () => {
    const eleven = Array.from({ length: 11 }, (_, i) => `k${i}=v`).join('&');
    for (const [tagging, code] of [[eleven, 'BadRequest'], [`${'k'.repeat(129)}=v`, 'InvalidTag'], ['a=1&a=2', 'InvalidArgument'], ['mail=a%40b', 'InvalidTag']] as const) {
      const key = `bad/${code}-${tagging.length}`;
      expect([tagging, await codeOf(s3().send(new PutObjectCommand({ Bucket: 'azure', Key: key, Body: 'x', Tagging: tagging })))]).toEqual([tagging, code]);
      expect((await azurite.request('HEAD', `/data/tenant/${key}`)).status).toBe(404);
    }
    await s3().send(new PutObjectCommand({ Bucket: 'azure', Key: 'bad/doc', Body: 'x' }));
    const document = (tags: string): string => `<Tagging><TagSet>${tags}</TagSet></Tagging>`;
    for (const [body, code] of [
      [document('<Tag><Key>a</Key><Value>1</Value></Tag><Tag><Key>a</Key><Value>2</Value></Tag>'), 'InvalidTag'],
      [document('<Tag><Key>a@b</Key><Value>1</Value></Tag>'), 'InvalidTag'],
      [document('<Tag><Key>a</Key></Tag>'), 'MalformedXML'],
    ]) {
      const res = await rawRequest(fx.gw.endpoint, { method: 'PUT', target: '/azure/bad/doc?tagging', body }, ADMIN);
      expect([body, res.status, errorCode(res.body)]).toEqual([body, 400, code]);
    }
    expect(await blobTags('bad/doc')).toEqual([]);
  }, 60_000);

  it('GIVEN a missing key or a version THEN NoSuchKey, or 501 (Azure keeps no versions here)', async () => {
    expect(await codeOf(s3().send(new GetObjectTaggingCommand({ Bucket: 'azure', Key: 'no/such' })))).toBe('NoSuchKey');
    const res = await rawRequest(fx.gw.endpoint, { method: 'GET', target: '/azure/bad/doc?tagging&versionId=v1' }, ADMIN);
    expect([res.status, errorCode(res.body)]).toEqual([501, 'NotImplemented']);
  }, 60_000);
});
