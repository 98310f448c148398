/**
 * The self-test: the suite against the clean reference server gives no failure and no error, and against each planted
 * fault it fails on the requirement the fault declares. Prints and writes the mutation score (faults detected / faults
 * planted, the undetected ones named); an undetected fault fails the self-test unless reference/known-gaps.yaml lists
 * it with a reason.
 *
 * Fast by construction: ONE vitest instance for every run, and faults batched. Each fault gets a reference server of its
 * own in this process; one run covers a whole batch, with the checks of each fault's requirement routed to that fault's
 * server (config.internal.routes) and only the spec files holding those checks selected.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Reporter, TestCase, TestModule, TestSpecification, Vitest } from 'vitest/node';
import type { SerializedError } from '@vitest/utils';
import { parse as parseYaml } from 'yaml';
import { loadCatalogue, type Requirement } from '../judging/catalogue.js';
import { DEFAULT_RUN, type Config, type ReferenceSettings } from '../config.js';
import { PACKAGE_ROOT } from '../paths.js';
import { aggregate } from '../reporting/aggregate.js';
import { ConformanceCollector, type CollectedRun } from '../reporting/collector.js';
import { startEmbeddedReference } from './runner.js';
import { APIS, type Api, type CheckResultMeta } from '../types.js';
import { createSuiteVitest, suiteGlobs } from './suite-vitest.js';
import { LEDGER_VERSIONS, compareVersions, outOfRange, type LedgerVersion } from '../judging/versions.js';
import type { FaultDefinition } from '../../reference/faults.js';

export const KNOWN_GAPS_FILE = join(PACKAGE_ROOT, 'reference', 'known-gaps.yaml');

export interface SelfTestOptions {
  /** only these faults (default: every registered fault); the clean run always runs */
  faults?: string[];
  /** where progress and the score go (default stdout) */
  write?: (s: string) => void;
  /** reports go to <reportsDir>/selftest/ (default: reports) */
  reportsDir?: string;
  /** write mutation.json and mutation.md (default true) */
  writeFiles?: boolean;
  /** the known-gaps file (default reference/known-gaps.yaml) */
  knownGapsFile?: string;
  /** seeds of the reference variants the clean suite also runs against (default DEFAULT_VARIANT_SEEDS) */
  variants?: number[];
}

/**
 * The reference variants of the self-test: five seeds that between them take every option of every choice
 * reference/variant.ts makes (test/reference/variant.test.ts checks it with untakenOptions).
 */
export const DEFAULT_VARIANT_SEEDS = [1, 2, 12, 28, 43];

/** The reference server settings a scenario runs with (besides its fault). */
export type Profile = Pick<ReferenceSettings, 'ledgerVersion' | 'scanVersion' | 'registryVersion' | 'trafficEnforcement' | 'transferLegs' | 'variant'>;

export interface CleanScenario {
  profile: Profile;
  /** for a variant's clean run: what the variant chose (only the choices that differ from the default reference) */
  variant?: { seed: number; choices: Record<string, string> };
  /** the requirements selected ([] = all) */
  requirements: string[];
  ms: number;
  checks: number;
  verdicts: Record<string, number>;
  /** failing or erroring checks, and run errors: each one fails the self-test */
  problems: string[];
}

export type FaultStatus = 'detected' | 'undetected' | 'known-gap' | 'gap-now-detected';

export interface FaultOutcome {
  name: string;
  requirement: string;
  description: string;
  status: FaultStatus;
  /** the verdict that detects the fault: 'fail', or 'unsupported' for a fault that switches an optional behaviour off */
  expected: 'fail' | 'unsupported';
  /** the verdict of the declared requirement in the fault's run (untested when no check covers it) */
  verdict: string;
  /** why it is undetected; or the known gap's reason */
  reason?: string;
  /** other requirements that also failed in the fault's run (a fault should break exactly one) */
  alsoFailed: string[];
  profile: Profile;
  ms: number;
}

