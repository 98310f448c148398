/**
 * The vitest reporter of a conformance run: it prints a progress line and collects every check's metadata and
 * verdict (from the task meta the conformance() wrapper writes), plus errors that stopped a whole suite file.
 */
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { SerializedError } from '@vitest/utils';
import type { CheckResultMeta } from '../types.js';
import { redactText } from '../transport/redact.js';

export interface CollectedRun {
  checks: CheckResultMeta[];
  /** problems outside any check: a suite file that failed to load, an unhandled error */
  runErrors: string[];
  interrupted: boolean;
  /** the run's shared limit of requests in flight at its end, and how often it came down (harness/transport/in-flight.ts) */
  concurrency?: RunConcurrency;
}

export interface RunConcurrency {
  /** run.concurrency: where the limit started and the most it may grow to */
  max: number;
  /** the limit when the run ended */
  final: number;
  /** how often it came down for refusals (429, 503) and for slow answers */
  lowered: { refused: number; slow: number };
}

export class ConformanceCollector implements Reporter {
  readonly run: CollectedRun = { checks: [], runErrors: [], interrupted: false };
  /** the checks collected so far (every group's), and those with a result */
  private declared = 0;
  private done = 0;
  private readonly counts = { pass: 0, fail: 0, error: 0, skipped: 0, unsupported: 0 };
  private lastPrint = 0;

  constructor(
    private readonly root: string,
    private readonly write: (line: string) => void,
    private readonly interactive: boolean,
  ) {}

  onTestModuleCollected(module: TestModule): void {
    for (const _ of module.children.allTests()) this.declared++;
  }

  onTestCaseResult(testCase: TestCase): void {
    const meta = testCase.meta().conformance;
    if (meta === undefined) {
      // a suite file its group could not load (harness/run-groups.ts)
      const result = testCase.result();
      if (result.state === 'failed') this.run.runErrors.push(`${testCase.name}: ${redactText(result.errors?.[0]?.message ?? 'failed')}`);
      return;
    }
    const result = testCase.result();
    // the wrapper sets a verdict on every path; a test that vitest itself failed (timeout) never reached it
    if (meta.verdict === undefined) {
      meta.verdict = result.state === 'skipped' ? 'skipped' : 'error';
      const firstError = result.state === 'failed' ? result.errors?.[0]?.message : undefined;
      // a check in error always says why: where vitest gave no message, what is known of how it ended
      if (meta.verdict === 'error') meta.error = firstError !== undefined && firstError.trim() !== '' ? redactText(firstError) : `the check ended without a verdict (vitest: ${result.state}${result.state === 'failed' ? ', no error message' : ''})`;
      if (result.state === 'skipped') meta.reason = result.note ?? 'not run: the run was interrupted';
    }
    meta.file ??= testCase.module.moduleId.replace(`${this.root}/`, '');
    this.run.checks.push(meta);
    this.done++;
    this.counts[meta.verdict]++;
    this.progress(false);
  }

  onTestModuleEnd(module: TestModule): void {
    for (const e of module.errors()) {
      this.run.runErrors.push(`${module.moduleId.replace(`${this.root}/`, '')}: ${redactText(e.message)}`);
    }
    this.progress(true);
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>, reason: string): void {
    for (const e of unhandledErrors) this.run.runErrors.push(`unhandled error: ${redactText(e.message ?? String(e))}`);
    if (reason === 'interrupted') this.run.interrupted = true;
    if (this.interactive) this.write('\n');
  }

  private progress(force: boolean): void {
    const now = Date.now();
    if (!force && now - this.lastPrint < (this.interactive ? 100 : 2000)) return;
    this.lastPrint = now;
    const c = this.counts;
    const line = `checks: ${c.pass} pass, ${c.fail} fail, ${c.error} error, ${c.skipped} skipped, ${c.unsupported} unsupported | ${this.done} of ${this.declared} checks done`;
    this.write(this.interactive ? `\r${line}` : `${line}\n`);
  }
}
