/**
 * judge agrees with run on every planted fault of the ledger interface whose requirement the passive rules cover: the run,
 * recorded (run --record), fails the fault's requirement, and judge on the recording says "observed fail" on it; judge
 * never fails a requirement the run passes, and sees every failure a generic check of the run saw. See
 * passive-faults.ts for how the faults are batched.
 */
import { describe, expect, it } from 'vitest';
import { batches, passiveFaults, runAndJudge, type FaultAgreement } from './passive-faults.js';

/**
 * Faults no passive judge can see, with why: the exchange alone does not say the answer is wrong.
 */
const NOT_PASSIVE: Record<string, string> = {
  // a valid request answered with a documented 400: only the suite knows its request was valid
  'registry-allocation-instructions-unsupported': 'answers every request, valid ones included, with a documented 400',
};

describe('judge on the recording of a run with planted faults', () => {
  it('gives the run\'s verdict on the requirement of every passive planted fault, and no failure the run has not', async () => {
    const faults = await passiveFaults(['ledger']);
    expect(faults.length).toBeGreaterThan(40);
    const seen: FaultAgreement[] = [];
    const judgeOnly: string[] = [];
    const runOnly: string[] = [];
    for (const batch of batches(faults, 24)) {
      const r = await runAndJudge(batch);
      seen.push(...r.faults);
      judgeOnly.push(...r.judgeOnly);
      runOnly.push(...r.runOnly);
    }
    expect(seen.map((f) => f.fault).sort()).toEqual(faults.map((f) => f.name).sort());
    const disagree = seen.filter((f) => NOT_PASSIVE[f.fault] === undefined && (f.run !== 'fail' || f.judge !== 'observed fail'));
    expect(disagree).toEqual([]);
    expect(judgeOnly).toEqual([]);
    expect(runOnly).toEqual([]);
  }, 300_000);
});
