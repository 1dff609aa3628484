import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { curlSigned, restic, type Keys } from '../support/clients';
import { credentialToml } from '../support/config-toml';
import { RUNTIMES, type RuntimeName } from '../support/gateway';
import { exists, readBytes } from './write-fixtures';
import { startOpsBackends, startOpsGateway, type OpsBackends, type OpsGateway } from './s3-ops-fixtures';

/**
 * Command-line tools whose S3 signing is their own, on every runtime, each with a key that may only touch its
 * own prefix.
 *
 * - restic backing up: the per-host backup credential a gateway is deployed for. restic's S3 backend is
 *   minio-go, written apart from the AWS SDKs: over plain HTTP it signs each PUT's body chunk by chunk
 *   (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`) with a Content-MD5, and it checks the bucket with HeadBucket and
 *   GetBucketLocation before it lists its repository's folders with a delimiter. The data stays under
 *   4 MiB, so each of restic's pack files fits the Lambda Function URL's request limit.
 * - curl's `--aws-sigv4` (Debian's 7.88), as docs/operations.md tells its users to call it: before curl 8
 *   it sends no `x-amz-content-sha256` (S3 and the gateway refuse a SigV4 request without one) and signs
 *   the query in the order given, so the caller adds the header and writes the query sorted and encoded.
 *   Its uploads wait for `100 Continue`.
 */
const HOST_KEY: Keys = { accessKeyId: 'RESTICHOST0000000000', secretAccessKey: 'restic/host/secret/00000000000000000000' };
const CURL_KEY: Keys = { accessKeyId: 'CURLKEY0000000000000', secretAccessKey: 'curl/secret/key/000000000000000000000000' };
const PASSWORD = 'correct horse battery staple';
let backends: OpsBackends;
let dir: string;
let big: Buffer;

/** Every key RGW holds under `prefix`. */
async function storedUnder(prefix: string): Promise<string[]> {
  const page = await backends.direct.send(new ListObjectsV2Command({ Bucket: 'vers', Prefix: prefix }));
  return (page.Contents ?? []).map((c) => c.Key ?? '');
}

beforeAll(async () => {
  backends = await startOpsBackends();
  dir = mkdtempSync(join(tmpdir(), 'restic-'));
  big = randomBytes(3 * 1024 * 1024);
  mkdirSync(join(dir, 'home'));
  writeFileSync(join(dir, 'home', 'big.bin'), big);
  for (let i = 0; i < 20; i++) writeFileSync(join(dir, 'home', `note-${i}.txt`), `note ${i}\n`);
  writeFileSync(join(dir, 'home', 'résumé 2026.txt'), 'a name with spaces and accents\n');
}, 120_000);

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await backends?.stop();
});

