import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { NODE_SERVER_FLAGS } from '../../functions/node-server';
import { MAX_REQUEST_PAYLOAD_BYTES, MAX_RESPONSE_BYTES } from '../../scripts/lambda-local/function-url';

/**
 * Starts the gateway as its users run it: a separate process on a free loopback port, configured through
 * CONFIG_PATH and the environment. Each runtime is one entry; suites iterate `RUNTIMES` so the same
 * specifications run against every runtime (a matrix, never a copy).
 */
export type RuntimeName = 'node' | 'lambda' | 'edge' | 'web';

export const RUNTIMES: readonly RuntimeName[] = ['node', 'lambda', 'edge', 'web'];

/**
 * One runtime per backend transport, for specs of what the core does with a store (listings, copies,
 * versions, path mapping, Azure and GCS, STS and the OIDC provider): the Node server (Node's own HTTP/1.1
 * client, which the Lambda handler and the Web Function use too) and the edge worker (fetch). No adapter
 * changes that logic, and running it on all four runtimes doubled CI's time; what an adapter or a
 * platform's front changes is specified on every runtime (RUNTIMES).
 */
export const TRANSPORT_RUNTIMES: readonly RuntimeName[] = ['node', 'edge'];

/**
 * One runtime per adapter, for specs that move large bodies: the Web Function runs the Node server's
 * adapter unchanged behind Lambda's front, whose local stand-in is test code, so gigabytes through it show
 * nothing about the product; what that front changes is specified in web-function.test.ts and
 * runtime-headers.test.ts.
 */
export const ADAPTER_RUNTIMES: readonly RuntimeName[] = ['node', 'lambda', 'edge'];

/** The npm script's entry point per runtime: what `npm run serve` (and friends) execute. */
const ENTRY: Record<RuntimeName, string> = {
  node: 'functions/node-server.ts',
  /** `npm run start:lambda`: the Lambda handler behind the local Function URL. */
  lambda: 'scripts/lambda-local.ts',
  /** `npm run start:edge`: the edge worker's bundle under miniflare (workerd). */
  edge: 'scripts/edge-local.ts',
  /** `npm run start:web`: the Web Function entry (the Node server) behind the local Web Function endpoint. */
  web: 'scripts/web-local.ts',
};

/**
 * What each runtime's platform imposes, declared once so suites adapt to it instead of forking (absent: the
 * platform adds no limit of its own). The Lambda values are the Function URL's, enforced by the local front;
 * the web ones a Lambda Web Function's, as its local endpoint models them.
 */
