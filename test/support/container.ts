import { execFile, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { freePort } from './gateway';

/**
 * Container images in the tests, with podman from Debian run as root (rootful): `Podman.require` fails for
 * any other user, since rootless podman needs uidmap, slirp4netns and subordinate ID ranges that .ci/run does
 * not set up, and fails on them with errors that do not say so. No image registry is reachable here,
 * so the project's Dockerfile is built on a base made from this machine's own Node (`buildHostNodeBase`),
 * passed through the Dockerfile's NODE_IMAGE argument; users build on the official Node image.
 */

/** What .ci/run installs; named when podman is missing. */
export const PODMAN_PACKAGES = 'podman runc netavark iptables';

/**
 * Podman's defaults fail on these machines: it asks for an open-files limit above the hard limit
 * (no CAP_SYS_RESOURCE), and crun refuses the hybrid cgroup layout. This configuration, given through
 * CONTAINERS_CONF, changes nothing in /etc.
 */
const CONTAINERS_CONF = `[containers]
default_ulimits = ["nofile=16384:16384", "nproc=16384:16384"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
`;

export interface PodmanRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export class Podman {
  private readonly env: NodeJS.ProcessEnv;

  private constructor(private readonly dir: string) {
    const conf = join(dir, 'containers.conf');
    writeFileSync(conf, CONTAINERS_CONF);
    this.env = { ...process.env, CONTAINERS_CONF: conf };
  }

  /**
   * Fails loudly, naming the packages, when podman is not installed, and when the tests do not run as root:
   * the container spec is never skipped.
   */
  static require(): Podman {
    const uid = process.getuid?.();
    if (uid !== 0) {
      throw new Error(
        `the container spec runs podman as root, and this process runs as uid ${uid ?? 'unknown'}: run it as root ` +
          '(CI does). Rootless podman would need uidmap, slirp4netns and subordinate ID ranges, which .ci/run does not set up',
      );
    }
    try {
      execFileSync('podman', ['--version'], { stdio: 'pipe' });
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      throw new Error(
        missing
          ? `podman is not installed: the container spec builds and runs the image with it. Install the Debian packages: apt-get install ${PODMAN_PACKAGES} (.ci/run does)`
          : `podman --version failed: ${(err as Error).message}`,
      );
    }
    return new Podman(mkdtempSync(join(tmpdir(), 'podman-')));
  }

  run(args: readonly string[], input?: NodeJS.ReadableStream): Promise<PodmanRun> {
    return new Promise((resolvePromise) => {
      const child = execFile('podman', args, { env: this.env, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
        resolvePromise({ code, stdout, stderr });
      });
      if (input && child.stdin) input.pipe(child.stdin);
    });
  }

  /** Like `run`, but a non-zero exit is an error carrying podman's output. */
  async ok(args: readonly string[], input?: NodeJS.ReadableStream): Promise<string> {
    const out = await this.run(args, input);
    if (out.code !== 0) throw new Error(`podman ${args.join(' ')} exited with ${out.code}:\n${out.stderr}${out.stdout}`);
    return out.stdout;
  }

  spawn(args: readonly string[]): ReturnType<typeof spawn> {
    return spawn('podman', args, { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A base image holding this machine's Node: its binary at /usr/local/bin/node (where the official image
 * has it), npm, the shared libraries they load, `/bin/sh` and `env` for npm's scripts, the user 1000 the
 * official image calls `node`, and the machine's extra CA certificates (NODE_EXTRA_CA_CERTS) so npm reaches
 * the registry as the host does. No shell utilities, no package manager: about the size of Node itself.
 */
export async function buildHostNodeBase(podman: Podman, tag: string): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'node-base-'));
  try {
    const put = (from: string, to = from): void => {
      mkdirSync(join(root, dirname(to)), { recursive: true });
      copyFileSync(realpathSync(from), join(root, to));
    };
    put(process.execPath, '/usr/local/bin/node');
    const npmDir = resolve(dirname(realpathSync(process.execPath)), '..', 'lib', 'node_modules', 'npm');
    cpSync(npmDir, join(root, 'usr/local/lib/node_modules/npm'), { recursive: true, dereference: true });
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/local/bin/npm'));
    put('/bin/sh');
    put('/usr/bin/env');
    for (const library of sharedLibraries([process.execPath, '/bin/sh', '/usr/bin/env'])) put(library);
    mkdirSync(join(root, 'etc'), { recursive: true });
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n');
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\nnode:x:1000:\n');
    mkdirSync(join(root, 'home/node'), { recursive: true });
    chownSync(join(root, 'home/node'), 1000, 1000);
    mkdirSync(join(root, 'tmp'));
    chmodSync(join(root, 'tmp'), 0o1777);
    const changes = ['--change', 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'];
    const extraCa = process.env.NODE_EXTRA_CA_CERTS;
    if (extraCa) {
      put(extraCa);
      changes.push('--change', `ENV NODE_EXTRA_CA_CERTS=${extraCa}`);
    }
    const tar = spawn('tar', ['-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await podman.ok(['import', ...changes, '-', tag], tar.stdout ?? undefined);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Every shared library `ldd` lists for these executables (including the dynamic loader). */
function sharedLibraries(executables: readonly string[]): string[] {
  const libraries = new Set<string>();
  for (const file of executables) {
    for (const match of execFileSync('ldd', [file], { encoding: 'utf8' }).matchAll(/(\/\S+)/g)) libraries.add(match[1]);
  }
  return [...libraries];
}

export interface ContainerOptions {
  readonly image: string;
  /** Configuration text, mounted read-only where the image's CONFIG_PATH points; unset: the baked-in one. */
  readonly config?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Extra files to mount read-only: container path to host path. */
  readonly mounts?: Readonly<Record<string, string>>;
  /**
   * `host`: the container shares this machine's network (it reaches the test backends on 127.0.0.1) and
   * listens on a free port given as PORT. `published`: its own network, port 8080 published on a free
   * loopback port, as `docker run -p` does.
   */
  readonly network: 'host' | 'published';
}

export interface RunningContainer {
  readonly name: string;
  /** `http://127.0.0.1:PORT`. */
  readonly endpoint: string;
  /** Milliseconds from `podman run` until the server logged that it listens. */
  readonly startedInMs: number;
  logs(): string;
  /** podman run's exit code, which is the container's. */
  readonly exited: Promise<number | null>;
  /** `podman stop`: SIGTERM, then SIGKILL after `timeoutSeconds`. */
  terminate(timeoutSeconds?: number): void;
  /** Removes the container whatever its state. */
  remove(): Promise<void>;
}

let containers = 0;
const READ_ONLY = ['--read-only', '--read-only-tmpfs=false'];

/** Runs the image attached (its output collected), as `docker run --rm` would. */
export async function runContainer(podman: Podman, options: ContainerOptions): Promise<RunningContainer> {
  const name = `s3-gateway-test-${process.pid}-${++containers}`;
  const dir = mkdtempSync(join(tmpdir(), 'container-'));
  // A read-only root without tmpfs mounts, as the ECS task definition runs it (readonlyRootFilesystem).
  const args = ['run', '--rm', '--name', name, ...READ_ONLY];
  const port = await freePort();
  if (options.network === 'host') args.push('--network', 'host', '--env', `PORT=${port}`);
  else args.push('--publish', `127.0.0.1:${port}:8080`);
  for (const [key, value] of Object.entries(options.env ?? {})) args.push('--env', `${key}=${value}`);
  if (options.config !== undefined) {
    const file = join(dir, 'proxy.toml');
    writeFileSync(file, options.config);
    chmodSync(dir, 0o755);
    chmodSync(file, 0o644);
    args.push('--volume', `${file}:/etc/s3-gateway/proxy.toml:ro`);
  }
  for (const [inside, outside] of Object.entries(options.mounts ?? {})) args.push('--volume', `${outside}:${inside}:ro`);
  args.push(options.image);

  const started = performance.now();
  const child = podman.spawn(args);
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const remove = async (): Promise<void> => {
    await podman.run(['rm', '--force', '--time', '0', name]);
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const listening = await Promise.race([
    (async () => {
      const deadline = Date.now() + 60_000;
      while (!/"message":"gateway listening"/.test(output)) {
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 20));
      }
      return true;
    })(),
    exited.then(() => false),
  ]);
  if (!listening) {
    await remove();
    throw new Error(`container ${name} did not start:\n${output}`);
  }
  return {
    name,
    endpoint: `http://127.0.0.1:${port}`,
    startedInMs: performance.now() - started,
    logs: () => output,
    exited,
    terminate: (timeoutSeconds = 60) => void podman.run(['stop', '--time', String(timeoutSeconds), name]),
    remove,
  };
}

/**
 * Runs the image expecting it to refuse to start; resolves with its exit code and output. The container
 * is removed either way.
 */
export async function runContainerExpectingFailure(podman: Podman, image: string, env: Readonly<Record<string, string>>, config?: string): Promise<PodmanRun> {
  const dir = mkdtempSync(join(tmpdir(), 'container-'));
  try {
    const args = ['run', '--rm', '--network', 'none', ...READ_ONLY];
    for (const [key, value] of Object.entries(env)) args.push('--env', `${key}=${value}`);
    if (config !== undefined) {
      writeFileSync(join(dir, 'proxy.toml'), config);
      chmodSync(dir, 0o755);
      chmodSync(join(dir, 'proxy.toml'), 0o644);
      args.push('--volume', `${join(dir, 'proxy.toml')}:/etc/s3-gateway/proxy.toml:ro`);
    }
    return await podman.run([...args, image]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
