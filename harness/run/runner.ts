/**
 * One conformance run: start the embedded reference server when no target is configured, run the suites through
 * vitest with the configuration provided to them, then aggregate verdicts and write every report.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ReferenceOptions } from '../../reference/index.js';
import type { ReferenceThreadReady } from '../../reference/thread.js';
import type { Reporter } from 'vitest/node';
import type { Config } from '../config.js';
import { ConfigError, printableConfig, targetsFromBlock } from '../config.js';
import { loadCatalogue } from '../judging/catalogue.js';
import { narrowed, reportedRequirements, selectionFlags } from './selection.js';
import { checkFiles } from './vendor-checks.js';
import { redactText } from '../transport/redact.js';
import { PACKAGE_ROOT } from '../paths.js';
import type { Api } from '../types.js';
import { ConformanceCollector, type CollectedRun } from '../reporting/collector.js';
import { aggregate, runOutcome, trafficOf } from '../reporting/aggregate.js';
import { checkSums } from '../reporting/check-sums.js';
import type { RunReport } from '../reporting/model.js';
import { allureResultsReporter, checkReportsDir, createRunDir, newRunId, startAllureHtml, writeEveryReport } from '../reporting/write.js';
import { shardNote } from '../reporting/merge.js';
import { applyBaseline, loadBaseline } from '../reporting/baseline.js';
import { diffRuns, readEarlierReport } from '../reporting/diff.js';
import { boundHeapGrowth, createSuiteVitest, loadVitest, suiteGlobs, workersFor } from './suite-vitest.js';
import { FINAL_GRACE_MS, STOP_CLEANUP_MS, announceStop, forgetStop, newStopChannel } from './stop-now.js';
import { shareInFlight } from '../transport/in-flight.js';
import { loadFileWeights, saveFileWeights } from './file-order.js';
import { GROUP_GLOB, groupFile, planGroups } from '../run-groups.js';

export interface RunOptions {
  /** where progress lines go (stderr by default) */
  write?: (s: string) => void;
  interactive?: boolean;
  /**
   * Aborting it (a first Ctrl-C) stops the run: no further check starts, the running ones finish (and clean up), and
   * the reports of what ran are written. Its reason, when a string, names what stopped the run (e.g. SIGINT).
   */
  signal?: AbortSignal;
  /**
   * Aborting it (SIGTERM, a second Ctrl-C) stops the run at once: the running checks are cut off where they stand and
   * clean up (users, rights, moved contracts) within STOP_CLEANUP_MS; what still runs after a short grace beyond it is
   * abandoned, and the reports of what ran are written. Its reason names what stopped the run.
   */
  stopNow?: AbortSignal;
  /**
   * Aborting it (a further SIGTERM or SIGINT after a stop at once) shortens what is left of the wait: what still runs
   * FINAL_GRACE_MS after it is abandoned, and closing the runner and the embedded reference is awaited no longer than
   * FINAL_CLOSE_MS each; the reports of what ran are still written. It implies a stop at once.
   */
  hurry?: AbortSignal;
  /** Called once summary.md, junit.xml and conformance.json are written, before the HTML report is rendered. */
  onReportsWritten?: (written: { report: RunReport; dir: string; files: string[] }) => void;
  /** run --record: every exchange of the run is written to this HAR 1.2 file, redacted (harness/observe/har-record.ts) */
  record?: string;
  /**
   * Called once the targets are known (the embedded reference listening), before the first check starts: the
   * preflight (harness/setup/preflight.ts). What it throws stops the run before any verdict, as a reference that does not
   * start does.
   */
  beforeChecks?: (config: Config) => Promise<void>;
}

/**
 * After a stop at once, how long the running checks, cut off at once, still get for their clean-up (STOP_CLEANUP_MS)
 * and to finish, and how long closing the runner may take.
 */
