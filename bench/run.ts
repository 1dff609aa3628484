/**
 * `npm run bench [-- --quick] [-- --only <text>]` (options in ./options.ts): the gateway's cost against direct
 * access, side by side. Starts its own backends (nginx serving files for unsigned GETs, Ceph RGW for signed
 * paths), the gateway on every runtime, an nginx `proxy_pass` hop as the floor of any extra hop, and a bare
 * `node:http` hop as the floor of one built on Node's HTTP stack; runs each scenario against every target,
 * interleaved round by round so machine drift cancels; writes bench/results/latest.{md,json}. `--only` runs
 * the scenarios whose name contains the text, without the other measures, into bench/results/only.*.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { RUNTIMES, freePort, startGateway, type RunningGateway } from '../test/support/gateway';
import { createBucket, rgwS3Client, startRgw, type Rgw } from '../test/support/rgw';
import { loadgenProcess, type LoadResult, type LoadSpec } from './loadgen';
import { startNginx, type Nginx } from './nginx';
import { startNodeHop, type NodeHop } from './node-hop';
import { sigv4Micro } from './sigv4';
import { writeReport, type ScenarioResult } from './report';
import { bundleMetrics } from './bundle';
import { cpuMsOf } from './cpu';
import { startContainer, type BenchContainer } from './container';
import { benchOptions, gatewaySelected, selectScenarios } from './options';
import { buildBaseline } from './baseline';
import { buildBundles } from '../scripts/build';
import type { Credentials } from '../functions/core/sigv4';
import { importSessionKey, sealSession } from '../functions/core/sts/session-token';

const OPTIONS = benchOptions(process.argv.slice(2));
const { quick: QUICK, only: ONLY } = OPTIONS;
const ROUNDS = OPTIONS.rounds ?? (QUICK ? 1 : 5);
const DURATION_MS = QUICK ? 300 : 3000;
const MiB = 1024 * 1024;
const KEY = { accessKeyId: 'BENCHKEY000000000000', secretAccessKey: 'bench/secret/key/00000000000000000000000' };
const ACTIONS = ['get_object', 'head_object', 'put_object', 'list_bucket', 'delete_object'] as const;
/** Every gateway's SESSION_TOKEN_KEY, so the bench can seal temporary credentials as the STS route would. */
const SESSION_TOKEN_KEY = randomBytes(32);

/** Temporary credentials, sealed as AssumeRoleWithWebIdentity seals them, with the long-lived key's scope. */
async function sessionCredentials(): Promise<Credentials> {
  const credential = {
    accessKeyId: 'ASIABENCH00000000000',
    secretAccessKey: 'bench/session/secret/000000000000000000',
    scopes: [{ bucket: '*', prefixes: [], actions: [...ACTIONS] }],
    session: { roleId: 'bench', subject: 'repo:bench/bench:ref:refs/heads/main', expiresAt: Date.now() + 12 * 3600_000 },
  };
  return { ...credential, sessionToken: await sealSession(await importSessionKey(SESSION_TOKEN_KEY), credential) };
}

interface Target {
  readonly name: string;
  /** Builds the URL for a path-style `bucket/key` in the backend's name space or the gateway's. */
  readonly url: (kind: 'files' | 'rgw', key: string) => string;
  readonly sign?: Credentials;
  readonly signDirect?: boolean;
  /** The server's process for a scenario's kind of backend, when the bench can read its CPU time. */
  readonly pid?: (kind: 'files' | 'rgw') => number;
}

interface Scenario {
  readonly name: string;
  readonly unit: 'req/s' | 'MiB/s';
  readonly kind: 'files' | 'rgw';
  /**
   * Small GETs of files are anonymous unless this names who signs them: the long-lived key or temporary
   * credentials. Every target then gets the same signature (nginx ignores it), so the client's cost is equal.
   */
  readonly signedBy?: 'key' | 'session';
  readonly spec: (url: string) => Omit<LoadSpec, 'url' | 'sign'>;
  readonly key: string;
}


