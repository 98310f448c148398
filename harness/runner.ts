/**
 * One conformance run: start the embedded reference server when no target is configured, run the suites through
 * vitest with the configuration provided to them, then aggregate verdicts and write every report.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config, TargetConfig } from './config.js';
import { printableConfig } from './config.js';
import { loadCatalogue } from './catalogue.js';
import { PACKAGE_ROOT } from './paths.js';
import type { Api } from './types.js';
import { ConformanceCollector, type CollectedRun } from './reporting/collector.js';
import { aggregate } from './reporting/aggregate.js';
import type { RunReport } from './reporting/model.js';
import { createRunDir, newRunId, renderAllureHtml, writeReports } from './reporting/write.js';
import { applyBaseline, loadBaseline } from './reporting/baseline.js';
import { diffRuns, readEarlierReport } from './reporting/diff.js';
import { createSuiteVitest, loadVitest, suiteGlobs } from './suite-vitest.js';

export interface RunOptions {
  /** where progress lines go (stderr by default) */
  write?: (s: string) => void;
  interactive?: boolean;
  /** aborting it (Ctrl-C) stops the run; the reports of what ran are still written */
  signal?: AbortSignal;
}

export interface RunResult {
  report: RunReport;
  dir: string;
  files: string[];
  /** figures for the benchmark */
  timings: {
    /** from the start of the run (before the reference server and vitest start) to the first request */
    firstRequestMs?: number;
    /** from the first request to the last response of any check */
    requestWindowMs?: number;
    requests: number;
    totalMs: number;
  };
}

const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

interface ReferenceHandle {
  close(): Promise<void>;
  info: NonNullable<RunReport['reference']>;
}

/** The registry target's fixtures for the embedded reference: its seeded ids (reference/data/fixtures.ts). */
async function referenceRegistryFixtures(o: { transferLegs: number; faults: string[]; size: { ansEntries: number; validatorLicenses: number } }): Promise<Record<string, unknown>> {
  const { referenceFixtures } = await import('../reference/data/fixtures.js');
  const { advertisedTransferLegs } = await import('../reference/registry/faults-allocation-factory.js');
  const { REASSIGNMENT_INSTRUMENT_ID } = await import('../reference/registry/state.js');
  const r = referenceFixtures({ size: o.size }).registry;
  type Leg = { sender: string; instrumentId: { admin: string; id: string } };
  const request = r.factoryRequest(1) as { choiceArguments: { allocation: { transferLegs: Record<string, Leg> } } };
  // the same allocation of the second instrument, whose factory no other check's context discloses
  const drill = structuredClone(request.choiceArguments);
  for (const leg of Object.values(drill.allocation.transferLegs)) leg.instrumentId = { ...leg.instrumentId, id: REASSIGNMENT_INSTRUMENT_ID };
  return {
    transferLegs: advertisedTransferLegs(o),
    allocationInstructionIds: r.allocationInstructionIds,
    transferInstructionIds: r.transferInstructionIds,
    allocationFactoryChoiceArguments: request.choiceArguments,
    // the seeded instructions' sender (alice) is a stakeholder, and alice_user can act as her
    reassignmentUser: 'alice_user',
    reassignmentSubmitter: Object.values(request.choiceArguments.allocation.transferLegs)[0]!.sender,
    // the factory's contracts have the registry admin (DSO) as their only stakeholder, and dso_user can act as it
    factoryReassignmentUser: 'dso_user',
    factoryReassignmentSubmitter: r.admin,
    factoryReassignmentChoiceArguments: drill,
  };
}

