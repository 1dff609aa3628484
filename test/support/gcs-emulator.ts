import { startDaemon } from '../../scripts/daemon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * firebase-tools' storage emulator (pinned devDependency), its JSON-API app only, in a child process on a
 * free loopback port. Its blobs go under TMPDIR, so each instance gets its own. It checks no auth, has no
 * preconditions, generations or XML API, and creates buckets on first use (backends.md).
 */
export interface GcsEmulator {
  readonly endpoint: string;
  /** Uploads straight to the emulator (media upload), bypassing the gateway. */
  upload(bucket: string, name: string, body: string | Uint8Array, contentType?: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startGcsEmulator(): Promise<GcsEmulator> {
  const dir = mkdtempSync(join(tmpdir(), 'gcs-emulator-'));
  const daemon = await startDaemon(['--import', 'tsx', resolve(__dirname, 'gcs-emulator-main.ts')], {
    name: 'the storage emulator',
    listening: /listening (\d+)/,
    timeoutMs: 30_000,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TMPDIR: dir },
  });
  const port = daemon.port;
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    upload: async (bucket, name, body, contentType = 'text/plain') => {
      const url = `${endpoint}/upload/storage/v1/b/${encodeURIComponent(bucket)}/o?uploadType=media&name=${encodeURIComponent(name)}`;
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body: typeof body === 'string' ? Buffer.from(body) : body });
      if (res.status !== 200) throw new Error(`uploading ${bucket}/${name}: ${res.status} ${await res.text()}`);
    },
    stop: async () => {
      await daemon.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