export interface SelfTestResult {
  ok: boolean;
  score: { detected: number; planted: number; percent: number };
  clean: CleanScenario[];
  faults: FaultOutcome[];
  /** anything that fails the self-test besides undetected faults: a dirty clean run, a bad fault or known gap */
  problems: string[];
  files: string[];
  totalMs: number;
  /** per fault scenario, mean milliseconds */
  meanFaultMs: number;
}

export interface KnownGap {
  fault: string;
  reason: string;
}

/** reference/known-gaps.yaml: a list of `- fault: name` / `reason: ...`. */
export function loadKnownGaps(file = KNOWN_GAPS_FILE): { gaps: KnownGap[]; problems: string[] } {
  if (!existsSync(file)) return { gaps: [], problems: [] };
  const doc = parseYaml(readFileSync(file, 'utf8')) as unknown;
  const problems: string[] = [];
  if (doc === null || doc === undefined) return { gaps: [], problems };
  if (!Array.isArray(doc)) return { gaps: [], problems: [`${file}: expected a list of { fault, reason }`] };
  const gaps: KnownGap[] = [];
  doc.forEach((g: unknown, i) => {
    const e = g as Partial<KnownGap> | null;
    if (e === null || typeof e !== 'object' || typeof e.fault !== 'string' || typeof e.reason !== 'string' || e.reason.trim() === '') {
      problems.push(`${file}: entry ${i + 1} needs a fault name and a non-empty reason`);
      return;
    }
    gaps.push({ fault: e.fault, reason: e.reason.trim() });
  });
  return { gaps, problems };
}

/** A version below `until`: 0.6.8 -> 0.6.7, 3.5 -> 3.4, 0.7.0 -> 0.6.99. */
function below(until: string): string {
  const parts = until.split('.').map((n) => Number.parseInt(n, 10) || 0);
  for (let i = parts.length - 1; i >= 0; i--) {
    if (parts[i]! > 0) {
      parts[i]!--;
      for (let j = i + 1; j < parts.length; j++) parts[j] = 99;
      return parts.join('.');
    }
  }
  return until;
}

const DEFAULT_PROFILE: Required<Pick<Profile, 'ledgerVersion' | 'scanVersion' | 'registryVersion' | 'trafficEnforcement'>> = { ledgerVersion: '3.5', scanVersion: '0.8.0', registryVersion: '0.6.11', trafficEnforcement: true };

/** The reference settings under which a requirement applies: a version inside its range, its features on. */
export function profileFor(r: Requirement, override: Profile = {}): Profile {
  const p: Profile = {};
  const pick = (candidates: string[]) => candidates.find((v) => outOfRange(v, r.since, r.until) === undefined);
  if (r.api === 'ledger' && (r.since !== undefined || r.until !== undefined)) {
    const v = pick(['3.5', '3.4']);
    if (v !== undefined && v !== DEFAULT_PROFILE.ledgerVersion) p.ledgerVersion = v as LedgerVersion;
  }
  if ((r.api === 'scan' || r.api === 'validator') && (r.since !== undefined || r.until !== undefined)) {
    const v = pick([DEFAULT_PROFILE.scanVersion, ...(r.until !== undefined ? [below(r.until)] : []), ...(r.since !== undefined ? [r.since] : [])]);
    if (v !== undefined && compareVersions(v, DEFAULT_PROFILE.scanVersion) !== 0) p.scanVersion = v;
  }
  if (r.api === 'registry' && (r.since !== undefined || r.until !== undefined)) {
    const v = pick([DEFAULT_PROFILE.registryVersion, ...(r.until !== undefined ? [below(r.until)] : []), ...(r.since !== undefined ? [r.since] : [])]);
    if (v !== undefined && compareVersions(v, DEFAULT_PROFILE.registryVersion) !== 0) p.registryVersion = v;
  }
  if (r.features?.includes('trafficEnforcement')) p.trafficEnforcement = true;
  const merged: Profile = { ...p, ...override };
  // the default values are not a profile of their own
  for (const k of Object.keys(merged) as Array<keyof Profile>) {
    if ((DEFAULT_PROFILE as Record<string, unknown>)[k] === merged[k]) delete merged[k];
  }
  return merged;
}

