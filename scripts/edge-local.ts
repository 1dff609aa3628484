/**
 * `npm run start:edge`: the edge worker under miniflare (workerd, the Workers runtime), for real S3 clients
 * on a laptop and for the test matrix. Bundles the worker as `npm run build:edge` does, with the
 * configuration at CONFIG_PATH (default proxy.toml), and serves it on HOST (default 127.0.0.1) and PORT
 * (default 8080). Every environment variable becomes a string binding, so the worker reads the same
 * SESSION_TOKEN_KEY, OIDC_PROVIDER_*, MAX_UPLOAD_BYTES and `{ env = "NAME" }` values as `npm run serve`.
 * NODE_EXTRA_CA_CERTS is honoured by miniflare for the worker's outbound HTTPS. Clients reach the worker
 * through a node:http front (edge-local/front.ts) that does what Cloudflare's front line does and workerd's
 * server does not: it answers `Expect: 100-continue`, and leaves a `no-transform` response uncompressed.
 *
 * The worker builds its gateway on its first request; the runner sends one at start-up, so an invalid
 * configuration stops it (exit 1, the problems listed by the worker) as it stops the Node server, and
 * prints the same `{"message":"gateway listening","url":...}` line once the worker serves.
 */
import { Log, LogLevel, Miniflare } from 'miniflare';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'smol-toml';
import { stop as stopEsbuild } from 'esbuild';
import { buildEdge } from './build-edge';
import { createEdgeFront } from './edge-local/front';

interface WranglerSettings {
  readonly compatibility_date: string;
  readonly compatibility_flags?: string[];
}

/** Miniflare's own messages (not the worker's console, which goes to stdout and stderr as it is). */
class QuietLog extends Log {
  constructor() {
    super(LogLevel.WARN);
  }
}

async function main(): Promise<void> {
  const wrangler = parse(readFileSync(resolve(__dirname, '../wrangler.toml'), 'utf8')) as unknown as WranglerSettings;
  const script = await buildEdge({ configPath: process.env.CONFIG_PATH || 'proxy.toml' });
  // Built once: esbuild's service process (~60 MB resident) is not kept beside the worker.
  await stopEsbuild();
  const bindings: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) bindings[name] = value;
  const host = process.env.HOST || '127.0.0.1';
  const mf = new Miniflare({
    modules: [{ type: 'ESModule', path: 'worker.js', contents: script }],
    compatibilityDate: wrangler.compatibility_date,
    compatibilityFlags: wrangler.compatibility_flags ?? [],
    bindings,
    // The worker listens on a loopback port of its own, behind the front (edge-local/front.ts).
    host: '127.0.0.1',
    port: 0,
    log: new QuietLog(),
    // The placeholder `request.cf`: miniflare would otherwise fetch a real one from Cloudflare at start-up.
    cf: false,
  });
  const ready = await mf.ready;
  // The first request builds the isolate's gateway: its failure is the configuration's, logged by the worker.
  const warmUp = await fetch(`http://127.0.0.1:${ready.port}/`, { headers: { 'user-agent': 'edge-local start-up' } });
  await warmUp.arrayBuffer();
  if (warmUp.status >= 500) {
    await new Promise((r) => setTimeout(r, 200)); // let the worker's log line through
    await mf.dispose();
    process.exit(1);
  }
  const front = createEdgeFront(new URL(`http://127.0.0.1:${ready.port}`));
  front.keepAliveTimeout = 65_000;
  await new Promise<void>((resolveListen, reject) => {
    front.once('error', reject);
    front.listen(Number(process.env.PORT || 8080), host, resolveListen);
  });
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${(front.address() as AddressInfo).port}`;
  console.error(JSON.stringify({ time: new Date().toISOString(), message: 'gateway listening', url, runtime: 'edge (miniflare)' }));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      console.error(JSON.stringify({ time: new Date().toISOString(), message: `${signal}: stopping the worker` }));
      front.close();
      front.closeIdleConnections();
      void mf.dispose().then(() => process.exit(0));
    });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
