/**
 * A throwaway single-node Ceph cluster (one mon, one memstore OSD) with a RADOS Gateway in front,
 * for tests that need a strict, real S3 implementation (real SigV4 checks, versioning, STS).
 *
 * Recipe and the settings that matter are measured in /work/shared/reference/backends.md
 * ("Ceph RADOS Gateway"). Every start gets its own temp dir, fsid and loopback ports, so parallel
 * jest workers can each run their own cluster.
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { constants as fsConstants, closeSync, openSync, rmSync } from 'node:fs';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { freePorts } from '../../scripts/ports';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import {
  CreateBucketCommand,
  ListBucketsCommand,
  PutBucketVersioningCommand,
  S3Client,
  S3ClientConfig,
} from '@aws-sdk/client-s3';

export interface RgwOptions {
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Enable RGW's STS (AssumeRoleWithWebIdentity etc.); note that auth errors then collapse to AccessDenied. */
  sts?: boolean;
  /** Extra ceph.conf settings; they override the harness defaults (keys compared ignoring `_`/`-`/space). */
  extraConf?: Record<string, string>;
  /**
   * Storage classes besides STANDARD in the default placement (all in the same data pool), so a copy can
   * change an object's class (`rclone settier`). Set up before radosgw starts, which reads them then.
   */
  storageClasses?: readonly string[];
  /**
   * Run the daemons in a session of their own. Benchmarks want it: Linux's autogroup scheduler shares CPU
   * between sessions, so every server they measure runs in its own (see bench/session.ts).
   */
  ownSession?: boolean;
}