const STOP_NOW_GRACE_MS = STOP_CLEANUP_MS + 2000;
const CLOSE_GRACE_MS = 2000;
/** FINAL_GRACE_MS in seconds, for the CLI's messages. */
export const FINAL_GRACE_S = FINAL_GRACE_MS / 1000;
/** After a further signal (RunOptions.hurry), the most each closing step (the runner, the reference) is waited for. */
const FINAL_CLOSE_MS = 500;

/**
 * CC_DEBUG=timing: a line on stderr at each step of a run, in milliseconds since the process started (where the time
 * goes between the start and the first request, and between the last response and the exit).
 */
const timing = /(^|,)timing(,|$)/.test(process.env.CC_DEBUG ?? '');
const mark = (label: string) => {
  if (timing) process.stderr.write(`[timing] ${performance.now().toFixed(0).padStart(6)} ms ${label}\n`);
};
/** Marks the first test file queued in a worker and the first collected (its imports done), and the run's end. */
function timingReporter(): Reporter {
  let queued = false;
  let collected = false;
  return {
    onTestModuleQueued: (m) => void (queued ? undefined : ((queued = true), mark(`first test file queued (${m.relativeModuleId})`))),
    onTestModuleCollected: (m) => {
      if (!collected) mark(`first test file collected (${m.relativeModuleId})`);
      collected = true;
      // a group's collection imports its suite files (harness/run-groups.ts) before its first check starts
      mark(`  ${m.relativeModuleId} collected in ${m.diagnostic().collectDuration.toFixed(0)} ms`);
    },
    onTestRunEnd: () => mark('test run ended'),
  };
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** A promise resolved when the signal aborts (at once if it already has); never when there is no signal. */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal === undefined) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Whether the earlier report to compare with can be read without blocking: a FIFO or a device there would hold the
 * main thread in readFileSync (deaf to signals). A missing file is left to readEarlierReport; one that is not a regular
 * file is a configuration error when named (`required`), else no comparison.
 */
function readable(file: string, required: boolean): boolean {
  const st = statSync(file, { throwIfNoEntry: false });
  if (st === undefined || st.isFile()) return true;
  if (required) throw new ConfigError(`--compare / run.compare: ${file} is not a regular file (an earlier conformance.json to diff against)`);
  return false;
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
  /** why the server's thread failed during the run (the requests after it fail as transport errors), if it did */
  failure?: () => string | undefined;
}

/**
 * The entry of the reference server's thread (reference/thread.ts as bin/build.mjs bundles it), when the CLI runs from
 * its bundle: a worker thread needs a module Node loads by itself. Elsewhere (tsx, the project's tests) the reference
 * serves from the calling thread.
 */
function referenceThreadEntry(): string | undefined {
  const f = process.env.CC_REFERENCE_THREAD;
  return f !== undefined && f !== '' && existsSync(f) ? f : undefined;
}

/** How long closing the reference's thread may take before it is terminated. */
const REFERENCE_CLOSE_MS = 3000;

/**
 * The folder of the bundle the suite workers load the suite files from (bin/build.mjs bundles them, with
 * harness/run-groups.ts and the recording setup), when the CLI runs from its bundle and the run's files are the
 * suites (a test's own check files are not in it). Elsewhere the workers load the TypeScript sources through vitest.
 */
function suiteBundle(config: Config): string | undefined {
  const dir = process.env.CC_SUITE_BUNDLE;
  // a checks folder's files are TypeScript outside the bundle: the workers then load every file from the sources, so
  // that the folder's checks and the suites share one copy of the harness
  if (dir === undefined || dir === '' || config.internal?.include !== undefined || config.run.checksDir !== undefined) return undefined;
  return existsSync(join(dir, 'harness', 'run-groups.mjs')) ? dir : undefined;
}

