import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { AssumeRoleWithWebIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { Upload } from '@aws-sdk/lib-storage';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { S3rver } from '../../scripts/s3rver';
import { NODE_SERVER_FLAGS } from '../../functions/node-server';
import { HEALTH_PATH } from '../../functions/core/health';
import { awsCli, boto3, jsClient, type Keys } from '../support/clients';
import { READ_ACTIONS, roleToml } from '../support/config-toml';
import { buildHostNodeBase, Podman, runContainer, runContainerExpectingFailure, type RunningContainer } from '../support/container';
import { startOidcIssuer, type OidcIssuer } from '../support/oidc-issuer';
import { rawRequest } from '../support/raw-request';
import { describeDrain, startDrainBackend, type LaunchTarget } from './drain-specs';
import { ADMIN, gatewayConfig, gatewayEnv, startBackends, type Backends } from './fixtures';

/**
 * The repository's Dockerfile, built with podman and run: the image's contract (non-root, 0.0.0.0:8080,
 * the server's V8 flags, a HEALTHCHECK on /.health, the configuration at CONFIG_PATH), real clients through
 * the running container (reads, writes, a multipart upload in 64 MiB parts, STS), and the drain specs the
 * Node server passes in drain.test.ts.
 *
 * No registry is reachable here, so the image is built on a base made from this machine's Node (the
 * Dockerfile's NODE_IMAGE argument); users get the official Node image. Needs podman, run as root: as any
 * other user it fails at once saying so (`Podman.require`), never skips.
 */
const ROOT = resolve(__dirname, '../..');
const MiB = 1024 * 1024;
const RUN_ID = `${process.pid}-${Date.now().toString(36)}`;
const BASE = `localhost/s3-gateway-test-node:${RUN_ID}`;
const IMAGE = `localhost/s3-gateway-test:${RUN_ID}`;
const ROLE_ARN = 'arn:aws:iam::000000000000:role/ci';
const SESSION_TOKEN_KEY = randomBytes(32).toString('base64');
/** A backend nothing listens at: the image's own behaviour needs none. */
const NO_BACKEND = '[[buckets]]\nname = "b"\nbackend_type = "s3"\nanonymous_access = true\n[buckets.backend_options]\nendpoint = "http://127.0.0.1:1"\nbucket_name = "b"\n';

let podman: Podman;
let backends: Backends;
let drainBackend: S3rver;
let issuer: OidcIssuer;
const running: RunningContainer[] = [];

beforeAll(async () => {
  podman = Podman.require();
  const build = (async () => {
    await buildHostNodeBase(podman, BASE);
    // --format docker: the OCI format has no HEALTHCHECK. --layers=false: nothing cached between runs.
    await podman.ok(['build', '--format', 'docker', '--layers=false', '--build-arg', `NODE_IMAGE=${BASE}`, '--tag', IMAGE, ROOT]);
  })();
  [, backends, drainBackend, issuer] = await Promise.all([build, startBackends(), startDrainBackend(), startOidcIssuer()]);
}, 600_000);

afterAll(async () => {
  await Promise.all(running.map((c) => c.remove()));
  if (podman) {
    await podman.run(['rmi', '--force', IMAGE, BASE]);
    podman.cleanup();
  }
  await Promise.all([backends?.stop(), drainBackend?.stop(), issuer?.stop()]);
}, 120_000);

async function eventually(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  return check();
}

async function start(options: Parameters<typeof runContainer>[1]): Promise<RunningContainer> {
  const container = await runContainer(podman, options);
  running.push(container);
  return container;
}

interface ImageInspection {
  readonly Size: number;
  readonly Config: { readonly User: string; readonly Entrypoint: string[]; readonly Env: string[]; readonly ExposedPorts: Record<string, unknown> };
  readonly Healthcheck?: { readonly Test: string[] };
}

describe('the image', () => {
  let image: ImageInspection;

  beforeAll(async () => {
    [image] = JSON.parse(await podman.ok(['image', 'inspect', IMAGE])) as ImageInspection[];
  });

  it('GIVEN its configuration THEN it runs the bundle with the Node server\'s V8 flags, as user 1000, exposing 8080', () => {
    const config = image.Config;
    expect(config.Entrypoint[0]).toBe('node');
    expect(config.Entrypoint.at(-1)).toBe('/app/node-server.js');
    expect(config.Entrypoint).toEqual(expect.arrayContaining([...NODE_SERVER_FLAGS]));
    expect(config.User).toBe('1000:1000');
    expect(Object.keys(config.ExposedPorts)).toEqual(['8080/tcp']);
    expect(config.Env).toEqual(expect.arrayContaining(['HOST=0.0.0.0', 'PORT=8080', 'CONFIG_PATH=/etc/s3-gateway/proxy.toml']));
    expect(image.Healthcheck?.Test.join(' ')).toContain(HEALTH_PATH);
  });

  it('GIVEN a published port and a read-only root WHEN probed THEN the server answers on it (it listens on 0.0.0.0), from a process that is not root', async () => {
    const container = await start({ image: IMAGE, config: NO_BACKEND, network: 'published' });
    const health = await rawRequest(container.endpoint, { method: 'GET', target: HEALTH_PATH });
    expect({ status: health.status, body: health.body }).toEqual({ status: 200, body: '{"status":"ok"}' });
    const pid = (await podman.ok(['inspect', '--format', '{{.State.Pid}}', container.name])).trim();
    const ids = /^Uid:\s+(\d+)\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    expect([ids?.[1], ids?.[2]]).toEqual(['1000', '1000']);
  });

  it('GIVEN a serving container WHEN its HEALTHCHECK runs THEN it is healthy', async () => {
    const container = await start({ image: IMAGE, config: NO_BACKEND, network: 'published' });
    const check = await podman.run(['healthcheck', 'run', container.name]);
    expect({ code: check.code, stderr: check.stderr.replace(/^time=.*systemd.*\n/gm, '') }).toEqual({ code: 0, stderr: '' });
    // The probe reached the server: its access log has the request.
    await expect(eventually(() => /"path":"\/\.health","status":200/.test(container.logs()))).resolves.toBe(true);
  });

  it('GIVEN no mounted configuration THEN the baked-in proxy.toml is read: started without its secrets, it refuses, naming them', async () => {
    const run = await runContainerExpectingFailure(podman, IMAGE, {});
    expect(run.code).toBe(1);
    expect(run.stderr + run.stdout).toMatch(/ASSETS_BACKEND_ACCESS_KEY_ID/);
  });

  it('GIVEN an invalid GATEWAY_DRAIN_TIMEOUT_MS THEN it refuses to start, naming the variable', async () => {
    const run = await runContainerExpectingFailure(podman, IMAGE, { GATEWAY_DRAIN_TIMEOUT_MS: 'soon' }, NO_BACKEND);
    expect(run.code).toBe(1);
    expect(run.stderr + run.stdout).toContain('GATEWAY_DRAIN_TIMEOUT_MS must be a whole number of milliseconds');
  });
});

describe('real clients through the container', () => {
  let container: RunningContainer;
  let admin: S3Client;
  let dir: string;

  function stsConfig(): string {
    const role = { role_id: ROLE_ARN, name: 'ci', trusted_oidc_issuers: [issuer.url], subject_conditions: ['repo:acme/*:ref:refs/heads/main'] };
    return `${gatewayConfig(backends)}\n${roleToml(role, [{ bucket: 'strict', prefixes: ['{repository}/'], actions: [...READ_ACTIONS, 'put_object'] }])}`;
  }

  beforeAll(async () => {
    container = await start({
      image: IMAGE,
      config: stsConfig(),
      env: { ...gatewayEnv(backends), SESSION_TOKEN_KEY, NODE_EXTRA_CA_CERTS: '/run/issuer-ca.pem' },
      mounts: { '/run/issuer-ca.pem': issuer.caPath },
      network: 'host',
    });
    admin = jsClient(container.endpoint, ADMIN);
    dir = mkdtempSync(join(tmpdir(), 'container-clients-'));
  }, 120_000);

  afterAll(() => {
    admin?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('GIVEN the JS SDK THEN an object is written, listed, read and deleted on RGW', async () => {
    await admin.send(new PutObjectCommand({ Bucket: 'strict', Key: 'container/hello.txt', Body: 'hello from the container\n' }));
    const listed = await admin.send(new ListObjectsV2Command({ Bucket: 'strict', Prefix: 'container/' }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(['container/hello.txt']);
    const read = await admin.send(new GetObjectCommand({ Bucket: 'strict', Key: 'container/hello.txt' }));
    expect(await read.Body?.transformToString()).toBe('hello from the container\n');
    await admin.send(new DeleteObjectCommand({ Bucket: 'strict', Key: 'container/hello.txt' }));
    await expect(admin.send(new HeadObjectCommand({ Bucket: 'strict', Key: 'container/hello.txt' }))).rejects.toMatchObject({ name: 'NotFound' });
  });

  it('GIVEN lib-storage with 64 MiB parts THEN a 129 MiB multipart upload completes in three parts and reads back whole', async () => {
    const body = randomBytes(129 * MiB);
    const upload = new Upload({ client: admin, params: { Bucket: 'strict', Key: 'container/big.bin', Body: body }, partSize: 64 * MiB, queueSize: 2 });
    const done = await upload.done();
    expect(done.ETag).toMatch(/-3"$/);
    const read = await admin.send(new GetObjectCommand({ Bucket: 'strict', Key: 'container/big.bin' }));
    const hash = createHash('sha256');
    for await (const chunk of read.Body as AsyncIterable<Uint8Array>) hash.update(chunk);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(body).digest('hex'));
  }, 180_000);

  it('GIVEN aws-cli and boto3 THEN they write and read through the container too', async () => {
    const file = join(dir, 'cli.txt');
    writeFileSync(file, 'from aws-cli\n');
    const cp = await awsCli('v2', container.endpoint, ADMIN, ['s3', 'cp', file, 's3://strict/container/cli.txt']);
    expect(cp.code).toBe(0);
    const read = await boto3('boto3-debian', container.endpoint, ADMIN, "result = s3.get_object(Bucket='strict', Key='container/cli.txt')['Body'].read().decode()");
    expect(read).toBe('from aws-cli\n');
    const anonymous = await awsCli('v2', container.endpoint, undefined, ['s3', 'ls', 's3://public/']);
    expect(anonymous.code).toBe(0);
  }, 120_000);

  it('GIVEN a GitHub-shaped OIDC token THEN STS through the container issues credentials that work inside the role\'s prefix', async () => {
    const sts = new STSClient({ region: 'us-east-1', endpoint: container.endpoint, maxAttempts: 1 });
    const out = await sts.send(new AssumeRoleWithWebIdentityCommand({ RoleArn: ROLE_ARN, RoleSessionName: 'ci', WebIdentityToken: await issuer.mint(), DurationSeconds: 900 }));
    sts.destroy();
    const c = out.Credentials;
    const keys: Keys = { accessKeyId: c?.AccessKeyId ?? '', secretAccessKey: c?.SecretAccessKey ?? '', sessionToken: c?.SessionToken };
    const temporary = jsClient(container.endpoint, keys);
    try {
      await temporary.send(new PutObjectCommand({ Bucket: 'strict', Key: 'acme/widgets/build.txt', Body: 'built\n' }));
      const read = await temporary.send(new GetObjectCommand({ Bucket: 'strict', Key: 'acme/widgets/build.txt' }));
      expect(await read.Body?.transformToString()).toBe('built\n');
      await expect(temporary.send(new PutObjectCommand({ Bucket: 'strict', Key: 'elsewhere.txt', Body: 'no' }))).rejects.toMatchObject({ name: 'AccessDenied' });
    } finally {
      temporary.destroy();
    }
  });
});

const inContainer: LaunchTarget = async (config, env) => {
  const container = await start({ image: IMAGE, config, env, network: 'host' });
  return {
    endpoint: container.endpoint,
    terminate: () => container.terminate(60),
    exited: container.exited,
    logs: container.logs,
    stop: container.remove,
  };
};

describeDrain('container, stopped by podman stop', () => inContainer, () => drainBackend);
