/**
 * The agreement of judge with run on planted faults: every planted fault whose requirement the passive rules cover is
 * switched on in a reference server of its own, the checks that declare its requirement are routed to it (several faults
 * in one run, as the self-test batches them), the run is recorded (run --record), and judge reads the recording. For
 * each fault, the run fails its requirement and so does judge; on every requirement the passive rules cover, judge
 * never fails what the run passes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalogue } from '../../harness/judging/catalogue.js';
import { genericCoverage } from '../../harness/judging/checks.js';
import { DEFAULT_RUN, targetsFromBlock, type Config } from '../../harness/config.js';
import { collectChecks, type DiscoveredCheck } from '../../harness/run/discover.js';
import { judgeHar } from '../../harness/observe/commands.js';
import type { ObservedReport } from '../../harness/observe/report.js';
import { runConformance } from '../../harness/run/runner.js';
import { schemaRegistry } from '../../harness/judging/schemas.js';
import { plantedFaults, profileFor } from '../../harness/run/selftest.js';
import { APIS, type Api } from '../../harness/types.js';
import { startReference, type ReferenceServer } from '../../reference/index.js';

export interface FaultAgreement {
  fault: string;
  requirement: string;
  run: string;
  judge: string;
}

export interface BatchResult {
  faults: FaultAgreement[];
  /** passive requirements judge failed although the run did not */
  judgeOnly: string[];
  /** passive requirements the run failed on the evidence of a generic check, and judge did not */
  runOnly: string[];
  entries: number;
}

/** The planted faults of these interfaces whose requirement the passive rules cover, with the checks that declare it. */
export async function passiveFaults(apis: readonly Api[]): Promise<Array<{ name: string; requirement: string; reference?: Record<string, unknown>; checks: string[] }>> {
  const covered = genericCoverage(schemaRegistry());
  const catalogue = loadCatalogue();
  const checks: DiscoveredCheck[] = await collectChecks(APIS);
  const out = [];
  for (const f of await plantedFaults()) {
    const r = catalogue.byId.get(f.requirement);
    if (!covered.has(f.requirement) || r === undefined || !apis.includes(r.api)) continue;
    // the reference settings the requirement needs (a version in its range), as the self-test picks them
    out.push({ name: f.name, requirement: f.requirement, reference: { ...profileFor(r), ...(f.reference ?? {}) } as Record<string, unknown>, checks: checks.filter((c) => c.requirements.includes(f.requirement)).map((c) => c.id) });
  }
  return out;
}

/** Batches in which no check is routed twice (a check runs against one server). */
export function batches<T extends { checks: string[] }>(faults: T[], maxSize: number): T[][] {
  const out: Array<{ members: T[]; checks: Set<string> }> = [];
  for (const f of faults) {
    let b = out.find((x) => x.members.length < maxSize && f.checks.every((c) => !x.checks.has(c)));
    if (b === undefined) {
      b = { members: [], checks: new Set() };
      out.push(b);
    }
    b.members.push(f);
    for (const c of f.checks) b.checks.add(c);
  }
  return out.map((b) => b.members);
}

/** One recorded run of a batch of faults, each on its own reference, and judge on its recording. */
export async function runAndJudge(members: Awaited<ReturnType<typeof passiveFaults>>): Promise<BatchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cc-passive-faults-'));
  const servers: ReferenceServer[] = [];
  try {
    const routes: NonNullable<NonNullable<Config['internal']>['routes']> = [];
    for (const f of members) {
      const reference = await startReference({ faults: [f.name], ...(f.reference ?? {}) });
      servers.push(reference);
      routes.push({ checks: f.checks, targets: targetsFromBlock(reference.targetConfig(), `the reference with ${f.name}`) });
    }
    const config: Config = {
      run: { ...DEFAULT_RUN, html: false, compare: false, reportsDir: join(dir, 'run'), timeoutMs: 20_000 },
      targets: routes[0]!.targets,
      reference: { faults: [] },
      useReference: false,
      sources: ['test'],
      internal: { routes, latencyIgnoresMachineLoad: true },
    };
    const har = join(dir, 'run.har');
    const run = await runConformance(config, { write: () => undefined, record: har });
    // matched by path: the exchanges went to many servers
    const judgeConfig: Config = { ...config, targets: {}, internal: {}, run: { ...config.run, reportsDir: join(dir, 'judged') } };
    const { report } = await judgeHar(har, judgeConfig, 20);
    const runVerdict = (id: string) => run.report.requirements.find((q) => q.id === id)?.verdict ?? 'absent';
    const judgeVerdict = (r: ObservedReport, id: string) => r.observed.requirements.find((q) => q.id === id)?.verdict ?? 'absent';
    const covered = [...genericCoverage(schemaRegistry()).keys()];
    const genericFail = (id: string) => run.report.checks.some((c) => (c.failures ?? []).some((f) => f.requirement === id && f.check !== undefined));
    return {
      faults: members.map((f) => ({ fault: f.name, requirement: f.requirement, run: runVerdict(f.requirement), judge: judgeVerdict(report, f.requirement) })),
      judgeOnly: covered.filter((id) => judgeVerdict(report, id) === 'observed fail' && runVerdict(id) !== 'fail'),
      runOnly: covered.filter((id) => genericFail(id) && judgeVerdict(report, id) !== 'observed fail'),
      entries: report.observed.exchanges,
    };
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Faults no passive judge can see, with why: the exchange alone does not say the answer is wrong.
 */
const NOT_PASSIVE: Record<string, string> = {
  // a valid request answered with a documented 400: only the suite knows its request was valid
  'registry-allocation-instructions-unsupported': 'answers every request, valid ones included, with a documented 400',
  // the answer fits every passive rule; what is wrong is known only from what the check did or sent
  'ledger-revoke-user-rights-reports-held': 'lists a right the user keeps among the revoked ones: only the check knows which right it revoked',
  'ledger-annotation-value-type-server-error': 'answers 500 to a user whose annotation value is a number, a body judge does not decode against the request schema',
  'ledger-least-int32-malformed': 'refuses pageSize -2147483648 with text/plain as if malformed: judge does not read query values against their int32 range',
};

/**
 * The agreement test on the passive faults of these interfaces; `share` runs every `of`-th batch from the `part`-th
 * (0-based), so that a long list is split over test files that run beside each other.
 */
export function agreementSuite(apis: Api[], minFaults: number, share: { part: number; of: number } = { part: 0, of: 1 }): void {
  describe('judge on the recording of a run with planted faults', () => {
    it(`gives the run's verdict on the requirement of every passive planted fault (${apis.join(', ')}${share.of > 1 ? `, part ${share.part + 1} of ${share.of}` : ''}), and no failure the run has not`, async () => {
      const faults = await passiveFaults(apis);
      expect(faults.length).toBeGreaterThan(minFaults);
      const mine = batches(faults, 24).filter((_, i) => i % share.of === share.part);
      const seen: FaultAgreement[] = [];
      const judgeOnly: string[] = [];
      const runOnly: string[] = [];
      for (const batch of mine) {
        const r = await runAndJudge(batch);
        seen.push(...r.faults);
        judgeOnly.push(...r.judgeOnly);
        runOnly.push(...r.runOnly);
      }
      expect(seen.map((f) => f.fault).sort()).toEqual(mine.flat().map((f) => f.name).sort());
      const disagree = seen.filter((f) => NOT_PASSIVE[f.fault] === undefined && (f.run !== 'fail' || f.judge !== 'observed fail'));
      expect(disagree).toEqual([]);
      expect(judgeOnly).toEqual([]);
      expect(runOnly).toEqual([]);
    }, 300_000);
  });
}
