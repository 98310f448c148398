/**
 * No registry check meets a contract another check moves. The allocation factory's conflict check moves a contract the
 * factory's choice context discloses (here the shared factory itself: the target configures no
 * factoryReassignmentChoiceArguments, as a registry with one factory for every instrument would), and SPEC.md requires a
 * 409 while it moves. The other factory checks run in the same runs; a slow target (every reassignment held 150 ms, every
 * registry answer 15 ms) widens the window in which they could meet the move. The move checks hold the registry's
 * contracts alone and the others declare they read them, so every check passes, run after run, and the only 409s the
 * factory answers are those the conflict check asked for.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, targetsFromBlock, type Config } from '../../harness/config.js';
import type { RunResult } from '../../harness/run/runner.js';
import { answer, forward } from './fault-proxy.js';
import { cleanup, reference, runQuietly, startStub, tempDir } from './harness.js';

const RUNS = 4;
const REQUIREMENTS = [
  'registry.get-allocation-factory.reassignment-conflict',
  'registry.get-allocation-factory.response-schema',
  'registry.get-allocation-factory.at-least-25-transfer-legs',
  'registry.choice-context.debug-fields-excluded',
  'registry.choice-context.debug-field-types',
  'registry.choice-context.created-event-blob-unchanged',
];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A loopback proxy that holds each answer `delay(req)` ms and counts the 409s the allocation factory answers. */
async function slowProxy(upstream: string, delay: (url: string) => number): Promise<{ url: string; factoryConflicts: () => number }> {
  let conflicts = 0;
  const stub = await startStub((req, res, body) => {
    forward(upstream, req, body).then(
      async (up) => {
        await sleep(delay(req.url ?? ''));
        if (up.status === 409 && (req.url ?? '').endsWith('/allocation-factory')) conflicts++;
        answer(res, up);
      },
      () => res.destroy(),
    );
  });
  return { url: stub.url, factoryConflicts: () => conflicts };
}

afterAll(cleanup);

describe('the allocation-factory checks beside the check that moves the shared factory, on a slow target', () => {
  const runs: RunResult[] = [];
  let conflicts = 0;

  beforeAll(async () => {
    const ref = await reference();
    const targets = targetsFromBlock(ref.targetConfig(), 'the reference server');
    // one factory for every allocation: the conflict check moves the factory the other checks ask for
    delete targets.registry!.fixtures.factoryReassignmentChoiceArguments;
    const ledger = new URL(targets.ledger!.url);
    const registry = new URL(targets.registry!.url);
    const ledgerProxy = await slowProxy(ledger.origin, (url) => (url.startsWith('/v2/commands/submit-and-wait-for-reassignment') ? 150 : 0));
    const registryProxy = await slowProxy(registry.origin, () => 15);
    targets.ledger = { ...targets.ledger!, url: `${ledgerProxy.url}${ledger.pathname.replace(/\/$/, '')}` };
    targets.registry = { ...targets.registry!, url: `${registryProxy.url}${registry.pathname.replace(/\/$/, '')}` };
    const reportsDir = tempDir('registry-moving');
    for (let i = 0; i < RUNS; i++) {
      const config: Config = {
        run: { ...DEFAULT_RUN, seed: 1000 + i, only: ['registry'], reportsDir: join(reportsDir, String(i)), html: false, compare: false, runs: 3, retries: 0, requirements: REQUIREMENTS },
        targets: structuredClone(targets),
        reference: { faults: [] },
        useReference: false,
        sources: ['test'],
      };
      runs.push(await runQuietly(config));
    }
    conflicts = registryProxy.factoryConflicts();
  }, 300_000);

  it('passes every factory check in every run: no check met the 409 of another one\'s move', () => {
    for (const [i, run] of runs.entries()) {
      const checks = run.report.checks.filter((c) => c.operations.includes('getAllocationFactory'));
      expect(checks.map((c) => c.id)).toEqual(expect.arrayContaining(['registry.reassignment.allocation-factory-conflict', 'registry.allocation-factory.transfer-legs', 'registry.allocation-factory.debug-fields', 'registry.allocation-factory.context']));
      for (const c of checks) expect({ run: i, id: c.id, verdict: c.verdict, failures: c.failures ?? [], error: c.error }).toEqual({ run: i, id: c.id, verdict: 'pass', failures: [], error: undefined });
    }
  });

  it('answered 409 only to the conflict check, once a run, while it moved the factory', () => {
    expect(conflicts).toBe(RUNS);
  });
});
