import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

/** Size of the minified Lambda handler bundle and its cold module-load time (median of fresh processes). */
export async function bundleMetrics(processes: number): Promise<{ bytes: number; coldLoadMs: number } | { error: string }> {
  const entry = resolve(__dirname, '../functions/lambda-handler.ts');
  if (!existsSync(entry)) return { error: 'no Lambda handler in this tree' };
  const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
  try {
    const outfile = join(dir, 'index.js');
    await build({ entryPoints: [entry], bundle: true, minify: true, platform: 'node', target: 'node22', format: 'cjs', outfile, logLevel: 'silent' });
    // The runtime defines awslambda; a stand-in lets the module load outside Lambda.
    const probe = `globalThis.awslambda={streamifyResponse:(h)=>h,HttpResponseStream:{from:(s)=>s}};const t=performance.now();require(${JSON.stringify(outfile)});process.stdout.write(String(performance.now()-t))`;
    const times = Array.from({ length: processes }, () => Number(execFileSync(process.execPath, ['-e', probe], { env: { PATH: process.env.PATH ?? '' } }).toString())).sort((a, b) => a - b);
    return { bytes: statSync(outfile).size, coldLoadMs: times[Math.floor(times.length / 2)] };
  } catch (err) {
    return { error: `bundle failed: ${(err as Error).message.split('\n')[0]}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
