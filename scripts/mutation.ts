/**
 * `npm run mutation`: how many unplanted breaks of the reference's request handlers the suite notices. A small mutator
 * of our own (scripts/mutation/), not Stryker: the reference runs in a worker thread from the CLI's esbuild bundle,
 * which Stryker cannot instrument. See scripts/mutation/run.ts for the run, scripts/mutation/report.ts for the report.
 *
 * Exit codes: 0 the run finished (whatever the score), 2 bad usage or the tests failing without any mutant.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import { OPERATORS, type Operator } from './mutation/mutate.js';
import { applyTriage, loadTriage, markdownReport, scores, textReport, TriageError } from './mutation/report.js';
import { GROUPS, MutationError, PASSES, type RunOutcome, runMutation } from './mutation/run.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const int = (name: string, min: number) => (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) < min) throw new InvalidArgumentError(`${name} takes a whole number of at least ${min}`);
  return Number(v);
};
const list = (allowed: readonly string[], what: string) => (v: string, prev: string[] | undefined) => {
  const items = v.split(',').map((x) => x.trim()).filter((x) => x !== '');
  for (const x of items) if (!allowed.includes(x)) throw new InvalidArgumentError(`unknown ${what} "${x}" (one of ${allowed.join(', ')})`);
  return [...(prev ?? []), ...items];
};

/** An earlier run's mutation.json, its triage verdicts dropped (they are made again from the triage file). */
function readOutcome(file: string): RunOutcome {
  let j: unknown;
  try {
    j = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new MutationError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const out = j as RunOutcome;
  if (typeof j !== 'object' || j === null || !Array.isArray(out.mutants) || out.mutants.some((m) => typeof m?.key !== 'string' || typeof m.status !== 'string')) throw new MutationError(`${file} is not a mutation.json written by npm run mutation`);
  for (const m of out.mutants) {
    delete m.triaged;
    delete m.gap;
  }
  return out;
}

/**
 * Merges later runs of some mutants (each a mutation.json, e.g. of `--mutant KEY` runs after a check was added) into
 * an earlier run: a mutant of `base` run again (matched by key) takes its later result, marked with where it was
 * obtained; mutants of a later run that `base` does not have are left out and counted. Later files win over earlier.
 */
export function mergeOutcomes(base: RunOutcome, later: { file: string; out: RunOutcome }[]): void {
  const byKey = new Map(base.mutants.map((m) => [m.key, m]));
  for (const { file, out } of later) {
    let merged = 0;
    let unmatched = 0;
    const at = out.commit !== undefined ? `commit ${out.commit.slice(0, 12)}` : `${out.source} of ${out.startedAt}`;
    for (const m of out.mutants) {
      const b = byKey.get(m.key);
      if (b === undefined) {
        unmatched++;
        continue;
      }
      for (const k of ['exitCode', 'ms', 'pass', 'passes', 'rerun'] as const) delete b[k];
      Object.assign(b, { status: m.status, rerunAt: at }, ...(['exitCode', 'ms', 'pass', 'passes', 'rerun'] as const).filter((k) => m[k] !== undefined).map((k) => ({ [k]: m[k] })));
      merged++;
    }
    base.merged = [...(base.merged ?? []), { file, at, startedAt: out.startedAt, mutants: merged, unmatched }];
  }
}

function stamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace('T', '-').replace(/\..*$/, 'Z');
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command('mutation')
    .description('mutation testing of the reference server\'s request handlers (outside the fault-planting code) against the suite')
    .option('--only <groups>', `mutate only these handler folders, comma-separated (${GROUPS.join(', ')})`, list(GROUPS, 'group'))
    .option('--file <path>', 'mutate only this file (relative to the project; repeatable)', (v: string, p: string[] | undefined) => [...(p ?? []), v])
    .option('--operator <names>', `only these operators, comma-separated (${OPERATORS.join(', ')})`, list(OPERATORS, 'operator'))
    .option('--sample <n>', 'run a deterministic sample of n of the mutants found (see --seed)', int('--sample', 1))
    .option('--seed <n>', 'the seed of --sample (default 1)', int('--seed', 0))
    .option('--limit <n>', 'run at most the first n mutants (after --sample)', int('--limit', 1))
    .option('--mutant <id|key>', 'run only this mutant (repeatable): an id as --dry-run numbers it for the same --only/--file/--operator, or a key (keys alone select their files)', (v: string, p: string[] | undefined) => [...(p ?? []), v.trim()])
    .option('--pass <names>', `run only these passes, comma-separated; "default" must be one (the passes: ${[...new Set(Object.values(PASSES).flat().map((p) => p.name))].map((n) => `"${n}"`).join(', ')}); a survivor then is one of these passes only, and the report says which passes were made`, (v: string, p: string[] | undefined) => [...(p ?? []), ...v.split(',').map((x) => x.trim()).filter((x) => x !== '')])
    .option('--concurrency <n>', 'mutants run at once (1 or 2)', int('--concurrency', 1), 2)
    .option('--timeout-ms <n>', 'the longest one mutant\'s test run may take (at least 3 times the same pass\'s run without a mutant); killed then, run again alone at the end, and counted as detected if it times out again', int('--timeout-ms', 1000), 60_000)
    .addOption(new Option('--fail-on <level>', 'which failures of the suite detect a mutant (passed to run --fail-on)').choices(['must', 'should']).default('should'))
    .addOption(new Option('--source <what>', 'mutate a copy of the last commit or of the working tree as it is').choices(['head', 'worktree']).default('head'))
    .option('--command <cmd>', 'the test command instead of the suite (split on spaces; {apis} and {reports} are replaced, a word {pass} becomes the pass\'s options; CC_MUTANT names the mutant, CC_MUTANT_PASS the pass)')
    .option('--triage <file>', 'the triage of survivors: a YAML file, or a folder of them', 'specs/mutation-triage')
    .option('--reports-dir <dir>', 'where mutation/<time>/mutation.json and mutation.md are written', 'reports')
    .option('--json <file>', 'also write the result as JSON to this file')
    .option('--root <dir>', 'the project to mutate (default: this one)')
    .option('--from-json <file>', 'run nothing: report an earlier mutation.json again with the triage file as it is now')
    .option('--merge <file>', 'with --from-json: a later mutation.json of some of its mutants (e.g. run again by --mutant after a check was added); each mutant in it (matched by key) takes the later result (repeatable, later files win)', (v: string, p: string[] | undefined) => [...(p ?? []), v])
    .option('--dry-run', 'list the mutants found, run nothing')
    .option('--keep', 'keep the mutated copy (its folder is printed)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    const code = (e as { code?: string }).code;
    return code === 'commander.helpDisplayed' || code === 'commander.help' || code === 'commander.version' ? 0 : 2;
  }
  const o = program.opts<{
    only?: string[]; file?: string[]; mutant?: string[]; pass?: string[]; operator?: Operator[]; sample?: number; seed?: number; limit?: number; concurrency: number; timeoutMs: number;
    failOn: 'must' | 'should'; source: 'head' | 'worktree'; command?: string; triage: string; reportsDir: string; json?: string; root?: string; fromJson?: string; merge?: string[]; dryRun?: boolean; keep?: boolean;
  }>();
  if (o.concurrency > 2) {
    process.stderr.write('mutation: --concurrency is at most 2 (each run of the suite uses its own workers)\n');
    return 2;
  }
  const passNames = new Set(Object.values(PASSES).flat().map((p) => p.name));
  const unknownPass = (o.pass ?? []).find((n) => !passNames.has(n));
  if (unknownPass !== undefined || (o.pass !== undefined && !o.pass.includes('default'))) {
    process.stderr.write(`mutation: ${unknownPass !== undefined ? `unknown pass "${unknownPass}"` : '--pass must include "default"'} (the passes: ${[...passNames].join(', ')})\n`);
    return 2;
  }
  if (o.merge !== undefined && o.fromJson === undefined) {
    process.stderr.write('mutation: --merge needs --from-json (the earlier run the later results are merged into)\n');
    return 2;
  }
  const root = resolve(o.root ?? ROOT);
  const write = (s: string) => process.stderr.write(s);
  try {
    const triage = loadTriage(resolve(root, o.triage));
    const out = o.fromJson !== undefined ? readOutcome(resolve(o.fromJson)) : await runMutation({
      root,
      ...(o.file !== undefined ? { files: o.file } : {}),
      ...(o.only !== undefined ? { only: o.only } : {}),
      ...(o.operator !== undefined ? { operators: o.operator } : {}),
      ...(o.sample !== undefined ? { sample: o.sample } : {}),
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.limit !== undefined ? { limit: o.limit } : {}),
      ...(o.mutant !== undefined ? { mutants: o.mutant } : {}),
      ...(o.pass !== undefined ? { passes: Object.fromEntries(Object.entries(PASSES).map(([api, ps]) => [api, ps.filter((p) => o.pass!.includes(p.name))])) } : {}),
      ...(o.command !== undefined ? { command: o.command } : {}),
      failOn: o.failOn,
      timeoutMs: o.timeoutMs,
      concurrency: o.concurrency,
      source: o.source,
      dryRun: o.dryRun === true,
      keep: o.keep === true,
      write,
    });
    if (o.dryRun === true) {
      for (const m of out.mutants) process.stdout.write(`#${m.id} ${m.file}:${m.line}:${m.column} ${m.operator}  ${m.original.replace(/\s+/g, ' ').slice(0, 80)}  ->  ${m.mutated.replace(/\s+/g, ' ').slice(0, 60)}\n`);
      return 0;
    }
    if (o.merge !== undefined) mergeOutcomes(out, o.merge.map((f) => ({ file: f, out: readOutcome(resolve(f)) })));
    const { stale } = applyTriage(out.mutants, triage, out.wholeFiles ?? []);
    const json = { ...out, scores: scores(out.mutants), staleTriage: stale };
    const dir = o.fromJson !== undefined ? dirname(resolve(o.fromJson)) : join(resolve(root, o.reportsDir), 'mutation', stamp(new Date(out.startedAt)));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'mutation.json'), `${JSON.stringify(json, null, 1)}\n`);
    writeFileSync(join(dir, 'mutation.md'), markdownReport(out, stale));
    if (o.json !== undefined) writeFileSync(resolve(o.json), `${JSON.stringify(json, null, 1)}\n`);
    process.stdout.write(`\n${textReport(out, stale)}\nreports: ${join(dir, 'mutation.md')} and mutation.json\n`);
    return 0;
  } catch (e) {
    if (e instanceof MutationError || e instanceof TriageError) {
      process.stderr.write(`mutation: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