/** Starts the reference server and points every target at it. */
export async function startEmbeddedReference(config: Config): Promise<ReferenceHandle> {
  const { startReference } = await import('../reference/index.js');
  const r = config.reference;
  const server = await startReference({
    faults: r.faults,
    ...(r.ledgerVersion !== undefined ? { ledgerVersion: r.ledgerVersion } : {}),
    ...(r.scanVersion !== undefined ? { scanVersion: r.scanVersion } : {}),
    ...(r.trafficEnforcement !== undefined ? { trafficEnforcement: r.trafficEnforcement } : {}),
    ...(r.transferLegs !== undefined ? { transferLegs: r.transferLegs } : {}),
    size: { ...(r.ansEntries !== undefined ? { ansEntries: r.ansEntries } : {}), ...(r.validatorLicenses !== undefined ? { validatorLicenses: r.validatorLicenses } : {}) },
  });
  const o = server.options;
  const base = (url: string, version: string): TargetConfig => ({ url, version, auth: { kind: 'none' }, features: {}, fixtures: {}, disabledRequirements: [], headers: {} });
  config.targets = {
    ledger: {
      ...base(server.urls.ledger, o.ledgerVersion),
      auth: { kind: 'hs256', secret: server.auth.hs256Secret, users: { admin: server.auth.adminUser } },
      features: { trafficEnforcement: o.trafficEnforcement },
      fixtures: await referenceLedgerFixtures(),
    },
    scan: base(server.urls.scan, o.scanVersion),
    validator: { ...base(server.urls.validator, o.scanVersion), auth: { kind: 'hs256', secret: server.auth.hs256Secret, users: { user: server.auth.validatorUser } } },
    registry: { ...base(server.urls.registry, '0.6.11'), fixtures: await referenceRegistryFixtures(o) },
  };
  return { close: () => server.close(), info: { faults: o.faults, ledgerVersion: o.ledgerVersion, scanVersion: o.scanVersion } };
}

