/**
 * The command line of `npm run bench`: `--quick` (one short round), `--only <text>` (some scenarios),
 * `--gateways <a,b>` (some gateway targets) and `--baseline <rev>` (the Node server built from another commit
 * as one more target, interleaved with today's: the A/B of a change in one run).
 */
export interface BenchOptions {
  readonly quick: boolean;
  /** Run only the scenarios whose name contains this text. */
  readonly only?: string;
  /** Measure only the gateway targets whose name contains one of these; the references always run. */
  readonly gateways?: readonly string[];
  /** A git revision whose Node server runs beside today's, as `gateway (node @rev)`. */
  readonly baseline?: string;
  /** Interleaved rounds per scenario (default 5, 1 with --quick): more narrow a small difference down. */
  readonly rounds?: number;
}

export function benchOptions(argv: readonly string[]): BenchOptions {
  const only = valueOf(argv, '--only', 'part of a scenario name, e.g. --only "GET 1 MiB"');
  const gateways = valueOf(argv, '--gateways', 'gateway names, e.g. --gateways node,container');
  const baseline = valueOf(argv, '--baseline', 'a git revision, e.g. --baseline a0e31eb');
  const rounds = valueOf(argv, '--rounds', 'a number of rounds, e.g. --rounds 15');
  if (rounds !== undefined && !/^[1-9][0-9]?$/.test(rounds)) throw new Error('--rounds needs a number of rounds from 1 to 99');
  return {
    quick: argv.includes('--quick'),
    ...(only === undefined ? {} : { only }),
    ...(gateways === undefined ? {} : { gateways: gateways.split(',').map((g) => g.trim()).filter((g) => g !== '') }),
    ...(baseline === undefined ? {} : { baseline }),
    ...(rounds === undefined ? {} : { rounds: Number(rounds) }),
  };
}

function valueOf(argv: readonly string[], flag: string, what: string): string | undefined {
  const at = argv.indexOf(flag);
  if (at < 0) return undefined;
  const value = argv[at + 1];
  if (value === undefined || value.trim() === '' || value.startsWith('--')) throw new Error(`${flag} needs ${what}`);
  return value;
}

/** All scenarios, or those named by `only`; a filter that names none is a typo, not an empty run. */
export function selectScenarios<T extends { readonly name: string }>(all: readonly T[], only: string | undefined): T[] {
  if (only === undefined) return [...all];
  const chosen = all.filter((s) => s.name.includes(only));
  if (chosen.length === 0) throw new Error(`no scenario is named "${only}"; they are: ${all.map((s) => s.name).join('; ')}`);
  return chosen;
}

/** Whether a gateway target (`node`, `lambda`, `container`…) is measured in this run. */
export function gatewaySelected(options: BenchOptions, name: string): boolean {
  return options.gateways === undefined || options.gateways.some((g) => name.includes(g));
}
