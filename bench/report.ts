import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Markdown and JSON reports: medians across rounds, p50/p99 latency, and ratios to direct and to nginx. */
export interface ScenarioResult {
  readonly scenario: string;
  readonly unit: string;
  readonly targets: readonly {
    target: string;
    /** The median of `rounds`. */
    value: number;
    /** Throughput of each round, in the order run: their spread says how far one number can be trusted. */
    rounds: readonly number[];
    p50Ms: number;
    p99Ms: number;
    errors: number;
    requests: number;
    /**
     * The server's CPU time per request (user + system, read from /proc where the bench can): unlike
     * throughput it barely moves when other work shares the machine.
     */
    cpuUsPerRequest?: number;
  }[];
}

export interface Report {
  readonly date: string;
  readonly quick: boolean;
  /** Set when only the scenarios whose name contains it ran (`--only`): no other measures. */
  readonly only?: string;
  /** Set when only some gateway targets ran (`--gateways`). */
  readonly gateways?: readonly string[];
  readonly rounds: number;
  readonly results: readonly ScenarioResult[];
  readonly rss?: Record<string, { baselineMiB: number; peakMiB: number; growthMiB: number; status: string }>;
  readonly sigv4?: { sequentialUs: number; concurrent16Us: number };
  readonly bundle?: { bytes: number; coldLoadMs: number } | { error: string };
  /** Targets this run could not measure, and why (the container without podman). */
  readonly skipped?: readonly string[];
}

const fixed = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const range = (xs: readonly number[]): string => (xs.length === 0 ? '–' : `${fixed(Math.min(...xs), 0)}-${fixed(Math.max(...xs), 0)}`);

export function toMarkdown(report: Report): string {
  const lines = [
    `# Benchmark results`,
    ``,
    `${report.date}${report.quick ? ' (quick smoke run: numbers are not meaningful)' : ''}${report.only !== undefined ? ` (only scenarios named "${report.only}")` : ''}${report.gateways !== undefined ? ` (only gateways named ${report.gateways.join(', ')})` : ''}; ${report.rounds} interleaved round(s) per scenario; 2-core machine, loopback.`,
    ``,
    `| Scenario | Target | Throughput | rounds (min-max) | p50 ms | p99 ms | vs direct | vs nginx | vs node hop | errors | CPU µs/req |`,
    `|---|---|---|---|---|---|---|---|---|---|---|`,
  ];
  for (const s of report.results) {
    const direct = s.targets.find((t) => t.target === 'direct')?.value;
    const nginx = s.targets.find((t) => t.target === 'nginx proxy')?.value;
    const nodeHop = s.targets.find((t) => t.target === 'node:http hop')?.value;
    const ratio = (value: number, base: number | undefined): string => (base ? `${fixed(value / base, 2)}x` : '–');
    for (const t of s.targets) {
      const cpu = t.cpuUsPerRequest === undefined ? '–' : fixed(t.cpuUsPerRequest, 0);
      // A target that answered every request with an error has no throughput to compare, only a refusal.
      if (t.requests > 0 && t.errors >= t.requests) {
        lines.push(`| ${s.scenario} | ${t.target} | – (every request refused) | – | ${fixed(t.p50Ms, 2)} | ${fixed(t.p99Ms, 2)} | – | – | – | ${t.errors} | ${cpu} |`);
        continue;
      }
      lines.push(
        `| ${s.scenario} | ${t.target} | ${fixed(t.value)} ${s.unit} | ${range(t.rounds)} | ${fixed(t.p50Ms, 2)} | ${fixed(t.p99Ms, 2)} | ${ratio(t.value, direct)} | ${ratio(t.value, nginx)} | ${ratio(t.value, nodeHop)} | ${t.errors} | ${cpu} |`,
      );
    }
  }
  const measures: string[] = [];
  for (const [name, r] of Object.entries(report.rss ?? {})) {
    measures.push(`| RSS growth, ${name} (node) | ${fixed(r.growthMiB)} MiB (baseline ${fixed(r.baselineMiB)} MiB, statuses ${r.status}) |`);
  }
  if (report.sigv4) {
    measures.push(`| SigV4 verification, sequential | ${fixed(report.sigv4.sequentialUs)} µs/request |`);
    measures.push(`| SigV4 verification, 16 concurrent | ${fixed(report.sigv4.concurrent16Us)} µs/request |`);
  }
  if (report.bundle && 'bytes' in report.bundle) {
    measures.push(`| Lambda handler bundle (minified) | ${fixed(report.bundle.bytes / 1024)} KiB |`);
    measures.push(`| Handler cold module load (median of fresh processes) | ${fixed(report.bundle.coldLoadMs)} ms |`);
  } else if (report.bundle) {
    measures.push(`| Lambda handler bundle | ${report.bundle.error} |`);
  }
  if (measures.length > 0) lines.push('', '| Measure | Value |', '|---|---|', ...measures);
  for (const reason of report.skipped ?? []) lines.push('', `Not measured: ${reason}`);
  return lines.join('\n') + '\n';
}

export function writeReport(dir: string, report: Report): void {
  mkdirSync(dir, { recursive: true });
  const name = report.only !== undefined ? 'only' : report.quick ? 'quick' : 'latest';
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(join(dir, `${name}.md`), toMarkdown(report));
  process.stdout.write(toMarkdown(report));
}
