import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { startDaemon } from '../../scripts/daemon';

/**
 * A local daemon (s3rver, Azurite, the GCS emulator) never keeps its parent alive: a suite whose other
 * servers failed to start, and so never stopped the daemon, still ends, and the daemon ends with it. One
 * that dies on its own says why, so `npm start` can stop rather than answer 503 for a dead backend.
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

describe('a daemon that dies', () => {
  const options = { name: 'toy', listening: /listening on (\d+)/, timeoutMs: 10_000 };

  it('says so once it has exited on its own, with the end of its output', async () => {
    const program = "console.log('listening on 1234'); setTimeout(() => { console.error('Error: boom'); process.exit(3); }, 100);";
    const daemon = await startDaemon(['-e', program], options);
    await expect(daemon.died).resolves.toBe('toy exited with code 3; its last output:\nError: boom');
    await daemon.stop(); // at once: there is nothing left to stop
  });

  it('is not reported when it was stopped', async () => {
    const daemon = await startDaemon(['-e', "console.log('listening on 1234'); setInterval(() => {}, 1000);"], options);
    const reported = jest.fn();
    void daemon.died.then(reported);
    await daemon.stop();
    await new Promise((r) => setTimeout(r, 100));
    expect(reported).not.toHaveBeenCalled();
  });
});