export interface Rgw {
  /** http://127.0.0.1:PORT; path-style addressing only. */
  endpoint: string;
  port: number;
  accessKeyId: string;
  secretAccessKey: string;
  region: 'us-east-1';
  /** The cluster's temp dir (ceph.conf, daemon logs under log/); removed by stop(). */
  dir: string;
  /** Runs radosgw-admin against this cluster and returns its stdout. */
  admin(args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export const DEFAULT_ACCESS_KEY_ID = 'RGWTESTKEY';
export const DEFAULT_SECRET_ACCESS_KEY = 'rgwTestSecretKey0123456789abcdefghijklmn'; // 40 chars like AWS

const USER_ID = 'tester';
const RGW_NAME = 'client.rgw.gw';
/** Below jest's 60 s testTimeout, so our error (with daemon logs) wins over a bare hook timeout. */
const START_TIMEOUT_MS = 45_000;
/** Each daemon exits within ~0.5 s of SIGTERM here; SIGKILL only one that is wedged. */
const STOP_GRACE_MS = 4_000;
const CLI_TIMEOUT_MS = 30_000;

/** Which Debian package provides each binary we run, so a missing one produces an actionable error. */
const REQUIRED_BINARIES: Record<string, string> = {
  'ceph-mon': 'ceph-mon',
  monmaptool: 'ceph-base',
  'ceph-osd': 'ceph-osd',
  radosgw: 'radosgw',
  'radosgw-admin': 'ceph-common',
  ceph: 'ceph-common',
};
const INSTALL_HINT = 'apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw ceph-common';

interface Daemon {
  name: string;
  child: ChildProcess;
  /** Resolves when the process has exited (never rejects). */
  exited: Promise<void>;
}

// ---- children must never outlive the test process ----

const liveChildren = new Set<ChildProcess>();
const liveDirs = new Set<string>();
let exitHookInstalled = false;

/** 'exit' handlers must be synchronous, so this can only SIGKILL and rm; stop() is the graceful path. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of liveChildren) child.kill('SIGKILL');
    for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
  });
}

// ---- prerequisites and resources ----

async function isExecutableOnPath(binary: string): Promise<boolean> {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    try {
      await access(join(dir, binary), fsConstants.X_OK);
      return true;
    } catch {
      // not in this PATH entry
    }
  }
  return false;
}

/** Tests must fail loudly (never skip) when Ceph is absent, and say exactly how to fix it. */
async function assertCephInstalled(): Promise<void> {
  const missing: string[] = [];
  for (const binary of Object.keys(REQUIRED_BINARIES)) {
    if (!(await isExecutableOnPath(binary))) missing.push(binary);
  }
  if (missing.length === 0) return;
  const packages = [...new Set(missing.map((b) => REQUIRED_BINARIES[b]))].join(' ');
  throw new Error(
    `Ceph RGW test harness: missing ${missing.join(', ')} (Debian packages: ${packages}). ` +
      `Install with: ${INSTALL_HINT}`,
  );
}

// ---- ceph.conf ----

/** Ceph treats `osd_pool_default_size`, `osd-pool-default-size` and `osd pool default size` alike. */
function normalizeKey(key: string): string {
  return key.trim().toLowerCase().replace(/[_-]+/g, ' ');
}

interface ClusterLayout {
  dir: string;
  fsid: string;
  monPort: number;
  rgwPort: number;
  ownSession: boolean;
}

function baseSettings({ dir, fsid, monPort, rgwPort }: ClusterLayout): Record<string, string> {
  return {
    fsid,
    'mon host': `[v2:127.0.0.1:${monPort}]`,
    'mon initial members': 'a',
    // No cephx: nothing to distribute, and the cluster is loopback-only and throwaway.
    'auth cluster required': 'none',
    'auth service required': 'none',
    'auth client required': 'none',
    // msgr2 only, on loopback only (the machine has no other network anyway).
    'ms bind msgr1': 'false',
    'ms bind msgr2': 'true',
    'public addr': '127.0.0.1',
    // Without this radosgw loops on "get_initial_auth_request returned -13".
    'ms mon client mode': 'crc',
    // Keep every file this cluster writes inside its own dir, so parallel clusters never collide
    // and nothing lands in /var/run/ceph or /var/log/ceph.
    'run dir': join(dir, 'run'),
    'admin socket': join(dir, 'run', '$cluster-$name.asok'),
    'log file': join(dir, 'log', '$name.log'),
    'mon cluster log to file': 'false',
    'crash dir': join(dir, 'crash'),
    'mon data': join(dir, 'mon', '$cluster-$id'),
    'osd data': join(dir, 'osd', '$cluster-$id'),
    keyring: join(dir, 'keyring'),
    // Single replica on a single OSD.
    'osd pool default size': '1',
    'osd pool default min size': '1',
    'mon allow pool size one': 'true',
    'mon warn on pool no redundancy': 'false',
    'osd pool default pg num': '8',
    'osd pool default pgp num': '8',
    'osd crush chooseleaf type': '0',
    // RAM-backed OSD: fast mkfs and start; test data is tiny.
    'osd objectstore': 'memstore',
    // A nearly full /tmp must not make the mon shut itself down mid-test.
    'mon data avail crit': '0',
    // Default 1 s batching makes every map change (pool creation...) slow: ~13 s start without it.
    'paxos propose interval': '0.1',
    // Without tcp_nodelay every small request takes ~40 ms (Nagle + delayed ACK).
    'rgw frontends': `beast endpoint=127.0.0.1:${rgwPort} tcp_nodelay=1`,
  };
}

function stsSettings(): Record<string, string> {
  return {
    'rgw s3 auth use sts': 'true',
    // RGW requires exactly 16 characters; 8 random bytes in hex are exactly that.
    'rgw sts key': randomBytes(8).toString('hex'),
  };
}

/** Later sources override earlier ones; a single [global] section keeps override semantics obvious. */
function renderConf(...sources: Record<string, string>[]): string {
  const merged = new Map<string, [string, string]>();
  for (const source of sources) {
    for (const [key, value] of Object.entries(source)) merged.set(normalizeKey(key), [key, value]);
  }
  const lines = [...merged.values()].map(([key, value]) => `${key} = ${value}`);
  return ['[global]', ...lines, ''].join('\n');
}

// ---- processes ----

function commandEnv(conf: string): NodeJS.ProcessEnv {
  // CEPH_ARGS from the caller's environment could point the tools at another cluster.
  const env: NodeJS.ProcessEnv = { ...process.env, CEPH_CONF: conf };
  delete env.CEPH_ARGS;
  return env;
}

/** Runs a short-lived Ceph command; the error carries stderr because that is where Ceph explains. */
function runCommand(conf: string, binary: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      ['-c', conf, ...args],
      { env: commandEnv(conf), timeout: CLI_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          // Ceph daemons dump hundreds of lines of backtrace on an assert; the end says enough.
          reject(new Error(`${binary} ${args.join(' ')} failed (${error.code ?? error.signal}):\n${lastLines(stderr, 20)}`));
        } else {
          resolve(stdout);
        }
      },
    );
  });
}

