import { toMarkdown, type Report } from '../../bench/report';

const scenario = {
  scenario: 'GET 4 KiB, c32',
  unit: 'req/s',
  targets: [
    { target: 'direct', value: 20000, rounds: [20000], p50Ms: 1, p99Ms: 2, errors: 0, requests: 1 },
    { target: 'gateway (node)', value: 14000, rounds: [13500, 14000, 14420.6], p50Ms: 2, p99Ms: 4, errors: 0, requests: 1, cpuUsPerRequest: 61.4 },
    { target: 'node:http hop', value: 16000, rounds: [16000], p50Ms: 1.5, p99Ms: 3, errors: 0, requests: 1 },
    { target: 'nginx proxy', value: 19000, rounds: [19000], p50Ms: 1.1, p99Ms: 2.1, errors: 0, requests: 1 },
  ],
};

describe('Benchmark report', () => {
  it('GIVEN a full run THEN every target has its rounds\' range and its ratios to direct, nginx and the node hop, and the measures follow', () => {
    const report: Report = { date: 'd', quick: false, rounds: 3, results: [scenario], sigv4: { sequentialUs: 17, concurrent16Us: 16 }, bundle: { bytes: 2048, coldLoadMs: 80 } };
    const md = toMarkdown(report);
    expect(md).toContain('| GET 4 KiB, c32 | gateway (node) | 14000.0 req/s | 13500-14421 | 2.00 | 4.00 | 0.70x | 0.74x | 0.88x | 0 | 61 |');
    expect(md).toContain('| SigV4 verification, sequential | 17.0 µs/request |');
    expect(md).toContain('| Lambda handler bundle (minified) | 2.0 KiB |');
  });

  it('GIVEN a target that refused every request THEN it shows no throughput and no ratios, only the errors', () => {
    const refused = { ...scenario, targets: [...scenario.targets, { target: 'gateway (lambda)', value: 1500, rounds: [1500], p50Ms: 30, p99Ms: 50, errors: 9, requests: 9 }] };
    const md = toMarkdown({ date: 'd', quick: false, rounds: 3, results: [refused] });
    expect(md).toContain('| GET 4 KiB, c32 | gateway (lambda) | – (every request refused) | – | 30.00 | 50.00 | – | – | – | 9 | – |');
  });

  it('GIVEN a run of some scenarios only THEN the title names them and no measures table is printed', () => {
    const md = toMarkdown({ date: 'd', quick: false, only: 'c32', rounds: 3, results: [scenario] });
    expect(md).toContain('(only scenarios named "c32")');
    expect(md).not.toContain('| Measure | Value |');
  });

  it('GIVEN a target the run could not start THEN the report says it was not measured and why', () => {
    const md = toMarkdown({ date: 'd', quick: false, rounds: 3, results: [scenario], skipped: ['gateway (container): podman is not installed'] });
    expect(md).toContain('Not measured: gateway (container): podman is not installed');
  });
});
