/**
 * The one vitest set-up every suite run uses (a conformance run, the self-test, the check listing): the suites as
 * test files, no config file, worker threads that keep modules between files, the configuration provided to them.
 */
import type { Reporter, Vitest } from 'vitest/node';
import type { Config } from './config.js';
import { PACKAGE_ROOT } from './paths.js';
import type { Api } from './types.js';

/** vitest's node API takes most of a second to import: callers may start loading it early */
let vitestNode: Promise<typeof import('vitest/node')> | undefined;
export const loadVitest = () => (vitestNode ??= import('vitest/node'));

export const suiteGlobs = (apis: readonly Api[]) => apis.map((api) => `suites/${api}/**/*.test.ts`);

/** The worker threads a run's checks share (run.maxRequestsPerSecond divides its slots between them). */
export const SUITE_WORKERS = 2;

type ReporterEntry = Reporter | [string, Record<string, unknown>];

/**
 * Creates (does not start) a vitest instance over the suite files. vitest's own SIGINT/SIGTERM handlers, which would
 * exit the process at once, are removed: callers stop a run through `cancelCurrentRun`.
 */
export async function createSuiteVitest(o: { include: string[]; reporters: ReporterEntry[]; config: Config; allure?: boolean }): Promise<Vitest> {
  const { createVitest } = await loadVitest();
  const before = { SIGINT: new Set(process.listeners('SIGINT')), SIGTERM: new Set(process.listeners('SIGTERM')) };
  const vitest = await createVitest(
    'test',
    {
      root: PACKAGE_ROOT,
      config: false,
      watch: false,
      include: o.include,
      reporters: o.reporters,
      ...(o.allure === false ? {} : { setupFiles: ['allure-vitest/setup'] }),
      passWithNoTests: true,
      pool: 'threads',
      isolate: false,
      maxWorkers: SUITE_WORKERS,
      provide: { conformanceConfig: o.config },
      testTimeout: o.config.run.checkTimeoutMs + 10_000,
    } as Parameters<typeof createVitest>[1],
    { logLevel: 'silent', server: { watch: null } },
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const l of process.listeners(signal)) if (!before[signal].has(l)) process.off(signal, l);
  }
  return vitest;
}
