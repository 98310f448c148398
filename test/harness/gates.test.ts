/**
 * Nothing tested is never a pass, and a gate can ask for more: the exit code and outcome of aggregate() with the run's
 * gates (run.failOn, run.minDecided), and junit.xml agreeing with them.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../harness/judging/catalogue.js';
import { aggregate, type Gates } from '../../harness/reporting/aggregate.js';
import { renderJunit } from '../../harness/reporting/junit.js';
import type { RunReport } from '../../harness/reporting/model.js';
import type { CheckResultMeta, Verdict } from '../../harness/types.js';

const catalogue = loadCatalogue(join(import.meta.dirname, '..', 'fixtures', 'mini', 'requirements'));
const MUST = ['scan.list-items.response-schema', 'scan.list-items.small-ids', 'scan.errors.error-body', 'scan.list-items.judged-broken'];
const SHOULD = 'scan.list-items.rare-status';

const check = (id: string, requirements: string[], verdict: Verdict, extra: Partial<CheckResultMeta> = {}): CheckResultMeta => ({
  id, title: id, api: 'scan', operations: ['listItems'], requirements, verdict, ...extra,
});
const gates = (g: Partial<Gates> = {}): Gates => ({ failOn: 'must', decidedOver: ['scan'], ...g });
const run = (checks: CheckResultMeta[], g?: Gates) => aggregate(catalogue, checks, ['scan'], [], [], new Set(), g);

describe('gates of the exit code', () => {
  const skippedAll = MUST.map((r, i) => check(`c${i}`, [r], 'skipped', { reason: 'no bearer token for role "user"' }));

  it('an interface whose MUST requirements were all skipped is INCOMPLETE (exit 3), not PASSED', () => {
    expect(run(skippedAll).exitCode).toBe(0);
    const a = run(skippedAll, gates());
    expect(a.exitCode).toBe(3);
    expect(a.outcome).toMatch(/^INCOMPLETE: .*none of the 4 selected MUST requirements of scan was decided \(4 skipped, e\.g\. .*no bearer token/);
  });

  it('requirements outside the target\'s version range do not count as undecided', () => {
    const decidedOne = [check('p', [MUST[0]!], 'pass'), ...MUST.slice(1).map((r, i) => check(`v${i}`, [r], 'skipped', { reason: 'version: applies before version 0.6.8; the target is 0.8.0' }))];
    expect(run(decidedOne, gates({ minDecided: 100 })).exitCode).toBe(0);
  });

  it('--fail-on should: a SHOULD failure exits 1', () => {
    const checks = [...MUST.map((r, i) => check(`m${i}`, [r], 'pass')), check('s', [SHOULD], 'fail', { failures: [{ requirement: SHOULD, message: 'broken' }] })];
    expect(run(checks, gates()).exitCode).toBe(0);
    const a = run(checks, gates({ failOn: 'should' }));
    expect(a.exitCode).toBe(1);
    expect(a.outcome).toBe('FAILED: 1 SHOULD requirement failed (run.failOn: should; no MUST requirement failed)');
  });

  it('--min-decided: fewer decided MUST requirements than the share asked is exit 3', () => {
    const checks = [check('a', [MUST[0]!], 'pass'), check('b', [MUST[1]!], 'pass'), check('c', [MUST[2]!], 'skipped', { reason: 'read-only mode: ' }), check('d', [MUST[3]!], 'skipped', { reason: 'no fixture' })];
    expect(run(checks, gates({ minDecided: 50 })).exitCode).toBe(0);
    const a = run(checks, gates({ minDecided: 75 }));
    expect(a.exitCode).toBe(3);
    expect(a.outcome).toMatch(/only 2 of the 4 selected MUST requirements a check covers were decided \(50\.0%\), fewer than run\.minDecided \(--min-decided\) asks: 75%/);
  });

  it('junit.xml is red whenever the exit code is not 0', () => {
    const a = run(skippedAll, gates());
    const report = { requirements: a.requirements, checks: skippedAll, runErrors: [], exitCode: a.exitCode, outcome: a.outcome, durationMs: 1, startedAt: new Date(0).toISOString() } as unknown as RunReport;
    const xml = renderJunit(report);
    expect(xml).toMatch(/<testcase classname="run" name="outcome \(exit code 3\)"><error message="INCOMPLETE: /);
    expect(xml).toMatch(/<testsuites [^>]*errors="1"/);
    expect(renderJunit({ ...report, exitCode: 0, outcome: 'PASSED: no MUST requirement failed' })).not.toContain('name="outcome');
  });
});
