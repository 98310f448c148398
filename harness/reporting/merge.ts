/**
 * `canton-conformance merge`: joins the reports of the shards of one run (`run --shard i/n` on n machines) into one
 * report in every format, judged by the same rules as an unsharded run: the shards' check results are put together and
 * aggregated again against the catalogue, so a requirement whose checks ran in different shards gets one verdict.
 *
 * Refused (a configuration error, exit 2): shards of different seeds, configurations, suite versions or shard counts, a
 * shard given twice, a merged report given as a shard, a check in a shard it does not belong to.
 * A missing shard does not stop the merge: the merged report names it, its checks are reported as errors (they did not
 * run: nothing is known about them), and the outcome is INCOMPLETE (exit 3), or FAILED (exit 1) when a MUST requirement
 * failed among the checks that ran.
 */
import { cpSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, type Config } from '../config.js';
import { loadCatalogue } from '../judging/catalogue.js';
import { shardLabel, shardOf, type Shard } from '../run/shard.js';
import type { Api, CheckResultMeta } from '../types.js';
import { aggregate, runOutcome, trafficOf } from './aggregate.js';
import { applyBaseline, loadBaseline } from './baseline.js';
import { checkSums } from './check-sums.js';
import { diffRuns, readEarlierReport } from './diff.js';
import type { RunReport } from './model.js';
import { createRunDir, newRunId, writeEveryReport } from './write.js';

/** The note a shard's own report carries. */
export function shardNote(s: Shard): string {
  return `this report covers shard ${shardLabel(s)} of the checks: a requirement whose checks ran in another shard shows as untested here; "canton-conformance merge" joins the shards' reports into the run's verdicts`;
}

export interface ShardInput {
  /** the argument that named it */
  source: string;
  file: string;
  /** the run's allure-results beside the conformance.json, when there */
  resultsDir?: string;
  report: RunReport;
  shard: Shard;
}

/** Where the conformance.json of a merge argument is: the file itself, a run directory, or a reports directory. */
export function locateShard(arg: string): { file: string; resultsDir?: string } {
  if (!existsSync(arg)) throw new ConfigError(`merge: ${arg} does not exist (a shard's run directory or its conformance.json)`);
  let file: string;
  if (statSync(arg).isFile()) file = arg;
  else if (existsSync(join(arg, 'conformance.json'))) file = join(arg, 'conformance.json');
  else if (existsSync(join(arg, 'latest', 'conformance.json'))) file = join(arg, 'latest', 'conformance.json');
  else {
    // a reports directory whose `latest` link was lost on the way (CI artifacts): its one run directory
    const runs = readdirSync(arg).filter((d) => existsSync(join(arg, d, 'conformance.json')));
    if (runs.length === 0) throw new ConfigError(`merge: ${arg} holds no conformance.json (give a shard's run directory, its reports directory or the file)`);
    if (runs.length > 1) throw new ConfigError(`merge: ${arg} holds ${runs.length} runs (${runs.slice(0, 4).join(', ')}${runs.length > 4 ? ', ...' : ''}): name the run directory of the shard`);
    file = join(arg, runs[0]!, 'conformance.json');
  }
  const results = join(dirname(file), 'allure-results');
  return { file, ...(existsSync(results) && statSync(results).isDirectory() ? { resultsDir: results } : {}) };
}

