/**
 * Small GETs and HEADs at concurrency 32 against RGW, interleaved round by round: direct, the bare node:http
 * hop, the raw hop and node:http's server on the raw client (raw-hop-server.ts), and the gateway's Node
 * server bundle. Prints requests per second and each server's CPU per request (from /proc), the medians.
 *
 *   npx tsx bench/experiments/small-hops.ts
 *
 * Environment: ROUNDS (3), MS per round (5000), C (32), METHODS (GET,HEAD), ONLY (a comma list of the
 * targets), BUNDLE2 (a second gateway bundle, for an A/B), PERF=1 (`perf record` of the gateway in round
 * PERF_ROUND, default 1, to small-hops-perf-METHOD.data in the temp dir; the gateway then runs with
 * --perf-basic-prof).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { startGateway } from '../../test/support/gateway';
import { createBucket, rgwS3Client, startRgw } from '../../test/support/rgw';
import { buildBundles } from '../../scripts/build';
import { cpuMsOf } from '../cpu';
import { loadgenProcess } from '../loadgen';
import { startNodeHop } from '../node-hop';

interface Target {
  readonly name: string;
  readonly url: string;
  readonly pid?: number;
  readonly stop?: () => Promise<void>;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'small-hops-'));
  const rgw = await startRgw({ ownSession: true });
  const targets: Target[] = [{ name: 'direct', url: `${rgw.endpoint}/bench/obj-4k` }];
  try {
    await createBucket(rgw, 'bench');
    await rgwS3Client(rgw).send(new PutObjectCommand({ Bucket: 'bench', Key: 'obj-4k', Body: Buffer.alloc(4096, 'a'), ACL: 'public-read' }));
    const only = (process.env.ONLY ?? 'node-hop,raw-hop,http+raw,gateway').split(',');
    const hop = async (name: string, server?: string, args: string[] = []): Promise<void> => {
      if (!only.includes(name)) return;
      const started = await startNodeHop(dir, [rgw.endpoint], server, args);
      targets.push({ name, url: `${started.urls[0]}/bench/obj-4k`, pid: started.pids[0], stop: started.stop });
    };
    await hop('node-hop')
    await hop('raw-hop', join(__dirname, 'raw-hop-server.ts'), ['raw']);
    await hop('http+raw', join(__dirname, 'raw-hop-server.ts'), ['httpserver']);
    const config = `[[buckets]]\nname = "anon"\nbackend_type = "s3"\nanonymous_access = true\n[buckets.backend_options]\nendpoint = "${rgw.endpoint}"\nbucket_name = "bench"\n`;
    const gateway = async (name: string, bundle: string, env: Record<string, string> = {}): Promise<void> => {
      const gw = await startGateway('node', { config, bundle, env, logFile: join(dir, `${name}-access.log`) });
      targets.push({ name, url: `${gw.endpoint}/anon/obj-4k`, pid: gw.pid, stop: gw.stop });
    };
    const perf = process.env.PERF !== undefined;
    if (only.includes('gateway')) await gateway('gateway', process.env.BUNDLE ?? (await buildBundles(join(dir, 'dist')))['node-server'], perf ? { NODE_OPTIONS: '--perf-basic-prof' } : {});
    if (process.env.BUNDLE2 !== undefined) await gateway('gateway2', process.env.BUNDLE2);
    report(await measure(targets, perf));
  } finally {
    for (const target of targets) await target.stop?.();
    await rgw.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Samples = Record<string, { rps: number[]; cpu: number[] }>;

/** Every target in turn, the order reversed every other round; `perf` records the gateway in one round. */
async function measure(targets: readonly Target[], perf: boolean): Promise<Samples> {
  const rounds = Number(process.env.ROUNDS ?? 3);
  const samples: Samples = {};
  for (let round = 0; round < rounds; round++) {
    for (const method of methods()) {
      for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
        const before = target.pid === undefined ? 0 : cpuMsOf(target.pid);
        if (perf && target.name === 'gateway' && round === Number(process.env.PERF_ROUND ?? 1)) {
          spawn('perf', ['record', '-F', '1999', '-g', '-p', String(target.pid), '-o', join(tmpdir(), `small-hops-perf-${method}.data`), '--', 'sleep', '4'], { stdio: 'ignore' });
        }
        const result = await loadgenProcess({ url: target.url, method, concurrency: Number(process.env.C ?? 32), durationMs: Number(process.env.MS ?? 5000) });
        const cpu = target.pid === undefined ? 0 : cpuMsOf(target.pid) - before;
        const entry = (samples[`${method} ${target.name}`] ??= { rps: [], cpu: [] });
        entry.rps.push(result.requests / result.seconds);
        entry.cpu.push((cpu * 1000) / result.requests);
        if (result.errors > 0) console.error(`${method} ${target.name}: ${result.errors} errors`);
      }
    }
  }
  return samples;
}

function methods(): Array<'GET' | 'HEAD'> {
  return (process.env.METHODS ?? 'GET,HEAD').split(',') as Array<'GET' | 'HEAD'>;
}

function report(samples: Samples): void {
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const method of methods()) {
    const direct = median(samples[`${method} direct`].rps);
    for (const [key, t] of Object.entries(samples).filter(([k]) => k.startsWith(`${method} `))) {
      const rps = median(t.rps);
      console.log(`${key.padEnd(16)} ${rps.toFixed(0).padStart(6)} req/s  ${(rps / direct).toFixed(2)}x  ${median(t.cpu).toFixed(0).padStart(4)} µs/req   rounds ${t.rps.map((x) => x.toFixed(0)).join(' ')}`);
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
