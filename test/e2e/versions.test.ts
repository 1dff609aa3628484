import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectVersionsCommand,
  type ListObjectVersionsCommandOutput,
  type S3Client,
} from '@aws-sdk/client-s3';
import { awsCli, boto3 } from '../support/clients';
import { RUNTIMES, TRANSPORT_RUNTIMES, type RuntimeName } from '../support/gateway';
import { rawRequest } from '../support/raw-request';
import { ADMIN, codeOf, putDirect, readText } from './fixtures';
import { MINE, SPEC, startOpsBackends, startOpsGateway, type OpsBackends, type OpsGateway } from './s3-ops-fixtures';

/**
 * Object versions on Ceph RGW with versioning on (issue 20): ListObjectVersions, paginated by key and
 * version markers; a DeleteObject or DeleteObjects entry naming a version deletes exactly that version (the
 * specification ignores the version: docs/adr/0012-versioned-deletes.md); `x-amz-version-id` and
 * `x-amz-delete-marker` pass through. Each needs its own action (`list_bucket_versions`, `delete_object_version`): without them
 * the calls are refused and every version is still there afterwards.
 */
let backends: OpsBackends;
const rgw = (): S3Client => backends.direct;

/** Every version and delete marker of `prefix` in RGW, read directly: `key version kind`, newest first per key. */
async function backendVersions(bucket: string, prefix: string): Promise<string[]> {
  const out = await rgw().send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: prefix }));
  return entries(out);
}

function entries(out: ListObjectVersionsCommandOutput, strip = ''): string[] {
  const all = [
    ...(out.Versions ?? []).map((v) => ({ key: v.Key ?? '', id: v.VersionId ?? '', kind: 'version', at: v.LastModified?.getTime() ?? 0 })),
    ...(out.DeleteMarkers ?? []).map((m) => ({ key: m.Key ?? '', id: m.VersionId ?? '', kind: 'marker', at: m.LastModified?.getTime() ?? 0 })),
  ];
  all.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : b.at - a.at));
  return all.map((e) => `${e.key.slice(strip.length)} ${e.id} ${e.kind}`);
}

/** Three keys of two versions each, and a deleted key (a version under a delete marker), under `prefix`. */
async function seed(bucket: string, prefix: string): Promise<void> {
  for (const name of ['a', 'b b+c', 'c']) for (const n of [1, 2]) await putDirect(rgw(), bucket, `${prefix}${name}`, `${name} ${n}`);
  await putDirect(rgw(), bucket, `${prefix}d`, 'd 1');
  await rgw().send(new DeleteObjectCommand({ Bucket: bucket, Key: `${prefix}d` }));
}

beforeAll(async () => {
  backends = await startOpsBackends();
  await Promise.all(RUNTIMES.map((runtime) => seed('vers', `list/${runtime}/`)));
  await seed('copies', 'tenant-a/list/');
  await putDirect(rgw(), 'vers', 'mine/a', 'mine');
  await putDirect(rgw(), 'vers', 'mine-not/a', 'not mine');
  await putDirect(rgw(), 'vers', 'theirs/a', 'theirs');
}, 120_000);

afterAll(() => backends?.stop());

