import { spawn } from 'node:child_process';
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
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, 'gcs-emulator-main.ts')], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TMPDIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const port = await new Promise<number>((resolvePort, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`the storage emulator did not start within 30 s:\n${output}`)), 30_000);
    const fail = (err: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(err);
    };
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePort(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => fail(new Error(`the storage emulator exited with code ${code}:\n${output}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    upload: async (bucket, name, body, contentType = 'text/plain') => {
      const url = `${endpoint}/upload/storage/v1/b/${encodeURIComponent(bucket)}/o?uploadType=media&name=${encodeURIComponent(name)}`;
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body: typeof body === 'string' ? Buffer.from(body) : body });
      if (res.status !== 200) throw new Error(`uploading ${bucket}/${name}: ${res.status} ${await res.text()}`);
    },
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