/** Reads a shard's conformance.json; anything that is not one is a configuration error naming the argument. */
export function readShard(source: string): ShardInput {
  const { file, resultsDir } = locateShard(source);
  let report: Partial<RunReport>;
  try {
    report = JSON.parse(readFileSync(file, 'utf8')) as Partial<RunReport>;
  } catch (e) {
    throw new ConfigError(`merge: ${file} is not a conformance.json: ${(e as Error).message.split('\n')[0]}`);
  }
  const ok =
    typeof report === 'object' && report !== null && report.schemaVersion === 1 && typeof report.runId === 'string' && typeof report.seed === 'number' &&
    typeof report.suite?.version === 'string' && Array.isArray(report.checks) && Array.isArray(report.runErrors) && typeof report.config === 'object' && Array.isArray(report.selection?.apis) && Array.isArray(report.selection.requirements);
  if (!ok) throw new ConfigError(`merge: ${file} is not a conformance.json of this suite (schemaVersion 1, with runId, seed, suite, config, selection, checks)`);
  if (report.merged !== undefined) throw new ConfigError(`merge: ${file} is already a merged report; give the shards' own reports`);
  return { source, file, ...(resultsDir !== undefined ? { resultsDir } : {}), report: report as RunReport, shard: report.shard ?? { index: 1, count: 1 } };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The part of a shard's (redacted) configuration that must be the same in every shard: all of it but the shard
 * itself, where the reports go and what they are compared with (run.reportsDir, html, compare, baseline, maxRunMs),
 * where the settings came from, and the targets the embedded reference generated for itself (its ports and files
 * differ from one start to the next; its settings, under `reference`, are compared).
 */
export function comparableConfig(config: unknown): Json {
  const c = structuredClone(isObject(config) ? config : {});
  if (isObject(c.run)) for (const k of ['shard', 'reportsDir', 'html', 'compare', 'baseline', 'maxRunMs']) delete c.run[k];
  delete c.sources;
  // the target's own API descriptions as each shard kept them: the same sources, in each shard's own run folder
  delete c.alsoValidate;
  if (c.useReference === true) delete c.targets;
  return c;
}

/** The paths where two JSON values differ, with both values (cut short), at most `max`. */
function differences(a: unknown, b: unknown, path: string, out: string[], max = 5): void {
  if (out.length >= max) return;
  if (isObject(a) && isObject(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) differences(a[k], b[k], path ? `${path}.${k}` : k, out, max);
    return;
  }
  if (JSON.stringify(a) === JSON.stringify(b)) return;
  const show = (v: unknown) => (v === undefined ? '(unset)' : JSON.stringify(v).slice(0, 80));
  out.push(`${path || '(top level)'}: ${show(a)} vs ${show(b)}`);
}

/** Refuses shards that are not the shards of one run; returns the shard count and the missing shards. */
export function checkShards(shards: ShardInput[], suiteVersion: string): { count: number; missing: number[] } {
  if (shards.length === 0) throw new ConfigError('merge: name at least one shard (a run directory or a conformance.json)');
  const [first] = shards as [ShardInput];
  const name = (s: ShardInput) => `${s.source} (${s.report.shard === undefined ? 'an unsharded run' : `shard ${shardLabel(s.shard)}`})`;
  for (const s of shards) {
    if (s.shard.count !== first.shard.count) {
      throw new ConfigError(`merge: the shards come from runs cut into different numbers of shards: ${name(first)} and ${name(s)}; merge the shards of one run`);
    }
  }
  const seen = new Map<number, ShardInput>();
  for (const s of shards) {
    const other = seen.get(s.shard.index);
    if (other !== undefined) throw new ConfigError(`merge: shard ${shardLabel(s.shard)} is given twice: ${other.source} and ${s.source}`);
    seen.set(s.shard.index, s);
  }
  for (const s of shards) {
    if (s.report.suite.version !== first.report.suite.version) {
      throw new ConfigError(`merge: the shards ran different suite versions: ${first.source} ${first.report.suite.version}, ${s.source} ${s.report.suite.version}`);
    }
    if (s.report.seed !== first.report.seed) {
      throw new ConfigError(`merge: the shards ran with different seeds: ${first.source} seed ${first.report.seed}, ${s.source} seed ${s.report.seed}; give every shard the same --seed (not "random")`);
    }
    const diff: string[] = [];
    differences(comparableConfig(first.report.config), comparableConfig(s.report.config), '', diff);
    if (diff.length > 0) throw new ConfigError(`merge: the shards ran with different configurations: ${first.source} vs ${s.source}: ${diff.join('; ')}`);
  }
  if (first.report.suite.version !== suiteVersion) {
    throw new ConfigError(`merge: the shards ran suite version ${first.report.suite.version}, this is ${suiteVersion}: merge with the version that ran them (its catalogue judges them)`);
  }
  const count = first.shard.count;
  for (const s of shards) {
    if (count === 1) break;
    const stray = s.report.checks.find((c) => shardOf(c.id, count) !== s.shard.index);
    if (stray !== undefined) throw new ConfigError(`merge: ${s.source} holds check ${stray.id}, which belongs to shard ${shardOf(stray.id, count)}/${count}, not ${shardLabel(s.shard)}: these shards were not cut by this version`);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  return { count, missing };
}

/** The checks a missing shard would have run, reported as errors: they did not run, so nothing is known about them. */
async function missingChecks(missing: number[], count: number, apis: Api[], selection: string[]): Promise<{ checks: CheckResultMeta[]; problem?: string }> {
  if (missing.length === 0) return { checks: [] };
  try {
    const { collectChecks } = await import('../run/discover.js');
    const declared = await collectChecks(apis);
    const checks = declared
      .filter((c) => missing.includes(shardOf(c.id, count)) && (selection.length === 0 || c.requirements.some((r) => selection.includes(r))))
      .map(({ file, ...decl }): CheckResultMeta => ({ ...decl, file, verdict: 'error', error: `shard ${shardOf(decl.id, count)}/${count} is missing from the merge: this check did not run`, requests: 0 }));
    return { checks };
  } catch (e) {
    return { checks: [], problem: `the checks of the missing shard(s) could not be listed (${(e as Error).message}): the requirements they judge show as untested` };
  }
}

export interface MergeOptions {
  reportsDir: string;
  html: boolean;
  baseline?: string;
  /** an earlier conformance.json to diff against; true: reportsDir/latest unless that is a shard's report; false: none */
  compare: string | boolean;
  suiteVersion: string;
}

export interface MergeResult {
  report: RunReport;
  dir: string;
  files: string[];
}

/** Merges the shards named by `sources` into one report written under reportsDir (and reportsDir/latest). */
export async function mergeShards(sources: string[], o: MergeOptions): Promise<MergeResult> {
  const shards = sources.map(readShard).sort((a, b) => a.shard.index - b.shard.index);
  const { count, missing } = checkShards(shards, o.suiteVersion);
  // the shards' checks folder (run.checksDir), whose requirements the shards judged too
  const checksDir = (shards[0]?.report.config as { run?: { checksDir?: unknown } } | undefined)?.run?.checksDir;
  const catalogue = loadCatalogue(undefined, typeof checksDir === 'string' && existsSync(checksDir) ? checksDir : undefined);
  // read before anything is written, as a run does: a bad baseline or compare file is a configuration error
  const expectations = o.baseline !== undefined ? loadBaseline(o.baseline, catalogue) : [];
  const compareFile = o.compare === false ? undefined : o.compare === true ? join(o.reportsDir, 'latest', 'conformance.json') : o.compare;
  let earlier = compareFile !== undefined ? readEarlierReport(compareFile, typeof o.compare === 'string') : undefined;
  // by default the previous merged (or whole) run is the reference; a shard's partial verdicts are not
  if (o.compare === true && earlier !== undefined && (earlier as { shard?: Shard }).shard !== undefined) earlier = undefined;

  const first = shards[0]!.report;
  const apis = first.selection.apis;
  // a selection narrowed by --check, --operation or --exclude-requirement reports the requirements its checks cite:
  // each shard's own share of them, joined here
  const selection = first.selection.filters === undefined ? first.selection.requirements : [...new Set(shards.flatMap((s) => s.report.selection.requirements))];
  const absent = await missingChecks(missing, count, apis, selection);
  const checks = [...shards.flatMap((s) => s.report.checks), ...absent.checks];
  const runErrors = [
    ...shards.flatMap((s) => s.report.runErrors.map((e) => (count > 1 ? `shard ${shardLabel(s.shard)}: ${e}` : e))),
    ...missing.map((i) => `shard ${i}/${count} missing: no report of it was given, so its checks did not run (${absent.checks.filter((c) => shardOf(c.id, count) === i).length} reported as errors)`),
    ...(absent.problem !== undefined ? [absent.problem] : []),
  ];
  const known = new Set(expectations.map((e) => e.requirement));
  // the shards' gates (run.failOn, run.minDecided), judged over the whole run's interfaces with a target
  const shardRun = isObject(first.config) && isObject(first.config.run) ? first.config.run : {};
  const gates = {
    failOn: shardRun.failOn === 'should' ? ('should' as const) : ('must' as const),
    ...(typeof shardRun.minDecided === 'number' ? { minDecided: shardRun.minDecided } : {}),
    decidedOver: apis.filter((a) => first.targets[a] !== undefined),
  };
  const agg = aggregate(catalogue, checks, apis, selection, runErrors, known, gates);
  const stopped = shards.find((s) => s.report.interrupted !== undefined);
  const interrupted = stopped === undefined ? undefined : { by: `shard ${shardLabel(stopped.shard)}${stopped.report.interrupted!.by !== undefined ? `: ${stopped.report.interrupted!.by}` : ''}`, atOnce: shards.some((s) => s.report.interrupted?.atOnce === true) };
  const baseline = o.baseline !== undefined ? { file: o.baseline, ...applyBaseline(expectations, new Map(agg.requirements.map((r) => [r.id, r.verdict]))) } : undefined;

  const now = new Date();
  const runId = newRunId(now);
  const dir = createRunDir(o.reportsDir, runId);
  // the HTML report is rendered from every shard's Allure results, copied together, or not at all
  const withoutResults = shards.filter((s) => s.resultsDir === undefined);
  for (const s of shards) if (s.resultsDir !== undefined) cpSync(s.resultsDir, join(dir, 'allure-results'), { recursive: true });
  const notes: string[] = [];
  if (o.html && withoutResults.length > 0) notes.push(`no HTML report: ${withoutResults.map((s) => s.source).join(', ')} has no allure-results beside its conformance.json (keep each shard's run directory whole)`);

  const startedAt = Math.min(...shards.map((s) => Date.parse(s.report.startedAt)));
  const finishedAt = Math.max(...shards.map((s) => Date.parse(s.report.finishedAt)));
  // the shards' configuration, with the merge's own report settings
  const config = structuredClone(isObject(first.config) ? first.config : {});
  if (isObject(config.run)) {
    for (const k of ['shard', 'baseline']) delete config.run[k];
    Object.assign(config.run, { reportsDir: o.reportsDir, html: o.html, compare: o.compare, ...(o.baseline !== undefined ? { baseline: o.baseline } : {}) });
  }
  const report: RunReport = {
    schemaVersion: 1,
    suite: first.suite,
    runId,
    startedAt: new Date(startedAt).toISOString(),
    finishedAt: new Date(finishedAt).toISOString(),
    durationMs: finishedAt - startedAt,
    seed: first.seed,
    runs: first.runs,
    targets: first.targets,
    config,
    ...(first.reference !== undefined ? { reference: first.reference } : {}),
    selection: { ...first.selection, requirements: selection },
    merged: { count, shards: shards.map((s) => ({ ...s.shard, runId: s.report.runId, startedAt: s.report.startedAt, source: s.source })), missing },
    ...runOutcome(agg, interrupted),
    traffic: trafficOf(checks),
    ...checkSums(checks, isObject(config.run) && config.run.readOnly === true, isObject(config.alsoValidate) ? (config.alsoValidate as Config['alsoValidate']) : undefined),
    counts: agg.counts,
    checkCounts: agg.checkCounts,
    requirements: agg.requirements,
    checks,
    runErrors,
    ...(baseline !== undefined ? { baseline } : {}),
    ...(earlier !== undefined && compareFile !== undefined ? { diff: diffRuns(earlier, compareFile, agg.requirements) } : {}),
    notes,
  };
  const files = await writeEveryReport(dir, report, o.html && withoutResults.length === 0);
  return { report, dir: resolve(dir), files };
}
