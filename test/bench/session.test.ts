import { readFileSync } from 'node:fs';
import { spawnServer } from '../../bench/session';

/** The session id of a process, from /proc (the field after its parent and process group). */
function sessionOf(pid: number | string): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}

describe('Benchmark servers', () => {
  it('GIVEN a server the bench starts THEN it runs in a session of its own, not the bench\'s (the scheduler shares CPU per session)', async () => {
    const child = spawnServer('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      expect(sessionOf(child.pid ?? 0)).toBe(child.pid);
      expect(sessionOf('self')).not.toBe(child.pid);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    }
  });
});
