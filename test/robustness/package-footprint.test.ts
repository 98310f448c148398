/**
 * Packages uploaded once: the checks of the package and vetting area build the same archives in
 * every run, so a second run against the same participant uploads only packages it holds already and adds none (the
 * footprint says so, from the archives reports/state marks as accepted). The verdicts do not depend on the run, but
 * for the two rules that need a vetting change, which only the first run against a participant can make with the same
 * packages: their checks say why they judged nothing the second time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, targetsFromBlock, type Config } from '../../harness/config.js';
import type { RunResult } from '../../harness/run/runner.js';
import { cleanup, reference, runQuietly, tempDir } from './harness.js';

const tmp = tempDir('package-footprint');
afterAll(cleanup);

/** the rules only a vetting change shows, and the check that only judges one */
const NEED_A_CHANGE = ['ledger.get-package-vetting.topology-serial-advances', 'ledger.get-package-vetting.page-token-after-change'];
const CHANGE_CHECK = 'ledger.get-package-vetting.page-token-after-change';

describe('the packages of two runs against one participant', () => {
  const runs: RunResult[] = [];

  beforeAll(async () => {
    const ref = await reference();
    const targets = targetsFromBlock(ref.targetConfig(), 'the reference server');
    for (const name of ['first', 'second']) {
      const config: Config = {
        run: { ...DEFAULT_RUN, only: ['ledger'], reportsDir: join(tmp, 'reports'), html: false, compare: false, runs: 3 },
        targets: structuredClone(targets),
        reference: { faults: [] },
        useReference: false,
        sources: ['test', name],
        // every check that uploads a package: the package and vetting area, the participant admin's upload, a
        // deactivated user's refused upload
        internal: { include: ['suites/ledger/packages/*.test.ts', 'suites/ledger/package-vetting/*.test.ts', 'suites/ledger/rights/grant-user-rights.test.ts', 'suites/ledger/auth/deactivation.test.ts'] },
      };
      runs.push(await runQuietly(config));
    }
  }, 240_000);

  it('the second run adds no package, the first a few', () => {
    const [first, second] = runs as [RunResult, RunResult];
    expect(first.report.footprint?.packagesAdded).toBeGreaterThan(0);
    expect(first.report.footprint?.packagesAdded).toBeLessThanOrEqual(10);
    // uploads still happen (the same archives), and add nothing
    expect(second.report.footprint?.packageUploads).toBeGreaterThan(0);
    expect(second.report.footprint?.packagesAdded).toBe(0);
    expect(readFileSync(join(second.dir, 'summary.md'), 'utf8')).toContain('- packages added: 0 (');
  });

  it('gives the same verdicts in both runs, but for the rules that need a vetting change', () => {
    const [first, second] = runs as [RunResult, RunResult];
    for (const r of runs) expect(r.report.checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error').map((c) => `${c.id}: ${c.reason ?? c.error ?? ''}`)).toEqual([]);
    const checks = (r: RunResult) => Object.fromEntries(r.report.checks.filter((c) => c.id !== CHANGE_CHECK).map((c) => [c.id, c.verdict]));
    expect(checks(second)).toEqual(checks(first));
    // the rights checks reuse the parties of the first run (found, not allocated): the allocation's response schema is
    // judged on the first run's allocations only (parties, not packages: outside this test)
    const reqs = (r: RunResult) => Object.fromEntries(r.report.requirements.filter((q) => !NEED_A_CHANGE.includes(q.id) && q.id !== 'ledger.allocate-party.response-schema').map((q) => [q.id, q.verdict]));
    expect(reqs(second)).toEqual(reqs(first));
    // the first run changes the vetting and judges them; the second says why it cannot
    for (const id of NEED_A_CHANGE) expect(first.report.requirements.find((q) => q.id === id)?.verdict, id).toBe('pass');
    const change = second.report.checks.find((c) => c.id === CHANGE_CHECK);
    expect(change?.verdict).toBe('skipped');
    expect(change?.reason).toMatch(/was vetted before this upload/);
    const vetAll = second.report.checks.find((c) => c.id === 'ledger.upload-package.vet-all');
    expect(vetAll?.verdict).toBe('pass');
    expect(vetAll?.inapplicable?.find((i) => i.requirement === NEED_A_CHANGE[0])?.reason).toMatch(/was vetted before this upload/);
  });
});