const profileKey = (p: Profile): string => JSON.stringify(Object.fromEntries(Object.entries(p).sort(([a], [b]) => a.localeCompare(b))));
const profileText = (p: Profile): string => {
  const parts = Object.entries(p).map(([k, v]) => `${k} ${String(v)}`);
  return parts.length === 0 ? 'default reference' : parts.join(', ');
};

/** A reporter that hands every event to the collector of the current scenario (one vitest instance, many runs). */
class ScenarioReporter implements Reporter {
  current = new ConformanceCollector(PACKAGE_ROOT, () => {}, false);
  reset(): ConformanceCollector {
    this.current = new ConformanceCollector(PACKAGE_ROOT, () => {}, false);
    return this.current;
  }
  onTestModuleCollected(module: TestModule): void {
    this.current.onTestModuleCollected(module);
  }
  onTestCaseResult(testCase: TestCase): void {
    this.current.onTestCaseResult(testCase);
  }
  onTestModuleEnd(module: TestModule): void {
    this.current.onTestModuleEnd(module);
  }
  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<SerializedError>, reason: 'passed' | 'interrupted' | 'failed'): void {
    this.current.onTestRunEnd(modules, errors, reason);
  }
}

interface Runner {
  vitest: Vitest;
  reporter: ScenarioReporter;
  specs: TestSpecification[];
}

async function createRunner(): Promise<Runner> {
  const reporter = new ScenarioReporter();
  const placeholder: Config = { run: { ...DEFAULT_RUN, html: false }, targets: {}, reference: { faults: [] }, useReference: true, sources: ['selftest'] };
  const vitest = await createSuiteVitest({ include: suiteGlobs(APIS), reporters: [reporter], config: placeholder });
  const specs = await vitest.globTestSpecifications();
  return { vitest, reporter, specs };
}

const relFile = (moduleId: string) => moduleId.replace(`${PACKAGE_ROOT}/`, '');

/** One run: a reference server with these settings and faults, the given spec files, the given requirement selection. */
async function runScenario(runner: Runner, o: { faults: string[]; profile: Profile; requirements: string[]; files: string[] }): Promise<CollectedRun> {
  const config: Config = {
    run: { ...DEFAULT_RUN, html: false, requirements: o.requirements },
    targets: {},
    reference: { faults: o.faults, ...o.profile },
    useReference: true,
    sources: ['selftest'],
  };
  const reference = await startEmbeddedReference(config);
  try {
    return await runFiles(runner, config, o.files);
  } finally {
    await reference.close();
  }
}

/** Runs the given spec files once with this configuration provided to the workers. */
async function runFiles(runner: Runner, config: Config, files: Iterable<string>): Promise<CollectedRun> {
  runner.vitest.provide('conformanceConfig', config);
  const collector = runner.reporter.reset();
  const wanted = new Set(files);
  const specs = runner.specs.filter((s) => wanted.has(relFile(s.moduleId)));
  try {
    await runner.vitest.runTestSpecifications(specs, false);
  } catch (e) {
    collector.run.runErrors.push(`the test runner failed: ${(e as Error).message}`);
  }
  return collector.run;
}

/** Faults a batched run proves at most: each is one reference server in this process. */
const BATCH_SIZE = 24;

/** How many of the checks that judged a generic requirement run for a fault on it. */
const JUDGED_CHECKS = 8;

