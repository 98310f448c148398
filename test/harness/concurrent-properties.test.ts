/**
 * Property cases run at once (`t.property(..., { concurrent: true })`): on a target with planted faults the
 * verdicts, and the failing properties' seeds and failing cases, are those of a run at concurrency 1, where every case runs
 * one after another. The faults are of checks whose properties run their cases at once (derived mutation kinds, the
 * user lifecycle model, user id round trips, rights grants, masked user updates spread over users, scan listings and walks,
 * the traffic account model, whose cases each model an account of their own). A case run at once with others adds to its
 * check's evidence (requirements it saw hold, judged or could not observe) only when a run one case after another
 * would have run it: the requirement verdicts are those of concurrency 1 too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, type Config } from '../../harness/config.js';
import { runConformance } from '../../harness/run/runner.js';

const FAULTS = [
  'ledger-derived-pattern-accepted',
  'ledger-users-id-backtick-rejected',
  'ledger-grant-user-rights-reports-held',
  'ledger-users-resource-version-kept',
  'scan-list-ans-entries-newest-page',
  'scan-licenses-after-skips-one',
  'ledger-update-user-unmasked-primary-party-applied',
  'ledger-update-traffic-account-duplicate-dedup-id-applied',
];
const REQUIREMENTS = [
  'ledger.derived.pattern-rejected',
  'ledger.users.id-allowed-characters',
  'ledger.grant-user-rights.newly-granted',
  'ledger.users.resource-version-changes',
  'scan.list-ans-entries.older-first',
  'scan.list-validator-licenses.after-continues',
  'ledger.update-user.only-masked-fields-change',
  'ledger.update-traffic-account.duplicate-dedup-id-ignored',
];

describe('property cases at once', () => {
  const reports = mkdtempSync(join(tmpdir(), 'cc-concurrent-properties-'));
  afterAll(() => rmSync(reports, { recursive: true, force: true }));
  const config = (concurrency: number): Config => ({
    run: { ...DEFAULT_RUN, reportsDir: join(reports, String(concurrency)), html: false, compare: false, runs: 10, seed: 7, concurrency, requirements: REQUIREMENTS },
    targets: {},
    reference: { faults: FAULTS },
    useReference: true,
    sources: ['test'],
  });

  it('give the verdicts, seeds and failing cases of a run one case after another, on planted faults', async () => {
    const one = await runConformance(config(1), { write: () => undefined });
    const many = await runConformance(config(32), { write: () => undefined });
    const verdicts = (r: typeof one) => Object.fromEntries(r.report.requirements.filter((q) => REQUIREMENTS.includes(q.id)).map((q) => [q.id, q.verdict]));
    // the failing case is the one a run one case after another meets first (the path's first step); how far it shrinks
    // may differ, since a planted fault may answer after what other checks sent meanwhile (a route's last 200)
    const checks = (r: typeof one) => Object.fromEntries(r.report.checks.map((c) => [c.id, { verdict: c.verdict, properties: (c.properties ?? []).map((p) => `${p.seed} ${p.path?.split(':')[0] ?? ''}`) }]));
    // every planted fault is seen at either concurrency
    expect(Object.values(verdicts(one))).toEqual(REQUIREMENTS.map(() => 'fail'));
    expect(verdicts(many)).toEqual(verdicts(one));
    expect(checks(many)).toEqual(checks(one));
  }, 240_000);
});
