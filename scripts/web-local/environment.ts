import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { freePort } from '../ports';

/**
 * One Web Function execution environment, locally: the function's entry in a process of its own with
 * AWS_LAMBDA_HTTP_ENDPOINT set (the platform sets nothing else of its own: no HOST, no PORT), ready once
 * something listens there. Lambda gives the process 10 s to listen and then fails the environment.
 */
export interface Environment {
  /** `http://127.0.0.1:PORT`, where the function listens. */
  readonly target: string;
  readonly process: ChildProcess;
  /** SIGTERM, as at scale-in; resolves once the process exited. */
  stop(): Promise<void>;
}

export interface EnvironmentOptions {
  /** The process's environment (the function's variables). */
  readonly env: NodeJS.ProcessEnv;
  /** @default 10 s, Lambda's limit */
  readonly initTimeoutMs?: number;
}

const ROOT = resolve(__dirname, '..', '..');

/**
 * The command that runs the function: its esbuild bundle beside this file when this file is itself a bundle
 * (`npm run build`), else the TypeScript entry under the loader this process runs under (tsx).
 */
function entry(): string[] {
  if (__filename.endsWith('.js')) return ['--enable-source-maps', join(__dirname, 'web-function.js')];
  return [...process.execArgv, join(ROOT, 'functions', 'web-function.ts')];
}

export async function startEnvironment(options: EnvironmentOptions): Promise<Environment> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...options.env, AWS_LAMBDA_HTTP_ENDPOINT: `127.0.0.1:${port}` };
  delete env.HOST;
  delete env.PORT;
  // Its output is the function's log: it goes where this process's goes.
  const child = spawn(process.execPath, entry(), { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise<number | null>((resolvePromise) => child.once('exit', (code) => resolvePromise(code)));
  const deadline = Date.now() + (options.initTimeoutMs ?? 10_000);
  for (;;) {
    if (child.exitCode !== null) throw new InitError(`the function exited with code ${child.exitCode} before it listened`, child.exitCode);
    if (await accepts(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new InitError(`the function did not listen on ${env.AWS_LAMBDA_HTTP_ENDPOINT} within ${(options.initTimeoutMs ?? 10_000) / 1000} s (Lambda's init limit)`, 1);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    target: `http://127.0.0.1:${port}`,
    process: child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export class InitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(false));
  });
}
