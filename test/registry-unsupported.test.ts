/**
 * A registry that does not support allocation instructions may answer 400 to their endpoints (FACTS.md, Token
 * registry): the registry suite reports such checks unsupported, never failed. The planted mode
 * registry-allocation-instructions-unsupported makes the reference such a registry.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, type Config } from '../harness/config.js';
import { runConformance, type RunResult } from '../harness/runner.js';
import { FAULTS } from '../reference/faults.js';
import { AI_UNSUPPORTED } from '../reference/registry/faults-allocation-instruction.js';

describe('the registry suite against a registry without allocation instructions', () => {
  let result: RunResult;
  let reports: string;

  beforeAll(async () => {
    reports = mkdtempSync(join(tmpdir(), 'cc-registry-unsupported-'));
    const config: Config = {
      run: { ...DEFAULT_RUN, only: ['registry'], reportsDir: reports, html: false, runs: 5 },
      targets: {},
      reference: { faults: [AI_UNSUPPORTED] },
      useReference: true,
      sources: ['test'],
    };
    result = await runConformance(config, { write: () => undefined });
  }, 120_000);

  afterAll(() => rmSync(reports, { recursive: true, force: true }));

  const allocationOps = ['getAllocationInstructionWithdrawContext', 'getAllocationFactory'];

  it('declares the mode as giving unsupported, not a failure', () => {
    expect(FAULTS.find((f) => f.name === AI_UNSUPPORTED)?.verdict).toBe('unsupported');
  });

  it('reports every allocation-instruction check unsupported and fails none', () => {
    // a check of another version's rule (the endpoints absent before 0.6.11) is skipped for the version, whatever the kind
    const checks = result.report.checks.filter((c) => c.operations.every((o) => allocationOps.includes(o)) && !c.reason?.startsWith('version:'));
    expect(checks.length).toBeGreaterThanOrEqual(10);
    for (const c of checks) expect({ id: c.id, verdict: c.verdict }).toEqual({ id: c.id, verdict: 'unsupported' });
    expect(checks.every((c) => /does not support/.test(c.reason ?? ''))).toBe(true);
  });

  it('keeps the transfer-instruction checks passing and fails no requirement', () => {
    const transfer = result.report.checks.filter((c) => c.operations.every((o) => o === 'getTransferInstructionWithdrawContext'));
    expect(transfer.length).toBeGreaterThan(0);
    for (const c of transfer) expect({ id: c.id, verdict: c.verdict }).toEqual({ id: c.id, verdict: 'pass' });
    expect(result.report.requirements.filter((r) => r.verdict === 'fail').map((r) => r.id)).toEqual([]);
    const byId = new Map(result.report.requirements.map((r) => [r.id, r.verdict]));
    expect(byId.get('registry.get-allocation-factory.response-schema')).toBe('unsupported');
    expect(byId.get('registry.get-allocation-instruction-withdraw-context.response-schema')).toBe('unsupported');
    expect(result.report.exitCode).toBe(0);
  });
});

/**
 * A 400 counts as "unsupported" only with evidence that the request was acceptable (the other instruction kind accepts
 * the same valid body): a registry that refuses every withdraw request without meta (planted meta-required) refuses
 * {} for both kinds, so nothing tells an unsupported kind from a refused request. Its checks are skipped with that
 * reason, none reported unsupported, and the rule it breaks fails.
 */
describe('the registry suite against a registry that refuses a valid body for every kind', () => {
  let result: RunResult;
  let reports: string;

  beforeAll(async () => {
    const { CC_META_REQUIRED } = await import('../reference/registry/faults-choice-context.js');
    reports = mkdtempSync(join(tmpdir(), 'cc-registry-meta-required-'));
    const config: Config = {
      run: { ...DEFAULT_RUN, only: ['registry'], reportsDir: reports, html: false, runs: 5 },
      targets: {},
      reference: { faults: [CC_META_REQUIRED] },
      useReference: true,
      sources: ['test'],
    };
    result = await runConformance(config, { write: () => undefined });
  }, 120_000);

  afterAll(() => rmSync(reports, { recursive: true, force: true }));

  it('reports no check unsupported: without evidence a 400 is not an unsupported kind', () => {
    expect(result.report.checks.filter((c) => c.verdict === 'unsupported').map((c) => c.id)).toEqual([]);
    const undecided = result.report.checks.filter((c) => c.verdict === 'skipped' && /cannot tell an unsupported kind from a refused request/.test(c.reason ?? ''));
    expect(undecided.length).toBeGreaterThan(0);
  });

  it('fails the rule the registry breaks', () => {
    const byId = new Map(result.report.requirements.map((r) => [r.id, r.verdict]));
    expect(byId.get('registry.choice-context.meta-optional')).toBe('fail');
  });
});
