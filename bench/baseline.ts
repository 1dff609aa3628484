/**
 * `--baseline <rev>`: the Node server as another commit built it, run beside today's in the same bench so the
 * two are measured round by round on the same machine (the A/B method of docs/performance.md). The commit's
 * tree is exported with `git archive` (no worktree left registered) and bundled as scripts/build.ts bundles
 * today's, against today's node_modules.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(__dirname, '..');

export interface Baseline {
  /** The short commit id, for the target's name. */
  readonly rev: string;
  readonly bundle: string;
}

export async function buildBaseline(rev: string, dir: string): Promise<Baseline> {
  const short = execFileSync('git', ['rev-parse', '--short', `${rev}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const src = join(dir, `baseline-${short}`);
  mkdirSync(src, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${short} | tar -x -C "${src}"`], { cwd: ROOT });
  symlinkSync(join(ROOT, 'node_modules'), join(src, 'node_modules'));
  const entry = join(src, 'functions', 'node-server.ts');
  if (!existsSync(entry)) throw new Error(`${short} has no functions/node-server.ts to bundle`);
  const bundle = join(src, 'dist', 'node-server.js');
  await build({ entryPoints: [entry], bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: true, outfile: bundle, logLevel: 'warning' });
  return { rev: short, bundle };
}