/** One run for a batch of faults: a server per fault, the checks that can see each fault routed to its server. */
async function runBatch(runner: Runner, profile: Profile, members: Array<{ fault: FaultDefinition; checks: string[]; files: string[] }>): Promise<CollectedRun> {
  const servers: Array<{ close(): Promise<void> }> = [];
  try {
    const routes: NonNullable<NonNullable<Config['internal']>['routes']> = [];
    for (const { fault: f, checks } of members) {
      const config: Config = { run: { ...DEFAULT_RUN, html: false }, targets: {}, reference: { faults: [f.name], ...profile, ...(f.reference ?? {}) }, useReference: true, sources: ['selftest'] };
      servers.push(await startEmbeddedReference(config));
      routes.push({ checks, targets: config.targets });
    }
    const config: Config = {
      run: { ...DEFAULT_RUN, html: false },
      targets: routes[0]!.targets,
      reference: { faults: [], ...profile },
      useReference: true,
      sources: ['selftest'],
      internal: { routes },
    };
    return await runFiles(runner, config, members.flatMap((m) => m.files));
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}

function verdictCounts(checks: CheckResultMeta[]): Record<string, number> {
  const c: Record<string, number> = { pass: 0, fail: 0, error: 0, skipped: 0, unsupported: 0 };
  for (const x of checks) c[x.verdict ?? 'error'] = (c[x.verdict ?? 'error'] ?? 0) + 1;
  return c;
}

function cleanProblems(run: CollectedRun, label: string): string[] {
  const out: string[] = [];
  for (const c of run.checks) {
    if (c.verdict === 'fail') out.push(`${label}: check ${c.id} fails on the clean reference: ${(c.failures ?? []).map((f) => `[${f.requirement}] ${f.message}`).join('; ').slice(0, 500)}`);
    else if (c.verdict === 'error' || c.verdict === undefined) out.push(`${label}: check ${c.id} errors on the clean reference: ${(c.error ?? 'no verdict').slice(0, 500)}`);
  }
  for (const e of run.runErrors) out.push(`${label}: ${e}`);
  return out;
}

/** Loads every planted fault (importing the reference server registers them all). */
export async function plantedFaults(): Promise<FaultDefinition[]> {
  await import('../../reference/index.js');
  const { FAULTS } = await import('../../reference/faults.js');
  return [...FAULTS];
}

export async function runSelfTest(options: SelfTestOptions = {}): Promise<SelfTestResult> {
  const started = performance.now();
  const write = options.write ?? ((s: string) => void process.stdout.write(s));
  const catalogue = loadCatalogue();
  const all = await plantedFaults();
  const problems: string[] = [];

  // the registry itself: requirements exist, names are unique, unknown names are rejected
  const names = new Set<string>();
  for (const f of all) {
    if (names.has(f.name)) problems.push(`fault ${f.name} is registered twice`);
    names.add(f.name);
    if (!/^(ledger|scan|validator|registry)-[a-z0-9]+(-[a-z0-9]+)*$/.test(f.name)) problems.push(`fault ${f.name}: names are kebab-case and start with the api`);
    if (!catalogue.byId.has(f.requirement)) problems.push(`fault ${f.name} declares ${f.requirement}, which is not in the catalogue`);
  }
  const { resolveReferenceOptions } = await import('../../reference/index.js');
  try {
    resolveReferenceOptions({ faults: ['selftest-no-such-fault'] });
    problems.push('the reference server accepts an unknown fault name');
  } catch {
    // rejected, as it must be
  }
  const { gaps, problems: gapProblems } = loadKnownGaps(options.knownGapsFile);
  problems.push(...gapProblems);
  for (const g of gaps) if (!names.has(g.fault)) problems.push(`known-gaps.yaml names ${g.fault}, which is not a planted fault`);
  const gapOf = new Map(gaps.map((g) => [g.fault, g.reason]));

  let selected = all;
  if (options.faults !== undefined && options.faults.length > 0) {
    const unknown = options.faults.filter((n) => !names.has(n));
    if (unknown.length > 0) throw new Error(`unknown fault(s): ${unknown.join(', ')}`);
    selected = all.filter((f) => options.faults!.includes(f.name));
  }

  const runner = await createRunner();
  const clean: CleanScenario[] = [];
  const outcomes: FaultOutcome[] = [];
  try {
    // 1. the clean run: every check of every interface against the default reference
    let t0 = performance.now();
    const allFiles = runner.specs.map((s) => relFile(s.moduleId));
    const cleanRun = await runScenario(runner, { faults: [], profile: {}, requirements: [], files: allFiles });
    const cleanMs = Math.round(performance.now() - t0);
    const cp = cleanProblems(cleanRun, 'clean run');
    const vc = verdictCounts(cleanRun.checks);
    clean.push({ profile: {}, requirements: [], ms: cleanMs, checks: cleanRun.checks.length, verdicts: vc, problems: cp });
    problems.push(...cp);
    write(`clean run: ${cleanRun.checks.length} checks (${vc.pass} pass, ${vc.fail} fail, ${vc.error} error, ${vc.skipped} skipped, ${vc.unsupported} unsupported), ${allFiles.length} files, ${cleanMs} ms\n`);
    for (const p of cp) write(`  PROBLEM ${p}\n`);

    // 1b. the clean suite against reference variants: each makes, from its seed, every choice the specification
    //     leaves open; a check that fails on one depends on such a choice (a false failure waiting for a vendor)
    const { chooseVariant, describeVariant } = await import('../../reference/variant.js');
    for (const seed of options.variants ?? DEFAULT_VARIANT_SEEDS) {
      t0 = performance.now();
      const run = await runScenario(runner, { faults: [], profile: { variant: seed }, requirements: [], files: allFiles });
      const ms = Math.round(performance.now() - t0);
      const choices = describeVariant(chooseVariant(seed));
      const label = `clean run (variant ${seed})`;
      const pr = cleanProblems(run, label);
      const counts = verdictCounts(run.checks);
      clean.push({ profile: { variant: seed }, variant: { seed, choices }, requirements: [], ms, checks: run.checks.length, verdicts: counts, problems: pr });
      problems.push(...pr);
      write(`${label}: ${run.checks.length} checks (${counts.pass} pass, ${counts.fail} fail, ${counts.error} error, ${counts.skipped} skipped, ${counts.unsupported} unsupported), ${ms} ms\n`);
      write(`  variant ${seed} chose: ${Object.entries(choices).map(([k, v]) => `${k} ${v}`).join('; ') || 'the default choices'}\n`);
      for (const p of pr) write(`  PROBLEM ${p}\n`);
    }

    // 1c. the ledger checks against the newest release line, which no longer serves the endpoints FACTS.md says are
    //     gone there (transaction-by-offset, GET /v2/package-vetting): their rules must be skipped, not failed
    const newest = LEDGER_VERSIONS[LEDGER_VERSIONS.length - 1]!;
    if (options.faults === undefined || options.faults.length === 0) {
      t0 = performance.now();
      const files = allFiles.filter((f) => f.includes('suites/ledger/'));
      const run = await runScenario(runner, { faults: [], profile: { ledgerVersion: newest }, requirements: [], files });
      const ms = Math.round(performance.now() - t0);
      const label = `clean run (ledgerVersion ${newest})`;
      const pr = cleanProblems(run, label);
      const counts = verdictCounts(run.checks);
      clean.push({ profile: { ledgerVersion: newest }, requirements: [], ms, checks: run.checks.length, verdicts: counts, problems: pr });
      problems.push(...pr);
      write(`${label}: ${run.checks.length} checks (${counts.pass} pass, ${counts.fail} fail, ${counts.error} error, ${counts.skipped} skipped, ${counts.unsupported} unsupported), ${ms} ms\n`);
      for (const p of pr) write(`  PROBLEM ${p}\n`);
    }

    // which spec files hold checks of which requirement (declared, not only judged by a generic check)
    const filesOf = new Map<string, Set<string>>();
    for (const c of cleanRun.checks) {
      if (c.file === undefined) continue;
      for (const r of c.requirements) {
        let s = filesOf.get(r);
        if (s === undefined) filesOf.set(r, (s = new Set()));
        s.add(c.file);
      }
    }

    // 2. a clean run per other reference profile the faults need, over the requirements run in it
    // the checks that can see a fault: those declaring its requirement; for a requirement only the generic checks judge
    // (documented status, error bodies), a few of the checks that judged it in the clean run
    const fileOfCheck = new Map(cleanRun.checks.map((c) => [c.id, c.file]));
    const checksFor = (requirement: string): string[] => {
      const declared = cleanRun.checks.filter((c) => c.requirements.includes(requirement)).map((c) => c.id);
      if (declared.length > 0) return declared.sort();
      return cleanRun.checks.filter((c) => c.judged?.includes(requirement)).map((c) => c.id).sort().slice(0, JUDGED_CHECKS);
    };
    const plans = selected.map((f) => {
      const r = catalogue.byId.get(f.requirement);
      const profile = r === undefined ? {} : profileFor(r, f.reference ?? {});
      const checks = checksFor(f.requirement);
      const files = [...new Set(checks.map((c) => fileOfCheck.get(c)).filter((x): x is string => x !== undefined))].sort();
      return { fault: f, requirement: r, profile, checks, files };
    });
    const byProfile = new Map<string, { profile: Profile; requirements: Set<string>; files: Set<string> }>();
    for (const p of plans) {
      if (Object.keys(p.profile).length === 0 || p.files.length === 0) continue;
      const k = profileKey(p.profile);
      const e = byProfile.get(k) ?? { profile: p.profile, requirements: new Set(), files: new Set() };
      e.requirements.add(p.fault.requirement);
      for (const f of p.files) e.files.add(f);
      byProfile.set(k, e);
    }
    // each such profile also runs as the first variant: choices that live in older versions (scan 0.6.7's activities)
    // are taken there too
    const firstVariant = (options.variants ?? DEFAULT_VARIANT_SEEDS)[0];
    const profiles = [...byProfile.values()].flatMap((e) => [e, ...(firstVariant !== undefined ? [{ ...e, profile: { ...e.profile, variant: firstVariant } }] : [])]);
    for (const e of profiles) {
      t0 = performance.now();
      const requirements = [...e.requirements].sort();
      const run = await runScenario(runner, { faults: [], profile: e.profile, requirements, files: [...e.files] });
      const ms = Math.round(performance.now() - t0);
      const label = `clean run (${profileText(e.profile)})`;
      const pr = cleanProblems(run, label);
      const counts = verdictCounts(run.checks);
      const variant = e.profile.variant !== undefined ? { variant: { seed: e.profile.variant, choices: describeVariant(chooseVariant(e.profile.variant)) } } : {};
      clean.push({ profile: e.profile, ...variant, requirements, ms, checks: run.checks.length, verdicts: counts, problems: pr });
      problems.push(...pr);
      write(`${label}: ${run.checks.length} checks (${counts.pass} pass, ${counts.fail} fail, ${counts.error} error, ${counts.skipped} skipped), ${ms} ms\n`);
      for (const p of pr) write(`  PROBLEM ${p}\n`);
    }

    /** Judges one fault from the checks that ran against its server (undefined: nothing could run). */
    const judgeFault = (p: (typeof plans)[number], run: { checks: CheckResultMeta[]; runErrors: string[] } | undefined, ms: number): FaultOutcome => {
      const f = p.fault;
      // most faults break their requirement; some switch an optional behaviour off, and the checks say unsupported
      const expected = f.verdict ?? 'fail';
      const base = { name: f.name, requirement: f.requirement, description: f.description, expected, profile: p.profile };
      let verdict = 'untested';
      let reason: string | undefined;
      let alsoFailed: string[] = [];
      if (p.requirement === undefined) reason = `${f.requirement} is not in the catalogue`;
      else if (run === undefined) reason = `no check covers ${f.requirement}`;
      else {
        const agg = aggregate(catalogue, run.checks, [p.requirement.api as Api], [f.requirement], run.runErrors);
        const judged = agg.requirements.find((r) => r.id === f.requirement);
        verdict = judged?.verdict ?? 'untested';
        if (verdict !== expected) {
          const why = judged?.reason ?? run.runErrors[0];
          reason = `${f.requirement} was ${verdict === 'pass' ? 'passed' : verdict}${expected !== 'fail' ? ` (expected ${expected})` : ''}${why !== undefined ? `: ${why}` : ''} (checks: ${(judged?.checks ?? []).map((c) => `${c.id} ${c.verdict}`).join(', ') || 'none ran'})`;
        }
        alsoFailed = [...new Set(run.checks.flatMap((c) => (c.failures ?? []).map((x) => x.requirement)))].filter((r) => r !== f.requirement).sort();
      }
      const detected = verdict === expected;
      const gap = gapOf.get(f.name);
      let status: FaultStatus;
      if (gap !== undefined) {
        status = detected ? 'gap-now-detected' : 'known-gap';
        reason = detected ? 'now detected: remove it from known-gaps.yaml' : `known gap: ${gap}${reason !== undefined ? ` (${reason})` : ''}`;
      } else status = detected ? 'detected' : 'undetected';
      return { ...base, status, verdict, ...(reason !== undefined ? { reason } : {}), alsoFailed, ms };
    };

    // 3. the fault scenarios, batched: each fault gets its own reference server, and one vitest run covers every
    //    fault of a batch by routing the checks that can see each fault to that fault's server. Two faults share a
    //    batch only when they share no check (and never two faults on one requirement).
    const results: FaultOutcome[] = new Array(plans.length);
    const batches: Array<{ profile: Profile; members: number[]; checks: Set<string>; requirements: Set<string> }> = [];
    plans.forEach((p, i) => {
      if (p.requirement === undefined || p.files.length === 0) {
        results[i] = judgeFault(p, undefined, 0);
        return;
      }
      const mine = p.checks;
      const key = profileKey(p.profile);
      let batch = batches.find(
        (b) => profileKey(b.profile) === key && b.members.length < BATCH_SIZE && !b.requirements.has(p.fault.requirement) && !mine.some((c) => b.checks.has(c)),
      );
      if (batch === undefined) batches.push((batch = { profile: p.profile, members: [], checks: new Set(), requirements: new Set() }));
      batch.members.push(i);
      batch.requirements.add(p.fault.requirement);
      for (const c of mine) batch.checks.add(c);
    });
    write(`${plans.length} fault scenarios in ${batches.length} batched runs\n`);
    for (const b of batches) {
      const t1 = performance.now();
      const members = b.members.map((i) => plans[i]!);
      const run = await runBatch(runner, b.profile, members);
      const ms = Math.round((performance.now() - t1) / members.length);
      for (const i of b.members) {
        const p = plans[i]!;
        const own = run.checks.filter((c) => p.checks.includes(c.id));
        results[i] = judgeFault(p, { checks: own, runErrors: run.runErrors }, ms);
        const o = results[i]!;
        const mark = { detected: 'detected  ', undetected: 'UNDETECTED', 'known-gap': 'known gap ', 'gap-now-detected': 'NOW DETECTED' }[o.status];
        write(`  ${mark} ${o.name} -> ${o.requirement}${o.reason !== undefined && o.status !== 'detected' ? `: ${o.reason}` : ''}${o.alsoFailed.length > 0 ? ` [also failed: ${o.alsoFailed.join(', ')}]` : ''}\n`);
      }
    }
    // faults no batch ran (no check covers their requirement) are listed with the score below
    outcomes.push(...results);
  } finally {
    await runner.vitest.close();
  }

  const detected = outcomes.filter((o) => o.status === 'detected' || o.status === 'gap-now-detected').length;
  const planted = outcomes.length;
  const percent = planted === 0 ? 100 : Math.round((detected / planted) * 1000) / 10;
  const failing = outcomes.filter((o) => o.status === 'undetected' || o.status === 'gap-now-detected');
  const ran = outcomes.filter((o) => o.ms > 0);
  const meanFaultMs = ran.length === 0 ? 0 : Math.round(ran.reduce((a, o) => a + o.ms, 0) / ran.length);
  const result: SelfTestResult = {
    ok: problems.length === 0 && failing.length === 0,
    score: { detected, planted, percent },
    clean,
    faults: outcomes,
    problems,
    files: [],
    totalMs: Math.round(performance.now() - started),
    meanFaultMs,
  };

  write(`mutation score: ${detected}/${planted} faults detected (${percent.toFixed(1)}%)\n`);
  for (const o of outcomes.filter((x) => x.status !== 'detected')) write(`  ${o.status}: ${o.name} (${o.requirement}): ${o.reason ?? ''}\n`);
  for (const p of problems) write(`  problem: ${p}\n`);
  write(`self-test ${result.ok ? 'PASSED' : 'FAILED'}: ${planted} fault scenarios, mean ${meanFaultMs} ms each, ${result.totalMs} ms in all\n`);

  if (options.writeFiles !== false) {
    const dir = resolve(options.reportsDir ?? DEFAULT_RUN.reportsDir, 'selftest');
    mkdirSync(dir, { recursive: true });
    const json = join(dir, 'mutation.json');
    const md = join(dir, 'mutation.md');
    writeFileSync(json, `${JSON.stringify({ generatedAt: new Date().toISOString(), ...result, files: undefined }, null, 2)}\n`);
    writeFileSync(md, renderMarkdown(result));
    result.files = [json, md];
  }
  return result;
}

function renderMarkdown(r: SelfTestResult): string {
  const lines: string[] = [];
  lines.push('# Self-test: planted faults', '');
  lines.push(`**${r.ok ? 'PASSED' : 'FAILED'}** - mutation score: ${r.score.detected}/${r.score.planted} faults detected (${r.score.percent.toFixed(1)}%)`, '');
  lines.push(`${r.faults.length} fault scenarios, mean ${r.meanFaultMs} ms each; ${r.totalMs} ms in all.`, '');
  lines.push('## Clean runs', '', '| reference | requirements | checks | pass | fail | error | skipped | ms |', '|---|---|---|---|---|---|---|---|');
  for (const c of r.clean) {
    lines.push(`| ${profileText(c.profile)} | ${c.requirements.length === 0 ? 'all' : c.requirements.join(', ')} | ${c.checks} | ${c.verdicts.pass ?? 0} | ${c.verdicts.fail ?? 0} | ${c.verdicts.error ?? 0} | ${c.verdicts.skipped ?? 0} | ${c.ms} |`);
  }
  const variants = r.clean.filter((c) => c.variant !== undefined && c.requirements.length === 0);
  if (variants.length > 0) {
    lines.push('', '## Reference variants', '', 'Each variant makes, at random from its seed, the choices SPEC.md and FACTS.md leave open; the clean suite must pass on every one. What each chose (beside the default reference\'s choices):', '');
    lines.push('| variant | choices | clean |', '|---|---|---|');
    for (const c of variants) {
      const choices = Object.entries(c.variant!.choices).map(([k, v]) => `${k}: ${v}`).join('<br>') || 'the default choices';
      lines.push(`| ${c.variant!.seed} | ${choices.replace(/\|/g, '\\|')} | ${c.problems.length === 0 ? 'yes' : `NO (${c.problems.length} problem(s))`} |`);
    }
  }
  const missed = r.faults.filter((f) => f.status !== 'detected');
  if (missed.length > 0) {
    lines.push('', '## Not detected, or known gaps to revisit', '', '| fault | requirement | status | reason |', '|---|---|---|---|');
    for (const f of missed) lines.push(`| ${f.name} | ${f.requirement} | ${f.status} | ${(f.reason ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
  }
  if (r.problems.length > 0) {
    lines.push('', '## Problems', '');
    for (const p of r.problems) lines.push(`- ${p.replace(/\n/g, ' ')}`);
  }
  lines.push('', '## Every fault', '', '| fault | requirement | status | reference | also failed | ms |', '|---|---|---|---|---|---|');
  for (const f of r.faults) lines.push(`| ${f.name} | ${f.requirement} | ${f.status} | ${profileText(f.profile)} | ${f.alsoFailed.join(', ')} | ${f.ms} |`);
  return `${lines.join('\n')}\n`;
}
