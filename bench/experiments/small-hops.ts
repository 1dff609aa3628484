/**
 * Small GETs and HEADs at concurrency 32 against RGW, interleaved round by round: direct, the bare node:http
 * hop, the raw hop and node:http's server on the raw client (raw-hop-server.ts), and the gateway's Node
 * server bundle. Prints requests per second and each server's CPU per request (from /proc), the medians.
 *
 *   npx tsx bench/experiments/small-hops.ts
 *
 * Environment: ROUNDS (3), MS per round (5000), C (32), METHODS (GET,HEAD), ONLY (a comma list of the
 * targets), BUNDLE2 (a second gateway bundle, for an A/B), PERF=1 (`perf record` of the gateway in round
 * PERF_ROUND, default 1, to /tmp/small-hops/perf-METHOD.data; the gateway then runs with --perf-basic-prof).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { openSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { build } from 'esbuild';
import { freePort } from '../../test/support/gateway';
import { NODE_SERVER_FLAGS } from '../../functions/node-server';
import { createBucket, rgwS3Client, startRgw } from '../../test/support/rgw';
import { buildBundles } from '../../scripts/build';
import { cpuMsOf } from '../cpu';
import { spawnServer } from '../session';

async function main(): Promise<void> {
  mkdirSync('/tmp/small-hops', { recursive: true });
  const rgw = await startRgw({ ownSession: true });
  await createBucket(rgw, 'bench');
  const s3 = rgwS3Client(rgw);
  await s3.send(new PutObjectCommand({ Bucket: 'bench', Key: 'obj-4k', Body: Buffer.alloc(4096, 'a'), ACL: 'public-read' }));
  const bundles = await buildBundles('/tmp/small-hops/dist');
  for (const name of ['raw-hop-server', 'node-hop-server']) {
    const entry = name === 'raw-hop-server' ? join(__dirname, 'raw-hop-server.ts') : join(__dirname, '..', 'node-hop-server.ts');
    await build({ entryPoints: [entry], bundle: true, platform: 'node', outfile: `/tmp/small-hops/${name}.js`, format: 'cjs' });
  }
  writeFileSync('/tmp/small-hops/proxy.toml', `
[[buckets]]
name = "anon"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "${rgw.endpoint}"
bucket_name = "bench"
`);
  const servers: { name: string; url: string; child?: ChildProcess }[] = [{ name: 'direct', url: `${rgw.endpoint}/bench/obj-4k` }];
  const start = async (name: string, args: string[], env: Record<string, string> = {}, path = '/bench/obj-4k'): Promise<void> => {
    const port = await freePort();
    const child = spawnServer(process.execPath, args.map((a) => a.replace('PORT', String(port))), { env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...env }, stdio: ['ignore', openSync(`/tmp/small-hops/${name}.log`, 'w'), 'inherit'] });
    servers.push({ name, url: `http://127.0.0.1:${port}${path}`, child });
  };
  const only = (process.env.ONLY ?? 'node-hop,raw-hop,http+raw,gateway').split(',');
  if (only.includes('node-hop')) await start('node-hop', ['/tmp/small-hops/node-hop-server.js', 'PORT', rgw.endpoint]);
  if (only.includes('raw-hop')) await start('raw-hop', ['/tmp/small-hops/raw-hop-server.js', 'PORT', rgw.endpoint, 'raw']);
  if (only.includes('http+raw')) await start('http+raw', ['/tmp/small-hops/raw-hop-server.js', 'PORT', rgw.endpoint, 'httpserver']);
  if (only.includes('gateway')) await start('gateway', [...NODE_SERVER_FLAGS, ...(process.env.PERF ? ['--perf-basic-prof'] : []), process.env.BUNDLE ?? bundles['node-server']], { CONFIG_PATH: '/tmp/small-hops/proxy.toml' }, '/anon/obj-4k');
  if (process.env.BUNDLE2) await start('gateway2', [...NODE_SERVER_FLAGS, process.env.BUNDLE2], { CONFIG_PATH: '/tmp/small-hops/proxy.toml' }, '/anon/obj-4k');
  await new Promise((r) => setTimeout(r, 2000));
  const rounds = Number(process.env.ROUNDS ?? 3);
  const methods = (process.env.METHODS ?? 'GET,HEAD').split(',');
  const table: Record<string, { rps: number[]; cpu: number[] }> = {};
  for (let round = 0; round < rounds; round++) {
    for (const method of methods) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const s of order) {
        const pid = s.child?.pid;
        const before = pid ? cpuMsOf(pid) : 0;
        if (process.env.PERF && s.name === 'gateway' && round === Number(process.env.PERF_ROUND ?? 1) && pid) {
          spawn('perf', ['record', '-F', '1999', '-g', '-p', String(pid), '-o', `/tmp/small-hops/perf-${method}.data`, '--', 'sleep', '4'], { stdio: 'ignore' });
        }
        const out = execFileSync(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'loadgen.ts'), JSON.stringify({ url: s.url, method, concurrency: Number(process.env.C ?? 32), durationMs: Number(process.env.MS ?? 5000) })], { encoding: 'utf8' });
        const r = JSON.parse(out) as { requests: number; errors: number; seconds: number };
        const cpu = pid ? cpuMsOf(pid) - before : 0;
        const key = `${method} ${s.name}`;
        table[key] ??= { rps: [], cpu: [] };
        table[key].rps.push(r.requests / r.seconds);
        table[key].cpu.push((cpu * 1000) / r.requests);
        if (r.errors > 0) console.error(key, 'errors', r.errors);
      }
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const method of methods) {
    const direct = median(table[`${method} direct`].rps);
    for (const s of servers) {
      const t = table[`${method} ${s.name}`];
      console.log(`${method} ${s.name.padEnd(10)} ${median(t.rps).toFixed(0).padStart(6)} req/s  ${(median(t.rps) / direct).toFixed(2)}x  ${median(t.cpu).toFixed(0).padStart(4)} µs/req   rounds ${t.rps.map((x) => x.toFixed(0)).join(' ')}`);
    }
  }
  for (const s of servers) s.child?.kill('SIGTERM');
  await rgw.stop();
}
main().catch((e) => { console.error(e); process.exit(1); });
