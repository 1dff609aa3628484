import type { ChildProcess } from 'node:child_process';
import { basename, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { freePort } from './nginx';
import { spawnServer } from './session';

/**
 * A bare `node:http` keep-alive reverse proxy, one per upstream: what any hop built on Node's HTTP stack
 * costs on this machine before it does any work of its own (no parsing, auth or signing). The gateway's Node
 * runtimes are judged against it as well as against nginx, which moves bytes more cheaply than Node can.
 */
export interface NodeHop {
  readonly urls: readonly string[];
  /** The hop's process for each upstream, in the order of `urls`. */
  readonly pids: readonly number[];
  stop(): Promise<void>;
}

/**
 * Starts the hop for each upstream. `server`: another hop server taking the same `PORT UPSTREAM` arguments,
 * then `args` (the prototype floors in bench/experiments/).
 */
export async function startNodeHop(dir: string, upstreams: readonly string[], server = resolve(__dirname, 'node-hop-server.ts'), args: readonly string[] = []): Promise<NodeHop> {
  // Run as plain JavaScript, as the gateway runs from its bundle: a TypeScript loader would sit in the path.
  const script = join(dir, basename(server).replace(/\.ts$/, '.js'));
  await build({ entryPoints: [server], bundle: true, platform: 'node', target: 'node20', format: 'cjs', outfile: script, logLevel: 'warning' });
  const children: ChildProcess[] = [];
  const urls: string[] = [];
  for (const upstream of upstreams) {
    const port = await freePort();
    children.push(spawnServer(process.execPath, [script, String(port), upstream, ...args], { stdio: ['ignore', 'ignore', 'inherit'] }));
    urls.push(`http://127.0.0.1:${port}`);
  }
  for (const url of urls) await waitFor(url);
  return {
    urls,
    pids: children.map((child) => child.pid ?? 0),
    stop: async () => {
      await Promise.all(children.map((child) => new Promise((r) => (child.exitCode !== null ? r(undefined) : (child.once('exit', r), child.kill())))));
    },
  };
}

async function waitFor(url: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await (await fetch(url, { method: 'HEAD' })).arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`the node:http hop at ${url} did not start`);
}
