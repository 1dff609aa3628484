import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

/**
 * A local server run as a child process (s3rver, Azurite, the GCS emulator): started, awaited until it
 * prints the port it listens on, killed if the parent exits, and stopped with SIGTERM (SIGKILL after 5 s).
 */
export interface Daemon {
  readonly port: number;
  /**
   * Settles only if the daemon exits before `stop()`: why, with the end of its output. A backend that
   * died would otherwise leave its gateway answering 503 with no word of the cause.
   */
  readonly died: Promise<string>;
  stop(): Promise<void>;
}

/** How much of a daemon's latest output is kept for `died`: enough for a stack trace. */
const TAIL_CHARS = 4096;

export interface DaemonOptions {
  /** Named in errors. */
  readonly name: string;
  /** Matches the line announcing the port; its first group is the port. */
  readonly listening: RegExp;
  readonly timeoutMs: number;
  readonly env?: NodeJS.ProcessEnv;
}

export async function startDaemon(args: readonly string[], options: DaemonOptions): Promise<Daemon> {
  const child = spawn(process.execPath, args, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const port = await listeningPort(child, options);
  let stopping = false;
  return {
    port,
    died: diedOf(child, options.name, () => stopping),
    stop: async () => {
      stopping = true;
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function listeningPort(child: ChildProcess, options: DaemonOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const fail = (err: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(err);
    };
    const timer = setTimeout(() => fail(new Error(`${options.name} did not start within ${options.timeoutMs / 1000} s:\n${output}`)), options.timeoutMs);
    const onExit = (code: number | null): void => fail(new Error(`${options.name} exited with code ${code}:\n${output}`));
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = options.listening.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      // A running daemon does not keep the parent alive (the parent's exit kills it): a suite whose other
      // servers failed to start, and so never stopped this one, still ends.
      unref(child);
      resolve(Number(match[1]));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Keeps the end of the daemon's output (draining it, so a chatty daemon never blocks on a full pipe). */
function diedOf(child: ChildProcess, name: string, stopping: () => boolean): Promise<string> {
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString()).slice(-TAIL_CHARS);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return new Promise((resolve) => {
    // 'close', not 'exit': its output is read to the end by then.
    child.once('close', (code, signal) => {
      if (stopping()) return;
      const how = signal === null ? `with code ${code}` : `on ${signal}`;
      resolve(`${name} exited ${how}${tail.trim() === '' ? '' : `; its last output:\n${tail.trimEnd()}`}`);
    });
  });
}

function unref(child: ChildProcess): void {
  child.unref();
  for (const pipe of [child.stdout, child.stderr]) (pipe as Socket | null)?.unref();
}