describe.each(RUNTIMES)('command-line tools (%s runtime)', (runtime: RuntimeName) => {
  let ops: OpsGateway;
  const repo = `restic/${runtime}`;
  const files = `curl/${runtime}`;

  beforeAll(async () => {
    const keys = [
      credentialToml(HOST_KEY, { principal_name: `backup-${runtime}` }, [
        { bucket: 'vers', prefixes: [`${repo}/`], actions: ['list_bucket', 'get_object', 'head_object', 'put_object', 'delete_object'] },
      ]),
      credentialToml(CURL_KEY, { principal_name: `curl-${runtime}` }, [
        { bucket: 'vers', prefixes: [`${files}/`], actions: ['list_bucket', 'get_object', 'head_object', 'put_object', 'delete_object'] },
      ]),
    ];
    ops = await startOpsGateway(runtime, backends, keys.join('\n'));
  }, 60_000);

  afterAll(() => ops?.stop());

  describe('restic', () => {
    const run = (args: readonly string[], path = `vers/${repo}`) => restic(ops.gw.endpoint, HOST_KEY, path, PASSWORD, args);

    it('creates a repository in the prefix its key holds', async () => {
      const init = await run(['init']);
      expect(init.stderr).toBe('');
      expect(init.code).toBe(0);
      expect(await storedUnder(`${repo}/`)).toEqual(expect.arrayContaining([`${repo}/config`, expect.stringMatching(new RegExp(`^${repo}/keys/[0-9a-f]{64}$`))]));
    });

    it('backs a directory up, and reads every byte of it back in a check', async () => {
      const backup = await run(['backup', '--host', 'host-a', join(dir, 'home')]);
      expect(backup).toMatchObject({ code: 0, stderr: '' });
      const check = await run(['check', '--read-data']);
      expect(check).toMatchObject({ code: 0, stdout: expect.stringContaining('no errors were found') });
    });

    it('restores the snapshot byte for byte, odd file names included', async () => {
      const target = join(dir, `restore-${runtime}`);
      const restore = await run(['restore', 'latest', '--target', target]);
      expect(restore).toMatchObject({ code: 0, stderr: '' });
      const restored = join(target, dir, 'home');
      expect(readFileSync(join(restored, 'big.bin')).equals(big)).toBe(true);
      expect(readFileSync(join(restored, 'résumé 2026.txt'), 'utf8')).toBe('a name with spaces and accents\n');
      expect(readFileSync(join(restored, 'note-19.txt'), 'utf8')).toBe('note 19\n');
    });

    it('forgets the older snapshot and prunes what only it held, deleting through the gateway', async () => {
      writeFileSync(join(dir, 'home', `changed-${runtime}.bin`), randomBytes(256 * 1024));
      expect(await run(['backup', '--host', 'host-a', join(dir, 'home')])).toMatchObject({ code: 0, stderr: '' });
      const snapshotsBefore = (await storedUnder(`${repo}/snapshots/`)).length;
      const prune = await run(['forget', '--keep-last', '1', '--prune']);
      expect(prune).toMatchObject({ code: 0, stderr: '' });
      expect(snapshotsBefore).toBe(2);
      expect(await storedUnder(`${repo}/snapshots/`)).toHaveLength(1);
      expect(await storedUnder(`${repo}/locks/`)).toEqual([]);
      const snapshots = JSON.parse((await run(['snapshots', '--json'])).stdout) as { hostname: string }[];
      expect(snapshots.map((s) => s.hostname)).toEqual(['host-a']);
      expect(await run(['check'])).toMatchObject({ code: 0, stdout: expect.stringContaining('no errors were found') });
    });

    it('cannot create a repository outside its prefix: Access Denied, and nothing is written', async () => {
      const init = await run(['init'], `vers/restic/elsewhere-${runtime}`);
      expect(init.code).not.toBe(0);
      expect(init.stderr).toContain('Access Denied');
      expect(await storedUnder(`restic/elsewhere-${runtime}/`)).toEqual([]);
    });
  });

  describe('curl --aws-sigv4', () => {
    const file = join(tmpdir(), `curl-${runtime}-${process.pid}.bin`);
    const body = randomBytes(2 * 1024 * 1024);
    const sha256 = createHash('sha256').update(body).digest('hex');
    const url = (path: string): string => `${ops.gw.endpoint}/vers/${path}`;
    /** curl's answer: its body, then its status. */
    const curl = async (args: readonly string[]): Promise<{ status: number; body: string }> => {
      const { stdout } = await curlSigned(CURL_KEY, [...args, '-w', '\n%{http_code}']);
      const at = stdout.lastIndexOf('\n');
      return { status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) };
    };

    beforeAll(() => writeFileSync(file, body));
    afterAll(() => rmSync(file, { force: true }));

    it('uploads a file signed with its SHA-256, after 100 Continue', async () => {
      const put = await curl(['-T', file, '-H', `x-amz-content-sha256: ${sha256}`, url(`${files}/upload.bin`)]);
      expect(put).toEqual({ status: 200, body: '' });
      expect((await readBytes(backends.direct, 'vers', `${files}/upload.bin`)).equals(body)).toBe(true);
    });

    it('refuses an upload whose body is not the one signed, storing nothing', async () => {
      const other = createHash('sha256').update('another body').digest('hex');
      const put = await curl(['-T', file, '-H', `x-amz-content-sha256: ${other}`, url(`${files}/mismatch.bin`)]);
      expect(put.status).toBe(400);
      expect(put.body).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
      expect(await exists(backends.direct, 'vers', `${files}/mismatch.bin`)).toBe(false);
    });

    it('downloads, lists with a sorted and encoded query, and deletes', async () => {
      const unsigned = ['-H', 'x-amz-content-sha256: UNSIGNED-PAYLOAD'];
      const get = await curlSigned(CURL_KEY, [...unsigned, '-o', `${file}.down`, '-w', '%{http_code}', url(`${files}/upload.bin`)]);
      expect(get.stdout).toBe('200');
      expect(readFileSync(`${file}.down`).equals(body)).toBe(true);
      rmSync(`${file}.down`);
      const list = await curl([...unsigned, url(`?list-type=2&prefix=${encodeURIComponent(`${files}/`)}`)]);
      expect(list.status).toBe(200);
      expect(list.body).toContain(`<Key>${files}/upload.bin</Key>`);
      expect(await curl([...unsigned, '-X', 'DELETE', url(`${files}/upload.bin`)])).toEqual({ status: 204, body: '' });
      expect(await exists(backends.direct, 'vers', `${files}/upload.bin`)).toBe(false);
    });

    it('is refused outside its prefix', async () => {
      const get = await curl(['-H', 'x-amz-content-sha256: UNSIGNED-PAYLOAD', url(`${repo}/config`)]);
      expect(get.status).toBe(403);
      expect(get.body).toContain('<Code>AccessDenied</Code>');
    });
  });
});
