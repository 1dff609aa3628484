import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Starts the gateway as its users run it: a separate process on a free loopback port, configured through
 * CONFIG_PATH and the environment. Each runtime is one entry; suites iterate `RUNTIMES` so the same
 * specifications run against every runtime (a matrix, never a copy).
 */
export type RuntimeName = 'node';

export const RUNTIMES: readonly RuntimeName[] = ['node'];

/** The npm script's entry point per runtime: what `npm run serve` (and friends) execute. */
const ENTRY: Record<RuntimeName, string> = {
  node: 'functions/node-server.ts',
};

export interface RunningGateway {
  readonly runtime: RuntimeName;
  readonly endpoint: string;
  readonly pid: number;
  /** Everything the process logged so far (access log lines and errors). */
  logs(): string;
  /** Resident set size of the gateway process, in bytes. */
  rss(): number;
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
}

/** A loopback port that was free a moment ago (the OS may hand it out again, so use it promptly). */
export function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePromise(port));
    });
  });
}

const ROOT = resolve(__dirname, '../..');

export async function startGateway(runtime: RuntimeName, options: GatewayOptions): Promise<RunningGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-'));
  const configPath = join(dir, 'proxy.toml');
  writeFileSync(configPath, options.config);
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY[runtime]], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env, CONFIG_PATH: configPath, HOST: '127.0.0.1', PORT: String(options.port ?? 0) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const endpoint = await listening(child, () => output);
  return {
    runtime,
    endpoint,
    pid: child.pid ?? 0,
    logs: () => output,
    rss: () => rssOf(child.pid ?? 0),
    stop: async () => {
      process.off('exit', killOnExit);
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts a gateway expecting it to refuse the configuration; resolves with its exit code and output. */
export function runGatewayExpectingFailure(runtime: RuntimeName, options: GatewayOptions): Promise<{ code: number | null; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-'));
  const configPath = join(dir, 'proxy.toml');
  writeFileSync(configPath, options.config);
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY[runtime]], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...options.env, CONFIG_PATH: configPath, HOST: '127.0.0.1', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
      resolvePromise({ code, output });
    });
  });
}

function listening(child: ChildProcess, output: () => string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gateway did not start within 30 s:\n${output()}`));
    }, 30_000);
    const check = (): void => {
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output());
      if (match) {
        clearTimeout(timer);
        resolvePromise(match[1]);
      }
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with code ${code}:\n${output()}`));
    });
  });
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}
