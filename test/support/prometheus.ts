import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './gateway';

/**
 * A real Prometheus (Debian `prometheus`) on 127.0.0.1 scraping `targets` every second, with its HTTP API for
 * queries. Fails loudly, naming the package, when it is not installed.
 */
export interface Prometheus {
  readonly url: string;
  /** An instant query's result vector (`/api/v1/query`). */
  query(expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  /**
   * The query's single value once it is `expected` (Prometheus shows what it scraped a moment ago, so it is
   * asked again until it agrees, for up to 30 s); the last value otherwise, for the assertion to report.
   */
  valueOnce(expr: string, expected: number): Promise<number | undefined>;
  stop(): Promise<void>;
}

export async function startPrometheus(targets: readonly string[]): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: gateway\n    static_configs:\n      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]\n`,
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn('prometheus', [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-20_000)));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new Error('prometheus is not installed: apt-get install prometheus') : err),
    );
    child.once('exit', (code) => reject(new Error(`prometheus exited (${code}): ${stderr}`)));
  });
  const ready = (async (): Promise<void> => {
    for (;;) {
      const ok = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
      if (ok) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  await Promise.race([ready, failed]);
  failed.catch(() => undefined);

  const query: Prometheus['query'] = async (expr) => {
    const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await response.json()) as { status: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> }; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus refused ${expr}: ${body.error}`);
    return body.data.result;
  };
  return {
    url,
    query,
    valueOnce: async (expr, expected) => {
      let last: number | undefined;
      for (let i = 0; i < 150; i++) {
        const result = await query(expr);
        last = result.length === 1 ? Number(result[0].value[1]) : undefined;
        if (last === expected) return last;
        await new Promise((r) => setTimeout(r, 200));
      }
      return last;
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
