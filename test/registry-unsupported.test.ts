/**
 * A registry that does not support allocation instructions may answer 400 to their endpoints (FACTS.md, Token
 * registry), and only its configuration can say it has none (features.allocationInstructions false): the registry suite
 * then reports those checks unsupported (or skipped for the feature), never failed. The planted fault
 * registry-allocation-instructions-unsupported makes the reference answer so; with the setting it is such a registry,
 * without it a registry that refuses valid requests, which fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, targetsFromBlock, type Config } from '../harness/config.js';
import { runConformance, type RunResult } from '../harness/run/runner.js';
import { startReference, type ReferenceServer } from '../reference/index.js';
import { AI_UNSUPPORTED } from '../reference/registry/faults-allocation-instruction.js';
import { CC_EXCLUDE_DEBUG_FIELDS_REQUIRED, CC_META_REQUIRED } from '../reference/registry/faults-choice-context.js';

describe('the registry suite against a registry configured without allocation instructions', () => {
  let result: RunResult;
  let reports: string;
  let ref: ReferenceServer;

  beforeAll(async () => {
    reports = mkdtempSync(join(tmpdir(), 'cc-registry-unsupported-'));
    ref = await startReference({ faults: [AI_UNSUPPORTED] });
    const targets = targetsFromBlock(ref.targetConfig(), 'the reference server');
    targets.registry = { ...targets.registry!, features: { ...targets.registry!.features, allocationInstructions: false } };
    const config: Config = {
      run: { ...DEFAULT_RUN, only: ['registry'], reportsDir: reports, html: false, compare: false, runs: 5 },
      targets,
      reference: { faults: [] },
      useReference: false,
      sources: ['test'],
    };
    result = await runConformance(config, { write: () => undefined });
  }, 120_000);

  afterAll(async () => {
    await ref?.close();
    rmSync(reports, { recursive: true, force: true });
  });

  const allocationOps = ['getAllocationInstructionWithdrawContext', 'getAllocationFactory'];

  it('reports every allocation-instruction check unsupported, or skipped for the feature, and fails none', () => {
    // a check of another version's rule (the endpoints absent before 0.6.11) is skipped for the version, whatever the kind
    const checks = result.report.checks.filter((c) => c.operations.every((o) => allocationOps.includes(o)) && !c.reason?.startsWith('version:'));
    expect(checks.length).toBeGreaterThanOrEqual(10);
    for (const c of checks) {
      const why = c.verdict === 'unsupported' ? /does not support allocation instructions \(features\.allocationInstructions is false/ : /feature allocationInstructions is switched off/;
      expect({ id: c.id, verdict: c.verdict === 'unsupported' || c.verdict === 'skipped', reason: why.test(c.reason ?? '') }).toEqual({ id: c.id, verdict: true, reason: true });
    }
    // the checks of the shared choice-context rules meet the 400 and say unsupported
    expect(checks.filter((c) => c.verdict === 'unsupported').length).toBeGreaterThan(0);
  });

  it('keeps the transfer-instruction checks passing and fails no requirement', () => {
    const transfer = result.report.checks.filter((c) => c.operations.every((o) => o === 'getTransferInstructionWithdrawContext'));
    expect(transfer.length).toBeGreaterThan(0);
    for (const c of transfer) expect({ id: c.id, verdict: c.verdict }).toEqual({ id: c.id, verdict: 'pass' });
    expect(result.report.requirements.filter((r) => r.verdict === 'fail').map((r) => r.id)).toEqual([]);
    const byId = new Map(result.report.requirements.map((r) => [r.id, r.verdict]));
    expect(byId.get('registry.get-allocation-factory.response-schema')).toBe('skipped');
    expect(byId.get('registry.get-allocation-instruction-withdraw-context.response-schema')).toBe('skipped');
    expect(result.report.exitCode).toBe(0);
  });
});

/** The same registry without the setting: its 400 to a valid request is a refusal, and fails. */
describe('the registry suite against a registry that refuses allocation instructions without saying so', () => {
  let result: RunResult;
  let reports: string;

  beforeAll(async () => {
    reports = mkdtempSync(join(tmpdir(), 'cc-registry-refused-'));
    const config: Config = {
      run: { ...DEFAULT_RUN, only: ['registry'], reportsDir: reports, html: false, runs: 3 },
      targets: {},
      reference: { faults: [AI_UNSUPPORTED] },
      useReference: true,
      sources: ['test'],
    };
    result = await runConformance(config, { write: () => undefined });
  }, 120_000);

  afterAll(() => rmSync(reports, { recursive: true, force: true }));

  it('reports no check unsupported and fails the response rules of both allocation endpoints', () => {
    expect(result.report.checks.filter((c) => c.verdict === 'unsupported').map((c) => c.id)).toEqual([]);
    const byId = new Map(result.report.requirements.map((r) => [r.id, r.verdict]));
    expect(byId.get('registry.get-allocation-factory.response-schema')).toBe('fail');
    expect(byId.get('registry.get-allocation-instruction-withdraw-context.response-schema')).toBe('fail');
    expect(result.report.exitCode).not.toBe(0);
  });
});

/**
 * A registry that refuses every withdraw request without meta (planted meta-required) refuses the valid body {} for
 * both kinds; one that refuses every request without excludeDebugFields (default false) refuses it on all three
 * endpoints. Nothing in their configuration says a kind is unsupported, so no check is unsupported or skipped for
 * it, and the rule each breaks fails.
 */
for (const [label, fault, rule] of [
  ['withdraw requests without meta', CC_META_REQUIRED, 'registry.choice-context.meta-optional'],
  ['requests without excludeDebugFields', CC_EXCLUDE_DEBUG_FIELDS_REQUIRED, 'registry.choice-context.debug-default-included'],
] as const) {
  describe(`the registry suite against a registry that refuses ${label}`, () => {
    let result: RunResult;
    let reports: string;

    beforeAll(async () => {
      reports = mkdtempSync(join(tmpdir(), 'cc-registry-refuses-'));
      const config: Config = {
        run: { ...DEFAULT_RUN, only: ['registry'], reportsDir: reports, html: false, runs: 3 },
        targets: {},
        reference: { faults: [fault] },
        useReference: true,
        sources: ['test'],
      };
      result = await runConformance(config, { write: () => undefined });
    }, 120_000);

    afterAll(() => rmSync(reports, { recursive: true, force: true }));

    it('reports no check unsupported nor skipped for want of evidence: a 400 to a valid request is no unsupported kind', () => {
      expect(result.report.checks.filter((c) => c.verdict === 'unsupported').map((c) => c.id)).toEqual([]);
      expect(result.report.checks.filter((c) => c.verdict === 'skipped' && /unsupported kind|does not support/.test(c.reason ?? '')).map((c) => c.id)).toEqual([]);
    });

    it('fails the rule the registry breaks', () => {
      const byId = new Map(result.report.requirements.map((r) => [r.id, r.verdict]));
      expect(byId.get(rule)).toBe('fail');
    });
  });
}