async function startReferenceThread(entry: string, options: ReferenceOptions, config: Config): Promise<ReferenceHandle> {
  // the heap flags of the suite's workers apply to the threads created after they are set: this one too
  boundHeapGrowth();
  const worker = new Worker(entry, { workerData: options });
  // never what keeps the process alive: the run closes it, and a run that fails midway must still end
  worker.unref();
  const ready = await new Promise<ReferenceThreadReady>((resolve, reject) => {
    const onMessage = (m: { ready?: ReferenceThreadReady; error?: string }) => {
      off();
      if (m.ready !== undefined) resolve(m.ready);
      else reject(new Error(m.error ?? 'the reference server did not start'));
    };
    const onError = (e: Error) => {
      off();
      reject(e);
    };
    const onExit = (code: number) => {
      off();
      reject(new Error(`the reference server's thread ended (exit ${code}) before the server started`));
    };
    const off = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  }).catch(async (e: unknown) => {
    await worker.terminate();
    throw e;
  });
  // an error of the server's thread after its start ends it: the requests still to come fail as transport errors, and
  // the run's report says why
  let failure: string | undefined;
  worker.on('error', (e) => void (failure ??= e.message));
  config.targets = targetsFromBlock(ready.targetConfig, 'the embedded reference server');
  return {
    close: async () => {
      const closed = new Promise<void>((resolve) => {
        worker.on('message', (m) => m === 'closed' && resolve());
        worker.once('exit', () => resolve());
        setTimeout(resolve, REFERENCE_CLOSE_MS).unref();
      });
      worker.postMessage('close');
      await closed;
      await worker.terminate();
    },
    info: { faults: ready.options.faults, ledgerVersion: ready.options.ledgerVersion, scanVersion: ready.options.scanVersion, registryVersion: ready.options.registryVersion, ...(ready.variant !== undefined ? { variant: ready.variant } : {}) },
    failure: () => failure,
  };
}

/**
 * Starts the reference server and points every target at it: in a worker thread with `thread` when the CLI runs from
 * its bundle (a conformance run: it starts on the second core while vitest loads), else in this thread.
 */
export async function startEmbeddedReference(config: Config, o: { thread?: boolean } = {}): Promise<ReferenceHandle> {
  const r = config.reference;
  const options: ReferenceOptions = {
    faults: r.faults,
    ...(r.ledgerVersion !== undefined ? { ledgerVersion: r.ledgerVersion } : {}),
    ...(r.scanVersion !== undefined ? { scanVersion: r.scanVersion } : {}),
    ...(r.registryVersion !== undefined ? { registryVersion: r.registryVersion } : {}),
    ...(r.trafficEnforcement !== undefined ? { trafficEnforcement: r.trafficEnforcement } : {}),
    ...(r.transferLegs !== undefined ? { transferLegs: r.transferLegs } : {}),
    size: { ...(r.ansEntries !== undefined ? { ansEntries: r.ansEntries } : {}), ...(r.validatorLicenses !== undefined ? { validatorLicenses: r.validatorLicenses } : {}) },
    ...(r.variant !== undefined ? { variant: r.variant } : {}),
  };
  const entry = o.thread === true ? referenceThreadEntry() : undefined;
  if (entry !== undefined) return startReferenceThread(entry, options, config);
  const { startReference } = await import('../../reference/index.js');
  const server = await startReference(options);
  const so = server.options;
  // the reference reaches the suite as any target does: through a generated `targets` block, read like a config file's
  config.targets = targetsFromBlock(server.targetConfig(), 'the embedded reference server');
  return {
    close: () => server.close(),
    info: { faults: so.faults, ledgerVersion: so.ledgerVersion, scanVersion: so.scanVersion, registryVersion: so.registryVersion, ...(server.variant !== undefined ? { variant: server.variant } : {}) },
  };
}

/** `p`, waited for at most `ms`, and at most FINAL_CLOSE_MS once `hurry` aborts. */
function bounded(p: Promise<unknown>, ms: number | undefined, hurry: AbortSignal | undefined): Promise<unknown> {
  return Promise.race([p, ...(ms !== undefined ? [delay(ms)] : []), aborted(hurry).then(() => delay(FINAL_CLOSE_MS))]);
}

/**
 * `ready`: what must hold before the first check starts (the embedded reference listening); vitest starts beside it.
 * `checksEnded` is called as soon as no check runs any more (every one finished, or the rest abandoned).
 */