describe.each(TRANSPORT_RUNTIMES)('object versions (%s runtime)', (runtime: RuntimeName) => {
  let ops: OpsGateway;
  const list = `list/${runtime}/`;

  beforeAll(async () => {
    ops = await startOpsGateway(runtime, backends);
  }, 60_000);

  afterAll(() => ops?.stop());

  describe('ListObjectVersions', () => {
    it('pages by key and version markers to exactly what RGW lists directly, delete markers included', async () => {
      const seen: string[] = [];
      let keyMarker: string | undefined;
      let versionIdMarker: string | undefined;
      let pages = 0;
      for (;;) {
        const out = await ops.admin.send(new ListObjectVersionsCommand({ Bucket: 'vers', Prefix: list, MaxKeys: 2, KeyMarker: keyMarker, VersionIdMarker: versionIdMarker }));
        expect(out.Name).toBe('vers');
        seen.push(...entries(out));
        pages++;
        if (!out.IsTruncated) break;
        keyMarker = out.NextKeyMarker;
        versionIdMarker = out.NextVersionIdMarker;
      }
      expect(pages).toBe(4);
      expect(seen).toEqual(await backendVersions('vers', list));
    });

    it('aws-cli v2 list-object-versions follows the markers page by page', async () => {
      const run = await awsCli('v2', ops.gw.endpoint, ADMIN, ['s3api', 'list-object-versions', '--bucket', 'vers', '--prefix', list, '--page-size', '3', '--output', 'json']);
      expect(run.stderr).toBe('');
      const out = JSON.parse(run.stdout) as { Versions: unknown[]; DeleteMarkers: unknown[] };
      expect([out.Versions.length, out.DeleteMarkers.length]).toEqual([7, 1]);
    });

    it('with a delimiter: common prefixes; with backend_prefix: keys mapped out of it', async () => {
      const folded = await ops.admin.send(new ListObjectVersionsCommand({ Bucket: 'vers', Prefix: 'list/', Delimiter: '/' }));
      expect(folded.CommonPrefixes?.map((p) => p.Prefix)).toEqual(RUNTIMES.map((r) => `list/${r}/`).sort());
      const tenant = await ops.admin.send(new ListObjectVersionsCommand({ Bucket: 'tenant', Prefix: 'list/' }));
      expect(tenant.Name).toBe('tenant');
      expect(entries(tenant)).toEqual((await backendVersions('copies', 'tenant-a/list/')).map((e) => e.slice('tenant-a/'.length)));
    });

    it('boto3 (which asks for encoding-type=url) reads keys, prefix and markers back decoded', async () => {
      const out = await boto3('boto3-new', ops.gw.endpoint, ADMIN, `
r = s3.list_object_versions(Bucket='vers', Prefix='${list}b b+', KeyMarker='${list}a')
result = [r['Prefix'], r['KeyMarker'], sorted({v['Key'] for v in r['Versions']})]`);
      expect(out).toEqual([`${list}b b+`, `${list}a`, [`${list}b b+c`]]);
    });

    it('is authorized on its prefix, and shows only what the caller may list under it', async () => {
      // MINE's grant is "mine": the key mine and keys under mine/, never mine-not/…, though the listing prefix covers both.
      const mine = await boto3('boto3-new', ops.gw.endpoint, MINE, `
r = s3.list_object_versions(Bucket='vers', Prefix='mine')
result = [v['Key'] for v in r.get('Versions', [])] + [error_code(lambda: s3.list_object_versions(Bucket='vers', Prefix='theirs/'))]`);
      expect(mine).toEqual(['mine/a', 'AccessDenied']);
    });

    it('needs list_bucket_versions: list_bucket does not imply it', async () => {
      expect(await codeOf(ops.spec.send(new ListObjectVersionsCommand({ Bucket: 'vers' })))).toBe('AccessDenied');
      expect((await rawRequest(ops.gw.endpoint, { method: 'GET', target: '/vers?versions' })).status).toBe(403);
    });
  });

  describe('what clients read back, as RGW answers directly', () => {
    it('a listing prefix holding a control character comes back as that character (boto3 asks for encoding-type=url)', async () => {
      const script = `result = [s3.list_objects(Bucket='vers', Prefix='\\n')['Prefix'], s3.list_objects_v2(Bucket='vers', Prefix='\\n')['Prefix'], s3.list_object_versions(Bucket='vers', Prefix='\\n')['Prefix']]`;
      expect(await boto3('boto3-new', ops.gw.endpoint, ADMIN, script)).toEqual(['\n', '\n', '\n']);
      expect(await boto3('boto3-new', backends.rgw.endpoint, backends.rgw, script)).toEqual(['\n', '\n', '\n']);
    });

    it('an empty continuation-token is echoed, as RGW does', async () => {
      const target = '/vers?list-type=2&prefix=none%2F&continuation-token=';
      expect((await rawRequest(ops.gw.endpoint, { method: 'GET', target }, ADMIN)).body).toContain('<ContinuationToken></ContinuationToken>');
      expect((await rawRequest(backends.rgw.endpoint, { method: 'GET', target }, backends.rgw)).body).toContain('<ContinuationToken></ContinuationToken>');
    });

    it('an error names one request id, the one in x-amz-request-id, never the backend\'s', async () => {
      for (const target of [`/vers/${list}missing`, `/vers/${list}a?versionId=no-such-version`, `/vers/${list}missing?tagging`]) {
        const res = await rawRequest(ops.gw.endpoint, { method: 'GET', target }, ADMIN);
        expect(res.status).toBe(404);
        expect(res.body).toContain(`<RequestId>${String(res.headers['x-amz-request-id'])}</RequestId>`);
        expect(res.body).not.toMatch(/tx0|<HostId>|<BucketName>/);
      }
    });
  });

  describe('versioned deletes', () => {
    it('DeleteObject with a versionId deletes that version; GET then reads the previous one', async () => {
      const key = `del/${runtime}/one`;
      const v1 = await putDirect(rgw(), 'vers', key, 'first');
      const v2 = await putDirect(rgw(), 'vers', key, 'second');
      const head = await ops.admin.send(new HeadObjectCommand({ Bucket: 'vers', Key: key }));
      expect(head.VersionId).toBe(v2);
      const out = await ops.admin.send(new DeleteObjectCommand({ Bucket: 'vers', Key: key, VersionId: v2 }));
      expect(out.VersionId).toBe(v2);
      const current = await ops.admin.send(new GetObjectCommand({ Bucket: 'vers', Key: key }));
      expect([await current.Body?.transformToString(), current.VersionId]).toEqual(['first', v1]);
      expect((await backendVersions('vers', key)).map((e) => e.split(' ')[1])).toEqual([v1]);
    });

    it('deleting a delete marker by its version restores the object, and says it was a marker', async () => {
      const key = `del/${runtime}/marker`;
      await putDirect(rgw(), 'vers', key, 'kept');
      const hidden = await ops.admin.send(new DeleteObjectCommand({ Bucket: 'vers', Key: key }));
      expect(hidden.DeleteMarker).toBe(true);
      expect(await codeOf(ops.admin.send(new GetObjectCommand({ Bucket: 'vers', Key: key })))).toBe('NoSuchKey');
      const restored = await ops.admin.send(new DeleteObjectCommand({ Bucket: 'vers', Key: key, VersionId: hidden.VersionId }));
      expect(restored.DeleteMarker).toBe(true);
      expect(await readText(ops.admin, 'vers', key)).toBe('kept');
    });

    it('DeleteObjects deletes the versions its entries name, and answers them', async () => {
      const key = `del/${runtime}/batch`;
      const v1 = await putDirect(rgw(), 'vers', key, 'one');
      const v2 = await putDirect(rgw(), 'vers', key, 'two');
      await putDirect(rgw(), 'vers', key, 'three');
      const out = await ops.admin.send(new DeleteObjectsCommand({ Bucket: 'vers', Delete: { Objects: [{ Key: key, VersionId: v1 }, { Key: key, VersionId: v2 }] } }));
      expect(out.Deleted?.map((d) => d.VersionId).sort()).toEqual([v1, v2].sort());
      expect(out.Errors ?? []).toEqual([]);
      expect(await backendVersions('vers', key)).toHaveLength(1);
      expect(await readText(ops.admin, 'vers', key)).toBe('three');
    });

    it('without delete_object_version they are refused, and the object and every version are still there', async () => {
      const key = `del/${runtime}/kept`;
      const v1 = await putDirect(rgw(), 'vers', key, 'one');
      const v2 = await putDirect(rgw(), 'vers', key, 'two');
      const before = await backendVersions('vers', key);
      expect(await codeOf(ops.spec.send(new DeleteObjectCommand({ Bucket: 'vers', Key: key, VersionId: v1 })))).toBe('AccessDenied');
      const batch = await ops.spec.send(new DeleteObjectsCommand({ Bucket: 'vers', Delete: { Objects: [{ Key: key, VersionId: v1 }, { Key: key, VersionId: v2 }] } }));
      expect(batch.Errors?.map((e) => [e.Key, e.VersionId, e.Code])).toEqual([
        [key, v1, 'AccessDenied'],
        [key, v2, 'AccessDenied'],
      ]);
      expect(batch.Deleted ?? []).toEqual([]);
      const cli = await awsCli('v1', ops.gw.endpoint, SPEC, ['s3api', 'delete-object', '--bucket', 'vers', '--key', key, `--version-id=${v1 ?? ''}`]);
      expect(cli.stderr).toMatch(/AccessDenied/);
      expect(await backendVersions('vers', key)).toEqual(before);
      expect(await readText(ops.admin, 'vers', key)).toBe('two');
    });
  });
});
