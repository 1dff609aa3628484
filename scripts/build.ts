/**
 * `npm run build`: esbuild bundles of the Node entry points into dist/ (the Node server, the local Function
 * URL, the Web Function entry and its local endpoint). Running a bundle with plain node is what a container
 * should do: under tsx the loader's worker thread sits in the request path and halves small-request
 * throughput (measured).
 */
import { build } from 'esbuild';
import { chmodSync, copyFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EXEC_WRAPPER_NAME } from './lambda-local/exec-wrapper';

const ROOT = resolve(__dirname, '..');

export const BUNDLES = {
  'node-server': 'functions/node-server.ts',
  'lambda-local': 'scripts/lambda-local.ts',
  // The local Web Function endpoint starts the function from the bundle beside its own.
  'web-function': 'functions/web-function.ts',
  'web-local': 'scripts/web-local.ts',
} as const;

export async function buildBundles(outdir = resolve(ROOT, 'dist')): Promise<Record<keyof typeof BUNDLES, string>> {
  const out = {} as Record<keyof typeof BUNDLES, string>;
  for (const [name, entry] of Object.entries(BUNDLES) as Array<[keyof typeof BUNDLES, string]>) {
    const outfile = resolve(outdir, `${name}.js`);
    await build({
      entryPoints: [resolve(ROOT, entry)],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      sourcemap: true,
      outfile,
      logLevel: 'warning',
      // Loaded only for `auth_type = "oidc"` buckets; bundling it keeps the dist self-contained.
      external: [],
      // The Web Function entry starts its server itself; the bundled Node server's `require.main === module`
      // guard would be true too (one module for the whole bundle) and start a second one.
      ...(name === 'web-function' ? { define: { 'require.main': 'undefined' } } : {}),
    });
    out[name] = outfile;
  }
  // The local Function URL starts its runtime through the exec wrapper the function ships with (found beside it).
  const wrapper = resolve(outdir, EXEC_WRAPPER_NAME);
  copyFileSync(resolve(ROOT, 'functions', 'runtime', 'lambda', EXEC_WRAPPER_NAME), wrapper);
  chmodSync(wrapper, 0o755);
  return out;
}

if (require.main === module) {
  buildBundles().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