async function runVitest(config: Config, resultsDir: string, options: RunOptions, ready: Promise<unknown>, checksEnded?: () => void, recordDir?: string): Promise<CollectedRun> {
  const write = options.write ?? ((s: string) => process.stderr.write(s));
  const collector = new ConformanceCollector(PACKAGE_ROOT, write, options.interactive ?? false);
  const bundle = suiteBundle(config);
  // created, not started, so an interrupt cancels the run (and the reports of what ran are still written)
  const vitest = await createSuiteVitest({
    include: [...(config.internal?.include ?? suiteGlobs(config.run.only)), GROUP_GLOB],
    reporters: [collector, await allureResultsReporter(resultsDir), ...(timing ? [timingReporter()] : [])],
    config,
    ...(recordDir !== undefined ? { recordDir } : {}),
    ...(bundle !== undefined ? { bundle } : {}),
  });
  mark('vitest created');
  try {
    await ready;
  } catch (e) {
    await vitest.close().catch(() => undefined);
    throw e;
  }
  // the targets are known now (the embedded reference fills them in)
  const stopChannel = newStopChannel();
  vitest.provide('conformanceConfig', config);
  vitest.provide('conformanceStopChannel', stopChannel);
  // run.concurrency over all the workers together (harness/transport/in-flight.ts)
  const inFlight = shareInFlight(`${stopChannel}-in-flight`, config.run.concurrency, { ignoreMachineLoad: config.internal?.latencyIgnoresMachineLoad === true });
  vitest.provide('conformanceInFlight', `${stopChannel}-in-flight`);
  // not vitest's cancelCurrentRun, which drops the running checks unfinished (harness/run/stop-now.ts): the checks that have
  // not started skip, the running ones finish (a stop at once cuts them off), and all of them clean up
  const cancel = () => {
    collector.run.interrupted = true;
    announceStop(stopChannel, 'stop');
  };
  const cut = () => {
    collector.run.interrupted = true;
    announceStop(stopChannel, 'stop-now');
  };
  options.signal?.addEventListener('abort', cancel, { once: true });
  options.stopNow?.addEventListener('abort', cut, { once: true });
  options.hurry?.addEventListener('abort', cut, { once: true });
  let abandoned = false;
  try {
    if (options.signal?.aborted === true || options.stopNow?.aborted === true || options.hurry?.aborted === true) collector.run.interrupted = true;
    else {
      // the suite files run in groups, one per worker (harness/run-groups.ts)
      const files = (await vitest.globTestSpecifications()).map((f) => relative(PACKAGE_ROOT, f.moduleId).split('\\').join('/')).filter((f) => !f.startsWith('harness/groups/'));
      // the checks folder's files (run.checksDir), wherever it is, load in the groups like the suite files
      if (config.run.checksDir !== undefined) files.push(...checkFiles(config.run.checksDir).map((f) => relative(PACKAGE_ROOT, f).split('\\').join('/')));
      const groups = planGroups(files, workersFor(config), loadFileWeights(config));
      vitest.provide('conformanceGroups', groups);
      mark('vitest.start');
      const started = files.length === 0 ? vitest.start([]) : vitest.start(groups.map((_, i) => groupFile(i)));
      started.catch(() => undefined);
      // a stop at once does not wait for the running checks beyond a short grace, a further signal not beyond a
      // shorter one (from that signal, if that ends sooner): what finished is reported
      const stop = Promise.race([
        aborted(options.stopNow).then(() => delay(STOP_NOW_GRACE_MS)),
        aborted(options.hurry).then(() => delay(FINAL_GRACE_MS)),
      ]).then(() => 'stopped' as const);
      if ((await Promise.race([started.then(() => 'done' as const), stop])) === 'stopped') {
        abandoned = true;
        collector.run.interrupted = true;
      }
    }
  } catch (e) {
    if ((e as Error).name !== 'FilesNotFoundError') collector.run.runErrors.push(`the test runner failed: ${(e as Error).message}`);
  } finally {
    // no check runs any more: from here on a stop (run.maxRunMs among them) has nothing left to stop
    checksEnded?.();
    options.signal?.removeEventListener('abort', cancel);
    options.stopNow?.removeEventListener('abort', cut);
    options.hurry?.removeEventListener('abort', cut);
    // closing waits for the running checks; after a stop at once it is not awaited beyond the grace, after a further
    // signal not beyond FINAL_CLOSE_MS
    const closed = vitest.close().catch(() => undefined);
    mark('vitest done, closing');
    await bounded(closed, abandoned ? CLOSE_GRACE_MS : undefined, options.hurry);
    mark('vitest closed');
    forgetStop(stopChannel);
    collector.run.concurrency = { max: config.run.concurrency, final: inFlight.gate.limit, lowered: inFlight.gate.lowered };
    inFlight.close();
  }
  if (abandoned) collector.run.runErrors.push('checks still running when the run was stopped at once were abandoned: their results are missing and their clean-up may not have run');
  return collector.run;
}