/** One tiny DAR per process, written once to a temporary file removed at exit (every reference server is fresh). */
type DarFixtures = { darFile: string; darPackageId: string; darFile2: string; darPackageId2: string };
let darFixture: Promise<DarFixtures> | undefined;
function referenceDar(): Promise<DarFixtures> {
  darFixture ??= (async () => {
    const { darArchive } = await import('./fixtures/ledger.js');
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { randomBytes } = await import('node:crypto');
    const darPackageId = randomBytes(32).toString('hex');
    const dir = mkdtempSync(join(tmpdir(), 'cc-dar-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const darFile = join(dir, 'conformance-test.dar');
    writeFileSync(darFile, darArchive('conformance-test', '1.0.0', darPackageId));
    // a second, unrelated DAR: the synchronizer-targeted upload needs a package not vetted yet
    const darPackageId2 = randomBytes(32).toString('hex');
    const darFile2 = join(dir, 'conformance-test-other.dar');
    writeFileSync(darFile2, darArchive('conformance-test-other', '1.0.0', darPackageId2));
    return { darFile, darPackageId, darFile2, darPackageId2 };
  })();
  return darFixture;
}

/** Ledger fixtures of the embedded reference: its Iou template, an interface it implements and a tiny DAR. */
async function referenceLedgerFixtures(): Promise<Record<string, unknown>> {
  return {
    templateId: '#reference-iou:Iou:Iou',
    createArguments: { issuer: '{{party}}', owner: '{{party}}', amount: '1.0000000000', currency: 'USD', observers: [] },
    choice: 'Archive',
    choiceArgument: {},
    interfaceId: '#reference-iou:Iou:Asset',
    syntheticDars: true,
    ...(await referenceDar()),
  };
}

async function runVitest(config: Config, resultsDir: string, options: RunOptions): Promise<CollectedRun> {
  const write = options.write ?? ((s: string) => process.stderr.write(s));
  const collector = new ConformanceCollector(PACKAGE_ROOT, write, options.interactive ?? false);
  // created, not started, so an interrupt cancels the run (and the reports of what ran are still written)
  const vitest = await createSuiteVitest({
    include: config.internal?.include ?? suiteGlobs(config.run.only),
    reporters: [collector, ['allure-vitest/reporter', { resultsDir }]],
    config,
  });
  const cancel = () => void vitest.cancelCurrentRun('keyboard-input');
  options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    if (options.signal?.aborted === true) collector.run.interrupted = true;
    else await vitest.start([]);
  } catch (e) {
    if ((e as Error).name !== 'FilesNotFoundError') collector.run.runErrors.push(`the test runner failed: ${(e as Error).message}`);
  } finally {
    options.signal?.removeEventListener('abort', cancel);
    await vitest.close();
  }
  return collector.run;
}

export async function runConformance(config: Config, options: RunOptions = {}): Promise<RunResult> {
  const started = new Date();
  const catalogue = loadCatalogue(config.internal?.catalogueDir);
  // read before the run: a bad baseline is a configuration error, and reports/latest still names the earlier run
  const expectations = config.run.baseline !== undefined ? loadBaseline(config.run.baseline, catalogue) : [];
  const compareFile = config.run.compare === false ? undefined : config.run.compare === true ? join(config.run.reportsDir, 'latest', 'conformance.json') : config.run.compare;
  const earlier = compareFile !== undefined ? readEarlierReport(compareFile) : undefined;
  const runId = newRunId(started);
  const dir = createRunDir(config.run.reportsDir, runId);
  void loadVitest().catch(() => undefined);
  const reference = config.useReference ? await startEmbeddedReference(config) : undefined;
  let run: CollectedRun;
  try {
    run = await runVitest(config, join(dir, 'allure-results'), options);
  } catch (e) {
    run = { checks: [], runErrors: [`the test runner failed: ${(e as Error).message}`], interrupted: false };
  } finally {
    await reference?.close();
  }
  const finished = new Date();
  const knownIds = new Set(expectations.map((e) => e.requirement));
  const agg = aggregate(catalogue, run.checks, config.run.only, config.run.requirements, run.runErrors, knownIds);
  const baseline = config.run.baseline !== undefined ? { file: config.run.baseline, ...applyBaseline(expectations, new Map(agg.requirements.map((r) => [r.id, r.verdict]))) } : undefined;
  const targets: RunReport['targets'] = {};
  for (const api of config.run.only) {
    const t = config.targets[api];
    if (t !== undefined) targets[api] = { url: t.url, ...(t.version !== undefined ? { version: t.version } : {}), reference: config.useReference };
  }
  const report: RunReport = {
    schemaVersion: 1,
    suite: { name: pkg.name, version: pkg.version },
    runId,
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
    seed: config.run.seed,
    runs: config.run.runs,
    targets,
    config: printableConfig(config),
    ...(reference !== undefined ? { reference: reference.info } : {}),
    selection: { apis: config.run.only, requirements: config.run.requirements },
    outcome: run.interrupted ? `INTERRUPTED: the run was stopped early; among the checks that ran, ${agg.outcome.replace(/^[A-Z]+: /, '')}` : agg.outcome,
    exitCode: run.interrupted && agg.exitCode === 0 ? 3 : agg.exitCode,
    counts: agg.counts,
    checkCounts: agg.checkCounts,
    requirements: agg.requirements,
    checks: run.checks,
    runErrors: run.runErrors,
    ...(baseline !== undefined ? { baseline } : {}),
    ...(earlier !== undefined && compareFile !== undefined ? { diff: diffRuns(earlier, compareFile, agg.requirements) } : {}),
    notes: [],
  };
  let files = writeReports(dir, report);
  if (config.run.html) {
    const note = await renderAllureHtml(dir);
    if (note !== undefined) {
      report.notes.push(note);
      files = writeReports(dir, report);
    } else files.push(join(dir, 'allure-report', 'index.html'));
  }
  const times = (pick: (c: RunReport['checks'][number]) => string | undefined) =>
    run.checks.map(pick).filter((t): t is string => t !== undefined).map((t) => Date.parse(t));
  const firsts = times((c) => c.firstRequestAt);
  const lasts = times((c) => c.lastResponseAt);
  return {
    report,
    dir,
    files,
    timings: {
      ...(firsts.length > 0 ? { firstRequestMs: Math.min(...firsts) - started.getTime() } : {}),
      ...(firsts.length > 0 && lasts.length > 0 ? { requestWindowMs: Math.max(...lasts) - Math.min(...firsts) } : {}),
      requests: run.checks.reduce((a, c) => a + (c.requests ?? 0), 0),
      totalMs: report.durationMs,
    },
  };
}
