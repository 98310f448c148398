/**
 * The one vitest set-up every suite run uses (a conformance run, the self-test, the check listing): the suites as
 * test files, no config file, worker threads that keep modules between files, the configuration provided to them.
 */
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Reporter, Vitest } from 'vitest/node';
import type { Config } from '../config.js';
import { PACKAGE_ROOT } from '../paths.js';
import { RECORD_SETUP_FILE } from '../observe/har-record.js';
import { schemaRegistry } from '../judging/schemas.js';
import { clearLocks } from './shared-state.js';
import { loadFileWeights, orderFiles } from './file-order.js';
import type { Api } from '../types.js';

/** vitest's node API takes most of a second to import: callers may start loading it early */
let vitestNode: Promise<typeof import('vitest/node')> | undefined;
export const loadVitest = () => (vitestNode ??= import('vitest/node'));

export const suiteGlobs = (apis: readonly Api[]) => apis.map((api) => `suites/${api}/**/*.test.ts`);

/**
 * The suites' worker threads by default: one per core, at least two and at most four, against the embedded reference and
 * a configured target alike. A worker runs all its checks side by side (its group of files, harness/run-groups.ts), so
 * a slow target's waits need no more threads: each thread costs its start (vitest and the harness loaded) and 30 to
 * 45 MB, and parses, validates and records its checks' answers on a core. On two cores two
 * workers beat four everywhere: through the benchmark's latency profile wall / critical path 1.23 and 1.23 against 1.26
 * and 1.29 (three runs each, the first request 1.2-1.6 s after the spawn against 1.6-2.1 s), through the 20 ms delay
 * 6.9 s against 8.1 s (1.29 against 1.33 of the undelayed run), nightly depth 92 s and 251 MiB against 94 s and
 * 312 MiB with no property cut. run.workers sets another number (a run has at most 8 groups of files); never more
 * than run.concurrency.
 */
export const defaultWorkers = (cores = availableParallelism()) => Math.min(4, Math.max(2, cores));
export const workersFor = (config: Pick<Config, 'run'>) => Math.max(1, Math.min(config.run.workers ?? defaultWorkers(), config.run.concurrency));
/**
 * A worker's share of run.concurrency: the checks it runs at once, and its requests in flight at once where the run
 * shares no limit over its workers (a conformance run does: harness/transport/in-flight.ts).
 */
export const perWorker = (config: Pick<Config, 'run'>) => Math.max(1, Math.floor(config.run.concurrency / workersFor(config)));

/** vitest's own limit of tests at once per worker: never reached (a worker's checks wait for its CheckSlots). */
const MAX_TESTS_AT_ONCE = 100_000;

type ReporterEntry = Reporter | [string, Record<string, unknown>];

/**
 * Memory: V8 lets a heap grow far past what it keeps alive (a snapshot of a suite worker finds 25-35 MiB live
 * under a 70-200 MiB heap: parsed response bodies not collected yet). Smaller young generations for the worker threads
 * created from here on, and heaps (this thread's too) that grow 35% past their live size per full collection, keep
 * them near their live size at the same CPU time (paired runs: peak RSS of the default run 527 -> 371 MiB).
 */
export function boundHeapGrowth(): void {
  setFlagsFromString('--max-semi-space-size=4');
  setFlagsFromString('--heap-growing-percent=35');
}

const STOP_SIGNALS: ReadonlySet<string | symbol> = new Set(['SIGINT', 'SIGTERM']);

/**
 * Runs `create` with SIGINT and SIGTERM handlers refused: vitest's logger registers, while vitest is being created, a
 * handler that exits the process 1 ms after the signal (exit 130), and one registered there was removed only once the
 * creation returned: a Ctrl-C in between (about 0.1 s) ended the run without its reports. Nothing else registers such
 * handlers in that window (the CLI's own are in place before the run starts).
 */
async function withoutSignalHandlers<T>(create: () => Promise<T>): Promise<T> {
  const methods = ['on', 'once', 'addListener', 'prependListener', 'prependOnceListener'] as const;
  type Register = (this: NodeJS.Process, event: string | symbol, listener: (...args: unknown[]) => void) => NodeJS.Process;
  const target = process as unknown as Record<(typeof methods)[number], Register>;
  const originals = methods.map((m) => target[m]);
  for (const [i, m] of methods.entries()) {
    const original = originals[i]!;
    target[m] = function (this: NodeJS.Process, event, listener) {
      return STOP_SIGNALS.has(event) ? this : original.call(this, event, listener);
    };
  }
  try {
    return await create();
  } finally {
    for (const [i, m] of methods.entries()) target[m] = originals[i]!;
  }
}