export interface RuntimeLimits {
  /**
   * Largest request body that reaches the gateway; the local stand-in answers a larger one with the
   * platform's 413 (Lambda: the 6 MB invocation payload, base64-encoded, with the event's other fields).
   */
  readonly maxRequestBodyBytes?: number;
  /**
   * A request limit the platform enforces in front of the gateway in production that no local stand-in can
   * (the edge: Cloudflare refuses bodies above 100 MB on the Free and Pro plans, 200 MB Business, 500 MB
   * Enterprise, before the worker runs; workerd, and so miniflare, has no such limit). Suites that show
   * what fits size their bodies by it; the 413 itself is not observable locally.
   */
  readonly platformMaxRequestBodyBytes?: number;
  /** Largest streamed response body; a longer one is cut. */
  readonly maxResponseBodyBytes?: number;
  /**
   * The platform hands the gateway a URL already parsed by a WHATWG URL parser instead of the request line,
   * so `.` and `..` segments (also as `%2e`) are resolved before the gateway sees the path: such a key
   * cannot be refused as InvalidRequest. A signed request is refused all the same (SignatureDoesNotMatch:
   * the client signed the path it sent); an anonymous one reaches the resolved path, authorized as that.
   */
  readonly resolvesDotSegments?: boolean;
  /**
   * The code a refused backend connection is logged with. Node's sockets name it (`ECONNREFUSED`, the
   * default); the Workers runtime's fetch rejects with a plain Error ("Network connection lost.") that
   * carries no code, so the log can only say `Error`. The client's answer (503) is the same everywhere.
   */
  readonly refusedConnectionCode?: string;
  /**
   * The runtime decodes request header values as UTF-8 before the gateway sees them, replacing bytes that
   * are not UTF-8 (workerd: a Latin-1 `caf\xe9` arrives as `caf\ufffd`). Such a value cannot be verified as
   * its client signed it, so the request is refused (SignatureDoesNotMatch); UTF-8 values pass byte for byte.
   */
  readonly decodesHeaderValuesAsUtf8?: boolean;
  /**
   * How a response header value with bytes beyond ASCII reaches the client (absent: as the backend sent them,
   * byte for byte). `ascii`: the prelude of a Lambda response is JSON text and what the Function URL makes of
   * a non-ASCII value is undocumented, so the gateway encodes it (Content-Disposition parameters as RFC 8187
   * `filename*` next to an ASCII fallback, other values as RFC 2047 encoded words). `utf8`: the Workers
   * runtime holds header values as UTF-8 text, so valid UTF-8 passes byte for byte and any other byte arrives
   * as U+FFFD (EF BF BD) before the worker sees it.
   */
  readonly nonAsciiHeaders?: 'ascii' | 'utf8';
  /**
   * The platform answers a request body that stops arriving itself, before the gateway runs (it hands the
   * function the body whole): this status, in the platform's shape. Absent: the gateway answers after its
   * idle timeout with S3's 400 RequestTimeout (the STS shape for STS forms).
   */
  readonly stalledBodyStatus?: number;
  /**
   * The platform renames the `Content-Length` of every response to `x-amzn-remapped-content-length` and sends
   * the body chunked (a Function URL in RESPONSE_STREAM, reported on AWS; the local front does the same).
   * Bodies still arrive whole, but no response states its size, and the gateway cannot restore it: a HEAD
   * has no `Content-Length`, so HeadObject reports no ContentLength (the JS SDK leaves it undefined,
   * `aws s3api head-object` omits it), and aws-cli's `s3 cp` downloads, which take the size from HeadObject,
   * fail.
   */
  readonly remapsContentLength?: boolean;
  /**
   * The platform decodes a gzip response body and drops its `Content-Encoding` (a Function URL, reported).
   * So that objects still arrive byte for byte (ETag and checksums matching), the gateway sends no
   * `Content-Encoding` there: an object's Content-Encoding is not reported to clients.
   */
  readonly dropsContentEncoding?: boolean;
  /**
   * The platform gives the gateway one fixed host name (a Function URL's `<id>.lambda-url.<region>.on.aws`, a
   * Web Function's endpoint domain),
   * so no `{bucket}.{domain}` name can reach it: virtual-hosted–style addressing is not for this runtime
   * (the local stand-in would pass any Host through; production cannot).
   */
  readonly fixedHost?: boolean;
  /**
   * The gateway marks the answers its platform would compress or decode `Cache-Control: no-transform` (the
   * edge: Cloudflare compresses GET answers of text, JSON, XML and other listed types, and decodes encoded
   * ones, unless they say so), added to an object's own Cache-Control: clients read `max-age=60, no-transform`
   * for a text object stored with `max-age=60` from its GET, and `max-age=60` from its HEAD or a binary one's GET.
   */
  readonly marksTransformable?: boolean;
}

export const RUNTIME_LIMITS: Record<RuntimeName, RuntimeLimits> = {
  node: {},
  lambda: {
    maxRequestBodyBytes: Math.floor(((MAX_REQUEST_PAYLOAD_BYTES - 16 * 1024) * 3) / 4),
    maxResponseBodyBytes: MAX_RESPONSE_BYTES,
    remapsContentLength: true,
    dropsContentEncoding: true,
    nonAsciiHeaders: 'ascii',
    // The local Function URL's answer; what AWS answers is undocumented (scripts/lambda-local/function-url.ts).
    stalledBodyStatus: 408,
    fixedHost: true,
  },
  // Responses are not limited on the edge.
  edge: {
    platformMaxRequestBodyBytes: 100 * 1000 * 1000,
    resolvesDotSegments: true,
    refusedConnectionCode: 'Error',
    decodesHeaderValuesAsUtf8: true,
    nonAsciiHeaders: 'utf8',
    marksTransformable: true,
  },
  // No body limit is documented for a Web Function; its request timeout (900 s) bounds the rest.
  // Its Host must be the endpoint's own domain name (any other is the platform's 404).
  web: { fixedHost: true },
};