function gatewayConfig(nginx: Nginx, rgw: Rgw): string {
  return `
[[buckets]]
name = "files"
backend_type = "s3"
anonymous_access = true
[buckets.backend_options]
endpoint = "${nginx.filesUrl}"
bucket_name = "bench"

[[buckets]]
name = "rgw"
backend_type = "s3"
[buckets.backend_options]
endpoint = "${rgw.endpoint}"
bucket_name = "bench"
access_key_id = "${rgw.accessKeyId}"
secret_access_key = "${rgw.secretAccessKey}"

[[credentials]]
access_key_id = "${KEY.accessKeyId}"
secret_access_key = "${KEY.secretAccessKey}"
[[credentials.allowed_scopes]]
bucket = "*"
prefixes = []
actions = ${JSON.stringify(ACTIONS)}
`;
}

const SCENARIOS: readonly Scenario[] = [
  { name: 'GET 4 KiB, c1', unit: 'req/s', kind: 'files', key: 'obj-4k', spec: () => ({ method: 'GET', concurrency: 1, durationMs: DURATION_MS }) },
  { name: 'GET 4 KiB, c32', unit: 'req/s', kind: 'files', key: 'obj-4k', spec: () => ({ method: 'GET', concurrency: 32, durationMs: DURATION_MS }) },
  { name: 'GET 4 KiB, c32, signed', unit: 'req/s', kind: 'files', signedBy: 'key', key: 'obj-4k', spec: () => ({ method: 'GET', concurrency: 32, durationMs: DURATION_MS }) },
  { name: 'GET 4 KiB, c32, temporary credentials', unit: 'req/s', kind: 'files', signedBy: 'session', key: 'obj-4k', spec: () => ({ method: 'GET', concurrency: 32, durationMs: DURATION_MS }) },
  { name: 'HEAD, c1', unit: 'req/s', kind: 'files', key: 'obj-4k', spec: () => ({ method: 'HEAD', concurrency: 1, durationMs: DURATION_MS }) },
  { name: 'HEAD, c32', unit: 'req/s', kind: 'files', key: 'obj-4k', spec: () => ({ method: 'HEAD', concurrency: 32, durationMs: DURATION_MS }) },
  { name: 'GET 1 MiB, c8', unit: 'MiB/s', kind: 'files', key: 'obj-1m', spec: () => ({ method: 'GET', concurrency: 8, durationMs: DURATION_MS }) },
  { name: 'GET 256 MiB, c1', unit: 'MiB/s', kind: 'files', key: 'obj-256m', spec: () => ({ method: 'GET', concurrency: 1, count: QUICK ? 1 : 3 }) },
  { name: 'PUT 64 MiB plain, c1', unit: 'MiB/s', kind: 'rgw', key: 'put-64m', spec: () => ({ method: 'PUT', concurrency: 1, count: QUICK ? 1 : 3, bodyBytes: 64 * MiB }) },
  { name: 'PUT 64 MiB signed SHA-256, c1', unit: 'MiB/s', kind: 'rgw', key: 'put-64m-signed', spec: () => ({ method: 'PUT', concurrency: 1, count: QUICK ? 1 : 3, bodyBytes: 64 * MiB, signedPayload: true }) },
  { name: 'PUT 64 MiB with Content-MD5, c1', unit: 'MiB/s', kind: 'rgw', key: 'put-64m-md5', spec: () => ({ method: 'PUT', concurrency: 1, count: QUICK ? 1 : 3, bodyBytes: 64 * MiB, contentMd5: true }) },
  { name: 'ListObjectsV2 1,000 keys, c1', unit: 'req/s', kind: 'rgw', key: '?list-type=2&prefix=list%2F&max-keys=1000', spec: () => ({ method: 'GET', concurrency: 1, durationMs: DURATION_MS }) },
  // 500 keys and 500 common prefixes under tree/ (seed): a page of folders, as a file browser or sync lists.
  { name: 'ListObjectsV2 1,000 keys and prefixes, delimiter, c1', unit: 'req/s', kind: 'rgw', key: '?list-type=2&prefix=tree%2F&delimiter=%2F&max-keys=1000', spec: () => ({ method: 'GET', concurrency: 1, durationMs: DURATION_MS }) },
  { name: 'ListObjects (V1) 1,000 keys, c1', unit: 'req/s', kind: 'rgw', key: '?prefix=list%2F&max-keys=1000', spec: () => ({ method: 'GET', concurrency: 1, durationMs: DURATION_MS }) },
];