/**
 * Creates (does not start) a vitest instance over the suite files. vitest's own SIGINT/SIGTERM handlers, which would
 * exit the process at once, are removed: callers stop a run through the run's stop channel (harness/run/stop-now.ts).
 */
export async function createSuiteVitest(o: { include: string[]; reporters: ReporterEntry[]; config: Config; allure?: boolean; recordDir?: string; bundle?: string }): Promise<Vitest> {
  const { createVitest, BaseSequencer } = await loadVitest();
  // the files start longest first, by their own times in the last complete run of the same kind (harness/run/file-order.ts)
  const weights = loadFileWeights(o.config);
  class LongestFirst extends BaseSequencer {
    override async sort(files: Parameters<InstanceType<typeof BaseSequencer>['sort']>[0]) {
      const sorted = await super.sort(files);
      return weights === undefined ? sorted : orderFiles(sorted, (f) => relative(PACKAGE_ROOT, f.moduleId).split('\\').join('/'), weights, workersFor(o.config));
    }
  }
  boundHeapGrowth();
  // the workers load the response validators compiled here once instead of compiling them each (0.3-0.6 s of CPU a
  // worker); written on the first run after a document changed
  schemaRegistry().precompileResponses();
  // the locks of shared target state live in a folder of this process, removed when it exits
  if (!process.listeners('exit').includes(clearLocks)) process.once('exit', clearLocks);
  const before = { SIGINT: new Set(process.listeners('SIGINT')), SIGTERM: new Set(process.listeners('SIGTERM')) };
  const vitest = await withoutSignalHandlers(() => createVitest(
    'test',
    {
      root: PACKAGE_ROOT,
      config: false,
      watch: false,
      include: o.include,
      reporters: o.reporters,
      // run --record: each worker appends its exchanges to a part file of its own (harness/observe/har-record.ts)
      // (from the suites' bundle when the workers load the suites from it: one copy of the harness in a worker)
      setupFiles: [...(o.allure === false ? [] : ['allure-vitest/setup']), ...(o.recordDir !== undefined ? [o.bundle !== undefined ? join(o.bundle, 'harness', 'observe', 'har-setup.mjs') : RECORD_SETUP_FILE] : [])],
      passWithNoTests: true,
      // the wrapper's import path for checks written outside the package (run.checksDir: harness/run/vendor-checks.ts)
      alias: { 'canton-conformance': join(PACKAGE_ROOT, 'harness', 'conformance.ts') },
      // the transformed suites and harness are kept on disk between runs (node_modules/.experimental-vitest-cache)
      experimental: { fsModuleCache: true },
      pool: 'threads',
      isolate: false,
      // Concurrency: every check of a file is a concurrent vitest test (sequence.concurrent), describe blocks
      // included; a check that declares shared state (`shares`) is a sequential test and takes a lock on its resources
      // (conformance.ts). vitest's own scheduler is used rather than one of ours: it keeps the files, hooks, reporters
      // and cancellation as they are, and verdicts do not depend on the order (each check's seed comes from the run seed
      // and its id, its names from its id). A conformance run loads its files in one group per worker
      // (harness/run-groups.ts), so a worker's checks come from many files at once. vitest starts them all: a check
      // takes one of its worker's slots (its share of run.concurrency) before it starts, and none while requests wait
      // for the run's limit, except one that holds shared state, which waits for its lock instead (conformance.ts,
      // CheckSlots).
      maxWorkers: workersFor(o.config),
      maxConcurrency: MAX_TESTS_AT_ONCE,
      sequence: { concurrent: o.config.run.concurrency > 1, sequencer: LongestFirst },
      provide: { conformanceConfig: o.config, ...(o.recordDir !== undefined ? { conformanceRecordDir: o.recordDir } : {}), ...(o.bundle !== undefined ? { conformanceBundle: o.bundle } : {}) },
      testTimeout: o.config.run.checkTimeoutMs + 10_000,
    } as Parameters<typeof createVitest>[1],
    { logLevel: 'silent', server: { watch: null } },
  ));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const l of process.listeners(signal)) if (!before[signal].has(l)) process.off(signal, l);
  }
  return vitest;
}