/**
 * The size a response reports on `runtime`: `size`, or undefined where the platform renames Content-Length
 * (RUNTIME_LIMITS `remapsContentLength`), as an SDK's ContentLength.
 */
export function reportedLength(runtime: RuntimeName, size: number): number | undefined {
  return RUNTIME_LIMITS[runtime].remapsContentLength ? undefined : size;
}

/**
 * What an aws-cli `s3 cp` whose source is an object holding `body` does on `runtime` (matched against its
 * `Run`): succeeds, printing `body` when the destination is `-`; or, where the platform renames
 * Content-Length, fails the way aws-cli does, on the size its HeadObject of the source lacks.
 */
export function expectedCliCopy(runtime: RuntimeName, body?: string): Record<string, unknown> {
  if (RUNTIME_LIMITS[runtime].remapsContentLength) return { code: 1, stderr: expect.stringContaining("'ContentLength'") };
  return body === undefined ? { code: 0, stderr: '' } : { code: 0, stdout: body };
}

/**
 * The Cache-Control a response reports on `runtime` for `stored` (RUNTIME_LIMITS `marksTransformable`);
 * `transformable`: the spec's own account of whether Cloudflare would compress or decode that answer (a GET
 * answer of a type it lists, or of an encoded body; never a HEAD answer).
 */
export function reportedCacheControl(runtime: RuntimeName, stored: string, transformable: boolean): string {
  return RUNTIME_LIMITS[runtime].marksTransformable && transformable ? `${stored}, no-transform` : stored;
}

export interface RunningGateway {
  readonly runtime: RuntimeName;
  readonly endpoint: string;
  readonly pid: number;
  /** Everything the process logged so far (access log lines and errors). */
  logs(): string;
  /**
   * Whether a line matching `pattern` is logged within two seconds: an access-log line is written once its
   * response has finished (the Node server batches them per event-loop turn), so it may trail the response.
   */
  logged(pattern: RegExp): Promise<boolean>;
  /** Resident set size of the gateway process (with its children, without a platform stand-in), in bytes. */
  rss(): number;
  /** Sends `signal` to the gateway process alone (a container engine's or orchestrator's SIGTERM). */
  kill(signal: NodeJS.Signals): void;
  /** The process's exit code once it ended (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  stop(): Promise<void>;
}

export interface GatewayOptions {
  /** TOML configuration text. */
  readonly config: string;
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Listen on this port instead of a free one chosen by the OS: for a gateway that must know its own URL
   * before it starts (its OIDC issuer). Get one from `freePort()`.
   */
  readonly port?: number;
  /**
   * Run this esbuild bundle of the runtime's entry (`npm run build`) with plain node, as a deployment would;
   * `false`: the TypeScript entry under tsx, as the npm scripts (`npm run start:lambda`) run it. Absent: the
   * run's shared bundles (`bundles-setup.ts`) where jest built them, else the TypeScript entry.
   */
  readonly bundle?: string | false;
  /**
   * Send the process's stdout (its access log) to this file instead of collecting it, as a deployment's log
   * file would take it: for benchmarks, where a pipe drained by this process would put the test runner's own
   * CPU into what is measured. `logs()` then has only stderr.
   */
  readonly logFile?: string;
}

/** A port for `GatewayOptions.port`, chosen where no other process takes it meanwhile (scripts/ports.ts). */
export { freePort } from '../../scripts/ports';

const ROOT = resolve(__dirname, '../..');
const LOG_TAIL = 1 << 20;

/** Where jest's global setup put the run's bundles (an environment variable, so the workers inherit it). */
export const TEST_BUNDLES_ENV = 'GATEWAY_TEST_BUNDLES';

/** The bundle of each runtime's entry that `buildBundles` writes; the edge runner bundles its worker itself. */
const BUNDLE_FILE: Partial<Record<RuntimeName, string>> = { node: 'node-server.js', lambda: 'lambda-local.js', web: 'web-local.js' };

