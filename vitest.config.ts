import { defineConfig } from 'vitest/config';

// The project's own tests (npm test). The conformance suites under suites/ run through the CLI, which builds its
// own vitest configuration (harness/runner.ts).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // two test files at a time on the 2-core machine (vitest's default is one fewer than the cores): most files wait on
    // child processes, loopback servers and timers rather than compute
    maxWorkers: 2,
    reporters: ['default', './test/closing-line-reporter.ts'],
  },
});
