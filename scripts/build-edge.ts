/**
 * `npm run build:edge`: bundles the edge worker (functions/edge-worker.ts) into dist/edge/worker.js, one ES
 * module for the Workers runtime, with the TOML configuration at CONFIG_PATH (default proxy.toml) inside
 * it as text. @aws-sdk/client-sts, imported lazily by the OIDC exchange, is bundled in its browser build
 * (fetch-based); nothing may import node:* (platform `browser` makes esbuild refuse it).
 */
import { build, type Plugin } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');
export const EDGE_ENTRY = resolve(ROOT, 'functions/edge-worker.ts');
export const EDGE_OUTFILE = resolve(ROOT, 'dist/edge/worker.js');

export interface EdgeBuildOptions {
  /** The configuration to bundle; relative paths are from the current directory. */
  readonly configPath: string;
  /** Where to write the bundle; absent: return it without writing. */
  readonly outfile?: string;
  readonly minify?: boolean;
}

/** The bundle's text. */
export async function buildEdge(options: EdgeBuildOptions): Promise<string> {
  const result = await build({
    entryPoints: [EDGE_ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    // Workers' own condition first, then the web builds (the SDK's fetch handler, Web Crypto).
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    minify: options.minify ?? false,
    sourcemap: false,
    legalComments: 'none',
    write: options.outfile !== undefined,
    outfile: options.outfile ?? 'worker.js',
    plugins: [bundledConfig(options.configPath), sdkXmlParser()],
    logLevel: 'silent',
  });
  if (options.outfile !== undefined) return readFileSync(options.outfile, 'utf8');
  return result.outputFiles?.[0]?.text ?? '';
}

/** Resolves `gateway:config` to the configuration file, as text. */
function bundledConfig(configPath: string): Plugin {
  return {
    name: 'gateway-config',
    setup(b) {
      b.onResolve({ filter: /^gateway:config$/ }, () => ({ path: resolve(configPath), namespace: 'gateway-config' }));
      b.onLoad({ filter: /.*/, namespace: 'gateway-config' }, (args) => {
        try {
          return { contents: readFileSync(args.path, 'utf8'), loader: 'text', watchFiles: [args.path] };
        } catch (err) {
          return { errors: [{ text: `cannot read ${args.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` }] };
        }
      });
    },
  };
}

/**
 * The SDK's browser build parses XML with DOMParser, which Workers do not have (the STS answer would fail
 * with a ReferenceError); its other build's parser is plain JavaScript, so the bundle takes that one.
 */
function sdkXmlParser(): Plugin {
  return {
    name: 'sdk-xml-parser',
    setup(b) {
      b.onResolve({ filter: /^\.\/xml-parser$/ }, (args) =>
        /[\\/]@aws-sdk[\\/]xml-builder[\\/]/.test(args.importer) ? { path: join(dirname(args.importer), 'xml-parser.js') } : undefined,
      );
    },
  };
}

if (require.main === module) {
  const configPath = process.env.CONFIG_PATH || 'proxy.toml';
  buildEdge({ configPath, outfile: EDGE_OUTFILE, minify: process.env.MINIFY === '1' }).then(
    (code) => console.error(JSON.stringify({ message: 'edge worker built', outfile: EDGE_OUTFILE, config: resolve(configPath), bytes: Buffer.byteLength(code) })),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
