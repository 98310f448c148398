/**
 * A contract left mid-reassignment is assigned back in the next run. Run 1 goes through a loopback
 * proxy in front of the reference's ledger that refuses every assignment back to the synchronizer a contract was first
 * unassigned from: the check's own move succeeds, its move back is unassigned and then refused (3 attempts), so the
 * instruction is left mid-reassignment and the state file under reports/state records it. Run 2, through the same
 * proxy now passing everything (the same ledger URL), assigns it back before the check uses it, reports the repair,
 * passes, and leaves no state file. Without the repair, run 2's check would meet a 409 before its move and error.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, targetsFromBlock, type Config } from '../../harness/config.js';
import type { RunResult } from '../../harness/run/runner.js';
import { pendingMoves } from '../../harness/fixtures/target-state.js';
import { answer, forward } from './fault-proxy.js';
import { cleanup, json, reference, runQuietly, startStub, tempDir } from './harness.js';

const tmp = tempDir('reassign-repair');
const reportsDir = join(tmp, 'reports');
const REQ = 'registry.get-transfer-instruction-withdraw-context.reassignment-conflict';
/** the instruction's own move: the run selects this check alone (the requirement's other check moves a disclosed
 * contract, whose move back the proxy refuses too, and that contract left moving would answer this one 409 first) */
const CHECK = 'registry.reassignment.transfer-instruction-conflict';

interface Refusing {
  url: string;
  refuse: boolean;
  refused: number;
}

/**
 * Forwards everything to `upstream`; while `refuse` is set, answers 409 to a reassignment whose AssignCommand targets
 * the synchronizer a contract was first unassigned from (its home: the move back).
 */
async function refusingProxy(upstream: string): Promise<Refusing> {
  const homes = new Map<string, string>();
  const state: Refusing = { url: '', refuse: true, refused: 0 };
  const stub = await startStub((req, res, body) => {
    if (req.url?.startsWith('/v2/commands/submit-and-wait-for-reassignment') === true) {
      try {
        const j = JSON.parse(body.toString('utf8')) as { reassignmentCommands?: { commands?: Array<{ command?: Record<string, { value?: Record<string, string> }> }> } };
        for (const { command } of j.reassignmentCommands?.commands ?? []) {
          const un = command?.UnassignCommand?.value;
          if (un?.contractId !== undefined && un.source !== undefined && !homes.has(un.contractId)) homes.set(un.contractId, un.source);
          const as = command?.AssignCommand?.value;
          if (state.refuse && as?.target !== undefined && [...homes.values()].includes(as.target)) {
            state.refused++;
            return json(res, 409, { code: 'ABORTED_BY_TEST_PROXY', cause: 'the test proxy refuses this assignment', context: {}, errorCategory: 4 });
          }
        }
      } catch {
        // not JSON: forwarded as it is
      }
    }
    forward(upstream, req, body).then((up) => answer(res, up), () => res.destroy());
  });
  state.url = stub.url;
  return state;
}

afterAll(cleanup);

describe('a contract left mid-reassignment by a run', () => {
  let proxy: Refusing;
  const runs: RunResult[] = [];
  let pendingAfterFirst: ReturnType<typeof pendingMoves> = [];
  let ledgerUrl = '';

  beforeAll(async () => {
    const ref = await reference();
    const targets = targetsFromBlock(ref.targetConfig(), 'the reference server');
    proxy = await refusingProxy(targets.ledger!.url);
    targets.ledger = { ...targets.ledger!, url: proxy.url };
    ledgerUrl = proxy.url;
    for (const refuse of [true, false]) {
      proxy.refuse = refuse;
      const config: Config = {
        run: { ...DEFAULT_RUN, only: ['registry'], reportsDir, html: false, compare: false, runs: 2, retries: 0, requirements: [REQ], checks: [CHECK] },
        targets: structuredClone(targets),
        reference: { faults: [] },
        useReference: false,
        sources: ['test'],
      };
      runs.push(await runQuietly(config));
      if (refuse) pendingAfterFirst = pendingMoves(reportsDir, ledgerUrl);
    }
  }, 180_000);

  it('run 1: the move back is refused, listed as not cleaned up, and kept in the state file', () => {
    const [first] = runs as [RunResult];
    expect(proxy.refused).toBeGreaterThanOrEqual(3);
    const check = first.report.checks.find((c) => c.id === CHECK);
    // a clean-up failure does not change the verdict
    expect(check?.verdict, check?.error).toBe('pass');
    expect(check?.notCleanedUp?.join('\n')).toMatch(/moving .* back to .*state file/);
    expect(pendingAfterFirst).toHaveLength(1);
    expect(pendingAfterFirst[0]).toMatchObject({ state: 'unassigned', check: CHECK });
    expect(pendingAfterFirst[0]!.target).toBe(pendingAfterFirst[0]!.home);
    // no secret in it: the reference's tokens are HS256 JWTs; none is written
    const files = readdirSync(join(reportsDir, 'state'));
    for (const f of files) expect(readFileSync(join(reportsDir, 'state', f), 'utf8')).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
  });

  it('run 2: assigns it back before the check uses it, reports the repair, passes, and forgets it', () => {
    const [, second] = runs as [RunResult, RunResult];
    const check = second.report.checks.find((c) => c.id === CHECK);
    expect(check?.verdict, check?.error).toBe('pass');
    expect(check?.notCleanedUp ?? []).toEqual([]);
    expect(second.report.requirements.find((q) => q.id === REQ)?.verdict).toBe('pass');
    const repaired = second.report.footprint?.repaired ?? [];
    expect(repaired).toHaveLength(1);
    expect(repaired[0]!.what).toContain(pendingAfterFirst[0]!.contractId);
    expect(readFileSync(join(second.dir, 'summary.md'), 'utf8')).toContain('Left behind by an earlier run and repaired (1)');
    expect(pendingMoves(reportsDir, ledgerUrl)).toEqual([]);
    expect(existsSync(join(reportsDir, 'state'))).toBe(true);
    expect(readdirSync(join(reportsDir, 'state'))).toEqual([]);
  });
});