function bundleFor(runtime: RuntimeName, option: string | false | undefined): string | undefined {
  if (option !== undefined) return option === false ? undefined : option;
  const dir = process.env[TEST_BUNDLES_ENV];
  const file = BUNDLE_FILE[runtime];
  return dir === undefined || file === undefined ? undefined : join(dir, file);
}

/** node's arguments for `runtime`: its bundle with plain node, or its TypeScript entry under tsx. */
function entryArgs(runtime: RuntimeName, option: string | false | undefined): string[] {
  const bundle = bundleFor(runtime, option);
  return [...(runtime === 'node' ? NODE_SERVER_FLAGS : []), ...(bundle !== undefined ? ['--enable-source-maps', bundle] : ['--import', 'tsx', ENTRY[runtime]])];
}

export async function startGateway(runtime: RuntimeName, options: GatewayOptions): Promise<RunningGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-'));
  const configPath = join(dir, 'proxy.toml');
  writeFileSync(configPath, options.config);
  const args = entryArgs(runtime, options.bundle);
  const logFd = options.logFile === undefined ? undefined : openSync(options.logFile, 'a');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env, CONFIG_PATH: configPath, HOST: '127.0.0.1', PORT: String(options.port ?? 0) },
    stdio: ['ignore', logFd ?? 'pipe', 'pipe'],
    // Its own process group, so a kill reaches the edge runner's workerd child too (see killGroup).
    detached: true,
  });
  if (logFd !== undefined) closeSync(logFd); // the child has its own copy
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  let output = '';
  // Keep the tail only: a benchmark logs millions of lines.
  const collect = (c: Buffer): void => {
    output += c.toString();
    if (output.length > 4 * LOG_TAIL) output = output.slice(-LOG_TAIL);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const killOnExit = (): void => killGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);
  const endpoint = await listening(child, () => output);
  return {
    runtime,
    endpoint,
    pid: child.pid ?? 0,
    logs: () => output,
    logged: async (pattern) => {
      for (let i = 0; i < 40 && !pattern.test(output); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      return pattern.test(output);
    },
    // Each local front stands for the platform's own infrastructure and runs the gateway in a child: the Web
    // Function endpoint and the Function URL (its handler started through the function's exec wrapper) stand
    // for Lambda's, the edge runner (miniflare and its node:http front) for Cloudflare's front line, with the
    // worker in workerd. Only the children are the gateway's memory.
    rss: () => (runtime === 'node' ? rssOf(child.pid ?? 0) : childrenOf(child.pid ?? 0).reduce((sum, pid) => sum + rssOf(pid), 0)),
    kill: (signal) => void child.kill(signal),
    exited,
    stop: async () => {
      process.off('exit', killOnExit);
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      // Whatever the gateway left running in its group (a workerd that outlived its runner) goes too.
      killGroup(child, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts a gateway expecting it to refuse the configuration; resolves with its exit code and output. */
export function runGatewayExpectingFailure(runtime: RuntimeName, options: GatewayOptions): Promise<{ code: number | null; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-'));
  const configPath = join(dir, 'proxy.toml');
  writeFileSync(configPath, options.config);
  const child = spawn(process.execPath, entryArgs(runtime, options.bundle), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...options.env, CONFIG_PATH: configPath, HOST: '127.0.0.1', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      killGroup(child, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      resolvePromise({ code, output });
    });
  });
}

/** Signals the gateway's process group (it was spawned detached, as its leader); gone already is fine. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group has no process left
  }
}

function listening(child: ChildProcess, output: () => string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      killGroup(child, 'SIGKILL');
      reject(new Error(`gateway did not start within 30 s:\n${output()}`));
    }, 30_000);
    const onExit = (code: number | null): void => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with code ${code}:\n${output()}`));
    };
    const check = (): void => {
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output());
      if (!match) return;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('exit', onExit);
      resolvePromise(match[1]);
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', onExit);
  });
}

/** Resident set size of a process and all its descendants. */
function rssOf(pid: number): number {
  let total = 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    total += match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
  for (const child of childrenOf(pid)) total += rssOf(child);
  return total;
}

/** The processes `pid` started (from /proc): the local fronts run their function in a child. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const list = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (list) children.push(...list.split(/\s+/).map(Number));
    }
  } catch {
    // the process ended meanwhile
  }
  return children;
}