export async function runConformance(config: Config, options: RunOptions = {}): Promise<RunResult> {
  const started = new Date();
  mark('run started');
  const catalogue = loadCatalogue(config.internal?.catalogueDir, config.run.checksDir);
  // read before the run: a bad baseline is a configuration error, and reports/latest still names the earlier run
  const expectations = config.run.baseline !== undefined ? loadBaseline(config.run.baseline, catalogue) : [];
  // a shard's partial verdicts are not diffed against an earlier run by default: the merged report is
  const compareFile = config.run.compare === false ? undefined : config.run.compare === true ? (config.run.shard === undefined ? join(config.run.reportsDir, 'latest', 'conformance.json') : undefined) : config.run.compare;
  const earlier = compareFile !== undefined && readable(compareFile, typeof config.run.compare === 'string') ? readEarlierReport(compareFile, typeof config.run.compare === 'string') : undefined;
  // run --also-validate-against: the target's own documents, read before anything runs (a bad one is exit 2)
  const own = config.run.alsoValidateAgainst !== undefined ? await import('../spec-diff/validate.js') : undefined;
  const ownDocs = own !== undefined ? await own.loadOwnDescriptions(config, 'files') : undefined;
  // a reports directory that cannot take the reports is a configuration error (exit 2) now, not after the run (the CLI
  // checks it before it takes the signals; this is for callers of the runner alone), and after the files above, whose
  // refusal leaves no directory behind
  checkReportsDir(config.run.reportsDir);
  const runId = newRunId(started);
  const dir = createRunDir(config.run.reportsDir, runId);
  // the HTML renderer loads its library while the checks run (at the lowest priority), and renders after them
  const html = config.run.html ? startAllureHtml(dir) : false;
  void loadVitest().then(() => mark('vitest imported')).catch(() => undefined);
  mark('run set up (catalogue, run folder); reference and vitest starting');
  // run.maxRunMs: at the limit no further check starts (as on a first Ctrl-C); the running ones finish, each within
  // run.checkTimeoutMs, and the report of what ran says the run was cut at the limit (exit 3)
  const deadline = new AbortController();
  // the soft stop runVitest sees: the caller's (a first Ctrl-C) or the deadline, whichever comes first
  const soft = new AbortController();
  const forward = () => soft.abort(options.signal?.reason);
  if (options.signal?.aborted === true) forward();
  else options.signal?.addEventListener('abort', forward, { once: true });
  deadline.signal.addEventListener('abort', () => soft.abort(deadline.signal.reason), { once: true });
  const limitMs = config.run.maxRunMs;
  // the limit and the end of the checks decide once, on the main thread: a limit that fires once no check runs any more
  // is not reached (nothing says it was); one that fired before makes the run interrupted by it (whatever still ran)
  let checksEnded = false;
  const timer = limitMs !== undefined ? setTimeout(() => {
    if (checksEnded) return;
    (options.write ?? ((t: string) => process.stderr.write(t)))(`\nrun.maxRunMs (${limitMs} ms) reached: no further check starts; the running ones finish, then the reports of what ran are written\n`);
    deadline.abort(`run.maxRunMs limit of ${limitMs} ms`);
  }, Math.max(0, limitMs - (Date.now() - started.getTime()))) : undefined;
  timer?.unref();
  // the reference server starts while vitest loads and creates its workers (most of the time before the first request);
  // run --also-validate-against reads the documents a target serves once its URL is known
  const starting = config.useReference ? startEmbeddedReference(config, { thread: true }) : Promise.resolve(undefined);
  let reference: ReferenceHandle | undefined;
  let startFailed = false;
  const ready = starting
    .then(async (r) => {
      mark('reference started');
      reference = r;
      if (options.beforeChecks !== undefined) {
        await options.beforeChecks(config);
        mark('preflight done');
      }
      if (own !== undefined) config.alsoValidate = own.writeOwnDescriptions(dir, await own.loadOwnDescriptions(config, 'served', ownDocs));
      return r;
    })
    .catch((e: unknown) => {
      startFailed = true;
      throw e;
    });
  ready.catch(() => undefined);
  const recording = options.record !== undefined ? (await import('../observe/har-record.js')).startRecording(options.record, config.run.maxResponseBytes) : undefined;
  let run: CollectedRun;
  try {
    run = await runVitest(config, join(dir, 'allure-results'), limitMs !== undefined ? { ...options, signal: soft.signal } : options, ready, () => {
      checksEnded = true;
      clearTimeout(timer);
    }, recording?.dir);
  } catch (e) {
    // a reference server that does not start fails the run as before, not as a runner error
    if (startFailed) {
      recording?.discard();
      if (html !== false) html.cancel();
      throw e;
    }
    run = { checks: [], runErrors: [`the test runner failed: ${(e as Error).message}`], interrupted: false };
  } finally {
    checksEnded = true;
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', forward);
    // after a further signal, closing the reference is not waited for beyond FINAL_CLOSE_MS (its thread is unref'd)
    await bounded((async () => (await starting.catch(() => undefined))?.close())().catch(() => undefined), undefined, options.hurry);
  }
  // the console said the limit was reached: the report says the run was cut by it, even where every check had started
  if (deadline.signal.aborted) run.interrupted = true;
  // a selection that declared no check tested nothing: no report (it would read as a verdict), exit 2 naming it
  if (run.checks.length === 0 && !run.interrupted && run.runErrors.length === 0 && config.run.shard === undefined && config.internal?.routes === undefined) {
    recording?.discard();
    if (html !== false) html.cancel();
    rmSync(dir, { recursive: true, force: true });
    const filters = selectionFlags(config.run);
    const named = filters !== '' ? `${filters} with ` : '';
    throw new ConfigError(`the selection runs no check: ${named}--only ${config.run.only.join(',')} declares none${filters !== '' ? ' (a requirement no check covers, filters no check passes together, or one of an interface left out; "canton-conformance list" shows the checks of each)' : ''}; nothing would be tested`);
  }
  // run --record: the workers' parts, merged into the HAR once no check runs any more
  const recorded = recording !== undefined ? await recording.finish(pkg.version).then((n) => `every exchange of the run (${n}) recorded in ${options.record} (HAR 1.2, redacted)`, (e: unknown) => `the exchanges could not be recorded in ${options.record}: ${(e as Error).message}`) : undefined;
  const finished = new Date();
  const referenceFailure = reference?.failure?.();
  if (referenceFailure !== undefined) run.runErrors.push(`the embedded reference server's thread failed during the run: ${redactText(referenceFailure)}`);
  const reasonOf = (sig: AbortSignal | undefined) => (sig?.aborted === true && typeof sig.reason === 'string' ? sig.reason : undefined);
  const stoppedBy = reasonOf(options.stopNow) ?? reasonOf(options.hurry) ?? reasonOf(options.signal) ?? reasonOf(deadline.signal);
  if (deadline.signal.aborted && run.interrupted && stoppedBy === reasonOf(deadline.signal)) {
    run.runErrors.push(`the run was cut at the run.maxRunMs limit of ${limitMs} ms: no further check started after it; the checks that had not started are missing from this report`);
  }
  const knownIds = new Set(expectations.map((e) => e.requirement));
  // nothing tested is never a pass: judged over the interfaces with a target, and for a shard once merged
  const whole = config.run.shard === undefined && config.internal?.routes === undefined;
  const gates = { failOn: config.run.failOn ?? 'must', ...(config.run.minDecided !== undefined ? { minDecided: config.run.minDecided } : {}), decidedOver: whole ? config.run.only.filter((a) => config.targets[a] !== undefined) : [] };
  // the requirements the reports cover: those selected, or with --check, --operation or --exclude-requirement, those
  // of the checks that ran (harness/run/selection.ts)
  const reported = reportedRequirements(config.run, catalogue, config.run.only, run.checks);
  const agg = aggregate(catalogue, run.checks, config.run.only, reported, run.runErrors, knownIds, gates);
  const baseline = config.run.baseline !== undefined ? { file: config.run.baseline, ...applyBaseline(expectations, new Map(agg.requirements.map((r) => [r.id, r.verdict]))) } : undefined;
  const targets: RunReport['targets'] = {};
  for (const api of config.run.only) {
    const t = config.targets[api];
    if (t !== undefined) targets[api] = { url: redactText(t.url), ...(t.version !== undefined ? { version: t.version } : {}), reference: config.useReference };
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
    selection: { apis: config.run.only, requirements: reported, ...(narrowed(config.run) ? { filters: selectionFlags(config.run) } : {}) },
    ...(config.run.shard !== undefined ? { shard: config.run.shard } : {}),
    ...runOutcome(agg, run.interrupted ? { ...(stoppedBy !== undefined ? { by: stoppedBy } : {}), atOnce: options.stopNow?.aborted === true || options.hurry?.aborted === true } : undefined),
    traffic: trafficOf(run.checks),
    ...(run.concurrency !== undefined ? { concurrency: run.concurrency } : {}),
    ...checkSums(run.checks, config.run.readOnly, own !== undefined ? config.alsoValidate : undefined),
    counts: agg.counts,
    checkCounts: agg.checkCounts,
    requirements: agg.requirements,
    checks: run.checks,
    runErrors: run.runErrors,
    ...(baseline !== undefined ? { baseline } : {}),
    ...(earlier !== undefined && compareFile !== undefined ? { diff: diffRuns(earlier, compareFile, agg.requirements) } : {}),
    notes: [...(config.run.shard !== undefined ? [shardNote(config.run.shard)] : []), ...(recorded !== undefined ? [recorded] : [])],
  };
  mark('verdicts aggregated');
  // after a further signal nothing is waited for beyond the reports themselves: the HTML report is not rendered
  if (options.hurry?.aborted === true && html !== false) {
    html.cancel();
    report.notes.push('the HTML report was not rendered: the run was stopped by a further signal');
  }
  const files = await writeEveryReport(dir, report, options.hurry?.aborted === true ? false : html, () =>
    options.onReportsWritten?.({ report, dir, files: ['conformance.json', 'junit.xml', 'summary.md'].map((f) => join(dir, f)) }));
  mark('reports written');
  // the next run of this kind starts its longest files first (harness/run/file-order.ts)
  if (report.interrupted === undefined) saveFileWeights(config, report.checks);
  const times = (pick: (c: RunReport['checks'][number]) => string | undefined) =>
    run.checks.map(pick).filter((t): t is string => t !== undefined).map((t) => Date.parse(t));
  const firsts = times((c) => c.firstRequestAt);
  const lasts = times((c) => c.lastResponseAt);
  if (timing && firsts.length > 0) {
    mark(`(first request at ${(Math.min(...firsts) - performance.timeOrigin).toFixed(0)} ms, last response at ${(Math.max(...lasts) - performance.timeOrigin).toFixed(0)} ms)`);
  }
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
