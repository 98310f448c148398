import { describe, expect, it } from 'vitest';
import { renderJunit } from '../../harness/reporting/junit.js';
import type { RunReport } from '../../harness/reporting/model.js';

const check = (id: string, verdict: string, failed: string[] = []) => ({
  id, title: id, api: 'scan', operations: ['listItems'], requirements: ['scan.a', 'scan.b'], verdict,
  ...(failed.length > 0 ? { failures: failed.map((requirement) => ({ requirement, message: 'broken' })) } : {}),
});

describe('junit.xml', () => {
  it('counts a check that fails only on known failures of the baseline as skipped, as its testcase says', () => {
    const report = {
      startedAt: '2026-01-01T00:00:00Z', durationMs: 10, runErrors: [], baseline: { known: [{ requirement: 'scan.a' }] },
      checks: [check('known', 'fail', ['scan.a']), check('new', 'fail', ['scan.a', 'scan.b']), check('ok', 'pass'), check('off', 'skipped'), check('broke', 'error')],
    } as unknown as RunReport;
    const xml = renderJunit(report);
    expect(xml).toMatch(/<testsuites [^>]*tests="5" failures="1" errors="1" skipped="2"/);
    expect(xml).toMatch(/<testsuite name="scan" tests="5" failures="1" errors="1" skipped="2"/);
    expect(xml.match(/<failure /g)?.length).toBe(1);
    expect(xml.match(/<skipped /g)?.length).toBe(2);
  });
});