/**
 * setpriv --pdeathsig KILL makes the kernel kill the daemon if the test process dies without
 * running its 'exit' handlers (SIGKILL, crash). It execs in place, so the PID is the daemon's.
 */
async function spawnDaemon(conf: string, { dir, ownSession }: ClusterLayout, name: string, binary: string, args: string[]): Promise<Daemon> {
  const outFd = openSync(join(dir, 'log', `${name}.out`), 'a');
  const usePdeathsig = await isExecutableOnPath('setpriv');
  const [command, argv] = usePdeathsig
    ? ['setpriv', ['--pdeathsig', 'KILL', binary, '-c', conf, '-f', ...args]]
    : [binary, ['-c', conf, '-f', ...args]];
  const child = spawn(command, argv, { env: commandEnv(conf), stdio: ['ignore', outFd, outFd], detached: ownSession });
  closeSync(outFd); // the child holds its own copy
  liveChildren.add(child);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      liveChildren.delete(child);
      resolve();
    });
    child.once('error', () => {
      liveChildren.delete(child);
      resolve();
    });
  });
  return { name, child, exited };
}

function isRunning(daemon: Daemon): boolean {
  return daemon.child.exitCode === null && daemon.child.signalCode === null && daemon.child.pid !== undefined;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** SIGTERM first so Ceph shuts down cleanly; SIGKILL if it lingers past the grace period. */
async function killDaemon(daemon: Daemon): Promise<void> {
  if (!isRunning(daemon)) return;
  daemon.child.kill('SIGTERM');
  const timer = setTimeout(() => daemon.child.kill('SIGKILL'), STOP_GRACE_MS);
  await daemon.exited;
  clearTimeout(timer);
}

function lastLines(text: string, lines: number): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

async function tail(file: string, lines: number): Promise<string> {
  try {
    return lastLines(await readFile(file, 'utf8'), lines);
  } catch {
    return '(no log)';
  }
}

async function logTails(dir: string): Promise<string> {
  const files = ['mon.out', 'mon.a.log', 'osd.out', 'osd.0.log', 'rgw.out', `${RGW_NAME}.log`];
  const parts = await Promise.all(
    files.map(async (file) => `--- ${file} ---\n${await tail(join(dir, 'log', file), 15)}`),
  );
  return parts.join('\n');
}

// ---- S3 ----

export function rgwS3Client(rgw: Rgw, overrides: Partial<S3ClientConfig> = {}): S3Client {
  return new S3Client({
    endpoint: rgw.endpoint,
    region: rgw.region,
    forcePathStyle: true, // RGW here has no wildcard DNS: path-style only
    credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
    // Pacific ignores x-amz-checksum-* and rejects aws-chunked trailers; send plain bodies.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...overrides,
  });
}

export async function createBucket(rgw: Rgw, name: string, opts: { versioning?: boolean } = {}): Promise<void> {
  const s3 = rgwS3Client(rgw);
  try {
    await s3.send(new CreateBucketCommand({ Bucket: name }));
    if (opts.versioning) {
      await s3.send(new PutBucketVersioningCommand({ Bucket: name, VersioningConfiguration: { Status: 'Enabled' } }));
    }
  } finally {
    s3.destroy();
  }
}

/** "Up" means a signed request succeeds: that proves the frontend, the user and the pools all work. */
async function waitForSignedListBuckets(rgw: Rgw, deadline: number): Promise<void> {
  const s3 = rgwS3Client(rgw, { maxAttempts: 1, requestHandler: { connectionTimeout: 1000, requestTimeout: 5000 } });
  let lastError: unknown;
  try {
    while (Date.now() < deadline) {
      try {
        const out = await s3.send(new ListBucketsCommand({}));
        if (out.$metadata.httpStatusCode === 200) return;
      } catch (error) {
        lastError = error;
      }
      await delay(100);
    }
  } finally {
    s3.destroy();
  }
  throw new Error(`RGW did not answer a signed ListBuckets with 200: ${String(lastError)}`);
}

// ---- start / stop ----

class Cluster {
  readonly conf: string;
  private readonly daemons: Daemon[] = [];
  private stopping = false;
  private fail: (error: Error) => void = () => undefined;
  /** Rejects when a daemon dies on its own, so a broken start fails fast instead of at the timeout. */
  readonly failure = new Promise<never>((_, reject) => {
    this.fail = reject;
  });

  constructor(readonly layout: ClusterLayout) {
    this.conf = join(layout.dir, 'ceph.conf');
    this.failure.catch(() => undefined); // a death after a successful start must not crash jest
  }

  run(binary: string, args: string[]): Promise<string> {
    return runCommand(this.conf, binary, args);
  }

  async spawn(name: string, binary: string, args: string[]): Promise<void> {
    // A start that timed out keeps running in the background; it must not spawn after stop().
    if (this.stopping) throw new Error(`not starting ${name}: cluster is stopping`);
    const daemon = await spawnDaemon(this.conf, this.layout, name, binary, args);
    this.daemons.push(daemon);
    void daemon.exited.then(() => {
      if (!this.stopping) {
        this.fail(new Error(`${name} exited unexpectedly (code ${daemon.child.exitCode}, signal ${daemon.child.signalCode})`));
      }
    });
  }

  /** Reverse start order: radosgw hangs on shutdown if the OSD goes first, and the OSD wants its mon. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const daemon of [...this.daemons].reverse()) await killDaemon(daemon);
    await rm(this.layout.dir, { recursive: true, force: true });
    liveDirs.delete(this.layout.dir);
  }
}

async function writeConf(cluster: Cluster, options: RgwOptions): Promise<void> {
  const { dir } = cluster.layout;
  await Promise.all(['run', 'log', 'crash', 'mon', 'osd'].map((sub) => mkdir(join(dir, sub), { recursive: true })));
  const conf = renderConf(baseSettings(cluster.layout), options.sts ? stsSettings() : {}, options.extraConf ?? {});
  await writeFile(cluster.conf, conf);
}

async function startMon(cluster: Cluster): Promise<void> {
  const { dir, fsid, monPort } = cluster.layout;
  const monmap = join(dir, 'monmap');
  await cluster.run('monmaptool', ['--create', '--fsid', fsid, '--addv', 'a', `[v2:127.0.0.1:${monPort}]`, monmap]);
  await cluster.run('ceph-mon', ['-i', 'a', '--mkfs', '--monmap', monmap]);
  await cluster.spawn('mon', 'ceph-mon', ['-i', 'a']);
}

async function startOsd(cluster: Cluster): Promise<void> {
  const uuid = randomUUID();
  // `osd new` waits for the mon to answer, so it doubles as the mon readiness check.
  const id = (await cluster.run('ceph', ['--connect-timeout', '20', 'osd', 'new', uuid])).trim();
  // memstore's mkfs asserts instead of creating a missing data dir.
  await mkdir(join(cluster.layout.dir, 'osd', `ceph-${id}`), { recursive: true });
  await cluster.run('ceph-osd', ['-i', id, '--mkfs', '--osd-uuid', uuid]);
  await cluster.spawn('osd', 'ceph-osd', ['-i', id]);
}

async function createUser(cluster: Cluster, accessKeyId: string, secretAccessKey: string, sts: boolean): Promise<void> {
  // Blocks until the OSD is up and RGW's pools exist, so it is also the OSD readiness check.
  await cluster.run('radosgw-admin', [
    'user', 'create', '--uid', USER_ID, '--display-name', USER_ID,
    '--access-key', accessKeyId, '--secret-key', secretAccessKey,
  ]);
  if (sts) {
    // Lets the user register OpenID Connect providers and roles through RGW's IAM API.
    await cluster.run('radosgw-admin', ['caps', 'add', '--uid', USER_ID, '--caps', 'oidc-provider=*;roles=*']);
  }
}

/** A storage class in the default placement target, stored in the default data pool like STANDARD. */
async function addStorageClass(cluster: Cluster, storageClass: string): Promise<void> {
  const target = ['--placement-id', 'default-placement', '--storage-class', storageClass];
  await cluster.run('radosgw-admin', ['zonegroup', 'placement', 'add', '--rgw-zonegroup', 'default', ...target]);
  await cluster.run('radosgw-admin', ['zone', 'placement', 'add', '--rgw-zone', 'default', ...target, '--data-pool', 'default.rgw.buckets.data']);
}

async function bringUp(cluster: Cluster, rgw: Rgw, options: RgwOptions): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  await writeConf(cluster, options);
  await startMon(cluster);
  await startOsd(cluster);
  await createUser(cluster, rgw.accessKeyId, rgw.secretAccessKey, options.sts === true);
  for (const storageClass of options.storageClasses ?? []) await addStorageClass(cluster, storageClass);
  await cluster.spawn('rgw', 'radosgw', ['-n', RGW_NAME]);
  await waitForSignedListBuckets(rgw, deadline);
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export async function startRgw(options: RgwOptions = {}): Promise<Rgw> {
  await assertCephInstalled();
  installExitHook();
  // A free port is free when it is picked, not when the daemon binds it: a suite running beside this one
  // can take it in between. That collision, and only it, is worth another try on new ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRgwOnce(options);
    } catch (error) {
      if (attempt >= 3 || !(error instanceof Error) || !/Address already in use/.test(error.message)) throw error;
    }
  }
}

async function startRgwOnce(options: RgwOptions): Promise<Rgw> {
  const dir = await mkdtemp(join(tmpdir(), 'rgw-'));
  liveDirs.add(dir);
  const [monPort, rgwPort] = await freePorts(2);
  const cluster = new Cluster({ dir, fsid: randomUUID(), monPort, rgwPort, ownSession: options.ownSession ?? false });
  const rgw: Rgw = {
    endpoint: `http://127.0.0.1:${rgwPort}`,
    port: rgwPort,
    accessKeyId: options.accessKeyId ?? DEFAULT_ACCESS_KEY_ID,
    secretAccessKey: options.secretAccessKey ?? DEFAULT_SECRET_ACCESS_KEY,
    region: 'us-east-1',
    dir,
    admin: (args) => cluster.run('radosgw-admin', args),
    stop: () => cluster.stop(),
  };
  try {
    await withTimeout(Promise.race([bringUp(cluster, rgw, options), cluster.failure]), START_TIMEOUT_MS);
    return rgw;
  } catch (error) {
    const logs = await logTails(dir);
    await cluster.stop();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Ceph RGW failed to start (dir ${dir}, now removed): ${reason}\nDaemon log tails:\n${logs}`);
  }
}