/** aws-chunked PUT goes to the gateway only: RGW rejects trailers, so the gateway decodes and sends it plain. */
const CHUNKED_PUT: Scenario = { name: 'PUT 64 MiB aws-chunked, c1', unit: 'MiB/s', kind: 'rgw', key: 'put-64m-chunked', spec: () => ({ method: 'PUT', concurrency: 1, count: QUICK ? 1 : 3, bodyBytes: 64 * MiB, awsChunked: true }) };

/**
 * Metrics off against on (issue 24's budget: at most 3% fewer requests per second): small GETs at c32 on two
 * Node gateways, one with METRICS_PORT set and scraped every second as Prometheus would, interleaved.
 */
const METRICS_AB: Scenario = { name: 'GET 4 KiB, c32, metrics off/on', unit: 'req/s', kind: 'files', key: 'obj-4k', spec: () => ({ method: 'GET', concurrency: 32, durationMs: DURATION_MS }) };

function metric(scenario: Scenario, r: LoadResult): number {
  return scenario.unit === 'req/s' ? r.requests / r.seconds : r.bytes / MiB / r.seconds;
}

async function seed(dir: string, rgw: Rgw): Promise<void> {
  const root = join(dir, 'files', 'bench');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'obj-4k'), Buffer.alloc(4096, 'a'));
  writeFileSync(join(root, 'obj-1m'), Buffer.alloc(MiB, 'a'));
  writeFileSync(join(root, 'obj-256m'), Buffer.alloc(256 * MiB, 'a'));
  writeFileSync(join(root, 'obj-1g'), Buffer.alloc(1024 * MiB, 'a'));
  await createBucket(rgw, 'bench');
  const s3 = rgwS3Client(rgw);
  const count = QUICK ? 50 : 1000;
  const keys = Array.from({ length: count }, (_, i) => `list/k-${String(i).padStart(4, '0')}`);
  // A delimiter listing of tree/ shows half of these as keys and half as common prefixes (one key each).
  for (let i = 0; i < count / 2; i++) keys.push(`tree/f-${String(i).padStart(4, '0')}`, `tree/d-${String(i).padStart(4, '0')}/k`);
  for (let i = 0; i < keys.length; i += 50) {
    await Promise.all(keys.slice(i, i + 50).map((Key) => s3.send(new PutObjectCommand({ Bucket: 'bench', Key, Body: 'x' }))));
  }
  s3.destroy();
}

async function rssDuring(gw: RunningGateway, spec: LoadSpec): Promise<{ baselineMiB: number; peakMiB: number; growthMiB: number; status: string }> {
  const baseline = gw.rss();
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, gw.rss())), 50);
  const result = await loadgenProcess(spec).finally(() => clearInterval(sampler));
  return { baselineMiB: baseline / MiB, peakMiB: peak / MiB, growthMiB: (peak - baseline) / MiB, status: JSON.stringify(result.statuses) };
}

