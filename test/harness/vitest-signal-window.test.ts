/**
 * A Ctrl-C while the suite's vitest is being created must reach the CLI's own handler only (reports are
 * written however a run ends). vitest's logger registers, during creation, a handler that exits the process with 130 a millisecond later;
 * createSuiteVitest refuses it for the whole creation, so at no moment of it does a SIGINT or SIGTERM listener exist
 * besides the ones present before (a CLI run failed on this: exit 130, no report, after a Ctrl-C 0.3 s into the run).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN, type Config } from '../../harness/config.js';
import { createSuiteVitest } from '../../harness/run/suite-vitest.js';

describe('creating the suite vitest', () => {
  it('never has a SIGINT or SIGTERM listener of its own, during creation or after', { timeout: 60_000 }, async () => {
    const before = { SIGINT: new Set(process.listeners('SIGINT')), SIGTERM: new Set(process.listeners('SIGTERM')) };
    const added = new Set<string>();
    let polls = 0;
    let creating = true;
    const poll = () => {
      polls++;
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        for (const l of process.listeners(signal)) if (!before[signal].has(l)) added.add(`${signal}: ${String(l).slice(0, 120)}`);
      }
      if (creating) setImmediate(poll);
    };
    setImmediate(poll);
    const config: Config = { run: { ...DEFAULT_RUN, html: false }, targets: {}, reference: { faults: [] }, useReference: true, sources: ['test'] };
    const vitest = await createSuiteVitest({ include: ['suites/validator/**/*.test.ts'], reporters: [], config, allure: false });
    creating = false;
    poll();
    await vitest.close();
    // the poll ran throughout the creation (it yields to the event loop between its steps)
    expect(polls).toBeGreaterThan(3);
    expect([...added]).toEqual([]);
  });
});
