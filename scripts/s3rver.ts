import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon } from './daemon';

/**
 * s3rver, the zero-setup S3 backend, in a child process. It must run under --openssl-legacy-provider (else
 * every truncated ListObjectsV2 page is a 500) and only ever on 127.0.0.1: it maps keys to file paths.
 * Its access key is always S3RVER and it checks no signatures. It runs with s3rver-fixes.cjs preloaded,
 * which mends the departures from S3 that it lists (listings, copies, suffix ranges, batch deletes).
 */
export interface S3rver {
  readonly endpoint: string;
  readonly port: number;
  readonly accessKeyId: 'S3RVER';
  readonly secretAccessKey: 'S3RVER';
  /** Settles only if s3rver exits before `stop()`, saying why (daemon.ts). */
  readonly died: Promise<string>;
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
  const fixes = join(__dirname, 's3rver-fixes.cjs');
  const args = ['--openssl-legacy-provider', '--require', fixes, bin, '-d', directory, '-a', '127.0.0.1', '-p', String(options.port ?? 0), '--no-vhost-buckets'];
  for (const bucket of options.buckets ?? []) args.push('--configure-bucket', bucket);
  const daemon = await startDaemon(args, { name: 's3rver', listening: /listening on [^\s]*?:(\d+)/i, timeoutMs: 15_000 });
  return {
    endpoint: `http://127.0.0.1:${daemon.port}`,
    port: daemon.port,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    died: daemon.died,
    stop: async () => {
      await daemon.stop();
      if (temporary) rmSync(directory, { recursive: true, force: true });
    },
  };
}
