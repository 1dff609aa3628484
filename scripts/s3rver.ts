import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * s3rver, the zero-setup S3 backend, in a child process. It must run under --openssl-legacy-provider (else
 * every truncated ListObjectsV2 page is a 500) and only ever on 127.0.0.1: it maps keys to file paths.
 * Its access key is always S3RVER and it checks no signatures.
 */
export interface S3rver {
  readonly endpoint: string;
  readonly port: number;
  readonly accessKeyId: 'S3RVER';
  readonly secretAccessKey: 'S3RVER';
  stop(): Promise<void>;
}

export interface S3rverOptions {
  /** Data directory; a fresh temporary one (removed on stop) when absent. */
  readonly directory?: string;
  /** Port on 127.0.0.1; 0 picks a free one. */
  readonly port?: number;
  readonly buckets?: readonly string[];
}

export async function startS3rver(options: S3rverOptions = {}): Promise<S3rver> {
  const temporary = options.directory === undefined;
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 's3rver-'));
  const bin = require.resolve('s3rver/bin/s3rver.js');
  const args = ['--openssl-legacy-provider', bin, '-d', directory, '-a', '127.0.0.1', '-p', String(options.port ?? 0), '--no-vhost-buckets'];
  for (const bucket of options.buckets ?? []) args.push('--configure-bucket', bucket);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const port = await listeningPort(child);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    stop: async () => {
      process.off('exit', killOnExit);
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      if (temporary) rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Waits for s3rver's "listening" line and reads the port from it. */
function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`s3rver did not start within 15 s:\n${output}`)), 15_000);
    const fail = (err: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(err);
    };
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening on [^\s]*?:(\d+)/i.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => fail(new Error(`s3rver exited with code ${code}:\n${output}`)));
  });
}