async function main(): Promise<void> {
  const scenarios = selectScenarios([...SCENARIOS, CHUNKED_PUT, METRICS_AB], ONLY);
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  chmodSync(dir, 0o755); // nginx workers run as an unprivileged user and must read the files
  // memstore keeps objects in RAM, 1 GiB by default: the scenarios write several GiB (a full store stops
  // reading). The PUTs overwrite their keys, and RGW frees an overwritten object's data only in garbage
  // collection, after two hours by default: a full run with every gateway filled 8 GiB and every later PUT
  // hung. Collected within seconds, the store holds what the run keeps.
  const rgw = await startRgw({
    extraConf: { 'memstore device bytes': String(8 * 1024 * MiB), 'rgw gc obj min wait': '0', 'rgw gc processor period': '5' },
    ownSession: true,
  });
  let nginx: Nginx | undefined;
  let nodeHop: NodeHop | undefined;
  const gateways: RunningGateway[] = [];
  let container: BenchContainer | undefined;
  const skipped: string[] = [];
  try {
    await seed(dir, rgw);
    const filesRoot = join(dir, 'files');
    nginx = await startNginx(join(dir, 'nginx'), filesRoot, ['files', rgw.endpoint]);
    nodeHop = await startNodeHop(dir, [nginx.filesUrl, rgw.endpoint]);
    // The gateways run from esbuild bundles with plain node, as deployed (under tsx the loader thread sits
    // in the request path).
    const bundles = await buildBundles(join(dir, 'dist'));
    const sessionEnv = { SESSION_TOKEN_KEY: SESSION_TOKEN_KEY.toString('base64') };
    const signers = { key: KEY, session: await sessionCredentials() };
    const bundleOf = { node: bundles['node-server'], lambda: bundles['lambda-local'], web: bundles['web-local'] } as const;
    for (const runtime of RUNTIMES.filter((r) => gatewaySelected(OPTIONS, r))) {
      // Access logs go to files: a pipe drained by this process put its own CPU into the measurement (HEAD
      // at c32: 7% fewer requests per second through the gateway than with a file).
      const logFile = join(dir, `${runtime}-access.log`);
      gateways.push(await startGateway(runtime, { config: gatewayConfig(nginx, rgw), bundle: bundleOf[runtime as keyof typeof bundleOf], logFile, env: sessionEnv }));
    }
    // The same Node server with metrics on, for METRICS_AB only.
    const metricsPort = await freePort();
    const withMetrics = await startGateway('node', {
      config: gatewayConfig(nginx, rgw),
      bundle: bundles['node-server'],
      logFile: join(dir, 'node-metrics-access.log'),
      env: { ...sessionEnv, METRICS_PORT: String(metricsPort) },
    });
    gateways.push(withMetrics);
    const baseline = OPTIONS.baseline === undefined ? undefined : await buildBaseline(OPTIONS.baseline, dir);
    const before = baseline && (await startGateway('node', { config: gatewayConfig(nginx, rgw), bundle: baseline.bundle, logFile: join(dir, 'baseline-access.log'), env: sessionEnv }));
    if (before) gateways.push(before);
    // The container image, as a deployment runs it (Dockerfile, podman), where podman is installed.
    if (gatewaySelected(OPTIONS, 'container')) {
      const started = await startContainer(gatewayConfig(nginx, rgw), sessionEnv.SESSION_TOKEN_KEY);
      if ('skipped' in started) skipped.push(`gateway (container): ${started.skipped}`);
      else container = started;
    }
    const n = nginx;
    const direct: Target = { name: 'direct', url: (kind, key) => `${kind === 'files' ? n.filesUrl : rgw.endpoint}/bench${key.startsWith('?') ? '' : '/'}${key}`, signDirect: true };
    const proxy: Target = { name: 'nginx proxy', url: (kind, key) => `${kind === 'files' ? n.proxyUrls[0] : n.proxyUrls[1]}/bench${key.startsWith('?') ? '' : '/'}${key}`, signDirect: true };
    const viaGateway = gateways
      .filter((gw) => gw !== withMetrics)
      .map((gw): Target => ({ name: gw === before ? `gateway (node @${baseline?.rev})` : `gateway (${gw.runtime})`, url: (kind, key) => `${gw.endpoint}/${kind}${key.startsWith('?') ? '' : '/'}${key}`, sign: KEY, pid: () => gw.pid }));
    const inContainer = container;
    if (inContainer !== undefined) viaGateway.push({ name: 'gateway (container)', url: (kind, key) => `${inContainer.endpoint}/${kind}${key.startsWith('?') ? '' : '/'}${key}`, sign: KEY });
    const hop = nodeHop;
    const bareNode: Target = { name: 'node:http hop', url: (kind, key) => `${kind === 'files' ? hop.urls[0] : hop.urls[1]}/bench${key.startsWith('?') ? '' : '/'}${key}`, signDirect: true, pid: (kind) => (kind === 'files' ? hop.pids[0] : hop.pids[1]) };
    const targets = [direct, ...viaGateway, bareNode, proxy];
    const rgwKeys = { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey };
    const results: ScenarioResult[] = [];
    for (const scenario of scenarios) {
      const metricsOn: Target = { name: 'gateway (node, metrics on)', url: (kind, key) => `${withMetrics.endpoint}/${kind}/${key}`, sign: KEY, pid: () => withMetrics.pid };
      const applicable = scenario === CHUNKED_PUT ? viaGateway : scenario === METRICS_AB ? [...viaGateway.filter((t) => t.name === 'gateway (node)'), metricsOn] : targets;
      // Scraped as Prometheus would (every second) while the A/B runs: the cost of being scraped counts too.
      const scraper = scenario === METRICS_AB ? setInterval(() => void fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text()).catch(() => undefined), 1000) : undefined;
      const samples = new Map<string, LoadResult[]>(applicable.map((t) => [t.name, []]));
      const cpuMs = new Map<string, number>();
      for (let round = 0; round < ROUNDS; round++) {
        // Rotate the order every round (A B C, B C A, …) so drift and warm-up cancel out.
        const order = applicable.map((_, i) => applicable[(i + round) % applicable.length]);
        for (const target of order) {
          // Unsigned GETs hit anonymous buckets; signed paths are signed by the gateway key or the backend's own.
          const sign = scenario.signedBy !== undefined ? signers[scenario.signedBy] : scenario.kind === 'rgw' ? (target.sign ?? (target.signDirect ? rgwKeys : undefined)) : undefined;
          const url = target.url(scenario.kind, scenario.key);
          const pid = target.pid?.(scenario.kind);
          const cpuBefore = pid === undefined ? 0 : cpuMsOf(pid);
          samples.get(target.name)?.push(await loadgenProcess({ ...scenario.spec(url), url, sign }));
          if (pid !== undefined) cpuMs.set(target.name, (cpuMs.get(target.name) ?? 0) + cpuMsOf(pid) - cpuBefore);
        }
      }
      clearInterval(scraper);
      results.push({ scenario: scenario.name, unit: scenario.unit, targets: [...samples].map(([name, runs]) => summarize(name, runs, scenario, cpuMs.get(name))) });
      console.error(`done: ${scenario.name}`);
    }
    const measured = { date: new Date().toISOString(), quick: QUICK, gateways: OPTIONS.gateways, rounds: ROUNDS, results, skipped };
    if (ONLY !== undefined) return writeReport(resolve(__dirname, 'results'), { ...measured, only: ONLY });
    const nodeGateway = gateways.find((g) => g.runtime === 'node');
    const rss = nodeGateway
      ? {
          get1GiB: await rssDuring(nodeGateway, { url: `${nodeGateway.endpoint}/files/obj-1g`, method: 'GET', concurrency: 1, count: 1 }),
          put1GiB: await rssDuring(nodeGateway, { url: `${nodeGateway.endpoint}/rgw/put-1g`, method: 'PUT', concurrency: 1, count: 1, bodyBytes: 1024 * MiB, sign: KEY }),
        }
      : undefined;
    const sigv4 = await sigv4Micro(QUICK ? 2000 : 20000);
    const bundle = await bundleMetrics(QUICK ? 3 : 15);
    writeReport(resolve(__dirname, 'results'), { ...measured, rss, sigv4, bundle });
  } finally {
    for (const gw of gateways) await gw.stop();
    await container?.stop();
    await nodeHop?.stop();
    await nginx?.stop();
    await rgw.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function summarize(name: string, runs: LoadResult[], scenario: Scenario, cpuMs: number | undefined): ScenarioResult['targets'][number] {
  const rounds = runs.map((r) => metric(scenario, r));
  const median = (xs: number[]): number => xs[Math.floor(xs.length / 2)] ?? 0;
  return {
    target: name,
    value: median([...rounds].sort((a, b) => a - b)),
    rounds,
    p50Ms: median(runs.map((r) => r.p50Ms).sort((a, b) => a - b)),
    p99Ms: median(runs.map((r) => r.p99Ms).sort((a, b) => a - b)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    requests: runs.reduce((sum, r) => sum + r.requests, 0),
    cpuUsPerRequest: cpuMs === undefined ? undefined : (cpuMs * 1000) / Math.max(1, runs.reduce((sum, r) => sum + r.requests, 0)),
  };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
