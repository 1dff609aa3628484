/** The command line of `npm run bench`: `--quick` (one short round) and `--only <text>` (some scenarios). */
export interface BenchOptions {
  readonly quick: boolean;
  /** Run only the scenarios whose name contains this text. */
  readonly only?: string;
}

export function benchOptions(argv: readonly string[]): BenchOptions {
  const quick = argv.includes('--quick');
  const at = argv.indexOf('--only');
  if (at < 0) return { quick };
  const only = argv[at + 1];
  if (only === undefined || only.trim() === '' || only.startsWith('--')) throw new Error('--only needs part of a scenario name, e.g. --only "GET 1 MiB"');
  return { quick, only };
}

/** All scenarios, or those named by `only`; a filter that names none is a typo, not an empty run. */
export function selectScenarios<T extends { readonly name: string }>(all: readonly T[], only: string | undefined): T[] {
  if (only === undefined) return [...all];
  const chosen = all.filter((s) => s.name.includes(only));
  if (chosen.length === 0) throw new Error(`no scenario is named "${only}"; they are: ${all.map((s) => s.name).join('; ')}`);
  return chosen;
}
