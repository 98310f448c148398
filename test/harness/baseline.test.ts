import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../harness/judging/catalogue.js';
import { ConfigError } from '../../harness/config.js';
import { applyBaseline, loadBaseline } from '../../harness/reporting/baseline.js';
import { diffRuns } from '../../harness/reporting/diff.js';
import { aggregate } from '../../harness/reporting/aggregate.js';
import type { CheckResultMeta } from '../../harness/types.js';

const catalogue = loadCatalogue(join(import.meta.dirname, '..', 'fixtures', 'mini', 'requirements'));
const dir = mkdtempSync(join(tmpdir(), 'cc-baseline-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const failing: CheckResultMeta = {
  id: 'c1', title: 't', api: 'scan', operations: ['listItems'], requirements: ['scan.list-items.small-ids'], verdict: 'fail',
  failures: [{ requirement: 'scan.list-items.small-ids', message: 'too long' }],
};

describe('baseline of known failures', () => {
  it('reads expectations and rejects unknown ids, duplicates and missing reasons with the entry named', () => {
    const ok = file('ok.yaml', 'expectations:\n  - requirement: scan.list-items.small-ids\n    reason: vendor ticket 12\n');
    expect(loadBaseline(ok, catalogue)).toEqual([{ requirement: 'scan.list-items.small-ids', verdict: 'fail', reason: 'vendor ticket 12' }]);
    const err = (text: string) => {
      try {
        loadBaseline(file('bad.yaml', text), catalogue);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(err('expectations:\n  - requirement: nope\n    reason: x\n')).toContain('expectations[0].requirement');
    expect(err('expectations:\n  - requirement: scan.list-items.small-ids\n')).toContain('reason');
    expect(err('expectations:\n  - { requirement: scan.list-items.small-ids, reason: a }\n  - { requirement: scan.list-items.small-ids, reason: b }\n')).toContain('listed twice');
    expect(err('nothing: here\n')).toContain('"expectations:"');
  });

  it('keeps a known MUST failure out of the exit code, and reports an expectation that no longer holds', () => {
    const plain = aggregate(catalogue, [failing], ['scan'], [], []);
    expect(plain.exitCode).toBe(1);
    const withBaseline = aggregate(catalogue, [failing], ['scan'], [], [], new Set(['scan.list-items.small-ids']));
    expect(withBaseline.exitCode).toBe(0);
    expect(withBaseline.requirements.find((r) => r.id === 'scan.list-items.small-ids')?.verdict).toBe('fail');
    const verdicts = new Map(withBaseline.requirements.map((r) => [r.id, r.verdict]));
    const outcome = applyBaseline(
      [
        { requirement: 'scan.list-items.small-ids', verdict: 'fail', reason: 'a' },
        { requirement: 'scan.list-items.untested-rule', verdict: 'fail', reason: 'b' },
      ],
      verdicts,
    );
    expect(outcome.known.map((e) => e.requirement)).toEqual(['scan.list-items.small-ids']);
    expect(outcome.stale).toEqual([{ requirement: 'scan.list-items.untested-rule', verdict: 'fail', reason: 'b', actual: 'untested' }]);
  });
});

describe('diff against an earlier run', () => {
  it('sorts verdict changes into regressions, fixes and others, ignoring requirements the earlier run did not select', () => {
    const earlier = {
      runId: 'r1',
      startedAt: '2026-01-01T00:00:00Z',
      requirements: [
        { id: 'a', level: 'MUST', verdict: 'pass' as const },
        { id: 'b', level: 'MUST', verdict: 'fail' as const },
        { id: 'c', level: 'SHOULD', verdict: 'skipped' as const },
        { id: 'd', level: 'MUST', verdict: 'pass' as const },
      ],
    };
    const d = diffRuns(earlier, 'x.json', [
      { id: 'a', level: 'MUST', verdict: 'fail' },
      { id: 'b', level: 'MUST', verdict: 'pass' },
      { id: 'c', level: 'SHOULD', verdict: 'pass' },
      { id: 'd', level: 'MUST', verdict: 'pass' },
      { id: 'e', level: 'MUST', verdict: 'pass' },
    ]);
    expect(d.regressions.map((c) => c.id)).toEqual(['a']);
    expect(d.fixes.map((c) => c.id)).toEqual(['b']);
    expect(d.other.map((c) => c.id)).toEqual(['c']);
    expect(d.notInEarlier).toBe(1);
  });
});

describe('requirements outside the target', () => {
  it('does not judge a requirement the check names but the target version excludes', () => {
    const check: CheckResultMeta = {
      id: 'c2', title: 't', api: 'scan', operations: ['listItems'], requirements: ['scan.list-items.small-ids', 'scan.list-items.new-thing'], verdict: 'pass',
      inapplicable: [{ requirement: 'scan.list-items.new-thing', reason: 'version: applies from version 2.0; the target is 1.0' }],
    };
    const agg = aggregate(catalogue, [check], ['scan'], [], []);
    const byId = new Map(agg.requirements.map((r) => [r.id, r]));
    expect(byId.get('scan.list-items.small-ids')?.verdict).toBe('pass');
    expect(byId.get('scan.list-items.new-thing')).toMatchObject({ verdict: 'skipped', reason: 'version: applies from version 2.0; the target is 1.0' });
  });
});
