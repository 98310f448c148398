import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * vitest's own order (files of unknown duration first, then the larger ones), with the self-test first: it is the
 * longest file by far (about 3.5 minutes), and started late on a fresh clone, with no durations cached, it made the
 * whole run last its start plus its length.
 */
class SelfTestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = (s: TestSpecification) => s.moduleId.replace(/\\/g, '/').endsWith('/test/selftest.test.ts');
    return [...sorted.filter(first), ...sorted.filter((s) => !first(s))];
  }
}

// The project's own tests (npm test). The conformance suites under suites/ run through the CLI, which builds its
// own vitest configuration (harness/run/runner.ts).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // three test files at a time on the 2-core machine (vitest's default is one fewer than the cores): most files wait on
    // child processes, loopback servers and timers rather than compute, and the self-test holds one worker for about
    // half the run. On 27 November: 224 s with three, 223 s with four, 291 s with two (whole \`npm test\`, one run each)
    maxWorkers: 3,
    sequence: { sequencer: SelfTestFirst },
    reporters: ['default', './test/closing-line-reporter.ts'],
  },
});
