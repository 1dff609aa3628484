import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * A local daemon (s3rver, Azurite, the GCS emulator) never keeps its parent alive: a suite whose other
 * servers failed to start, and so never stopped the daemon, still ends, and the daemon ends with it.
 */
const ROOT = resolve(__dirname, '../..');

it('a parent that never stops its s3rver still exits, and the s3rver exits with it', async () => {
  const program = "require('./scripts/s3rver').startS3rver().then((s) => console.log(s.port));";
  const out = await new Promise<{ code: number | null; stdout: string }>((done) => {
    const child = execFile(process.execPath, ['--require', 'tsx/cjs', '-e', program], { cwd: ROOT, timeout: 30_000 }, (err, stdout) => done({ code: err ? (child.exitCode ?? -1) : 0, stdout }));
  });
  expect(out.code).toBe(0);
  const port = Number(out.stdout.trim());
  expect(port).toBeGreaterThan(0);
  // The parent's exit killed it: nothing listens on its port any more.
  await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
}, 60_000);
