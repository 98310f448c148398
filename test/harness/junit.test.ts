import { describe, expect, it } from 'vitest';
import { renderJunit } from '../../harness/reporting/junit.js';
import type { RunReport } from '../../harness/reporting/model.js';

const requirement = (id: string, verdict: string, checks: Array<{ id: string; verdict: string; blocked?: boolean }> = [], failed: string[] = []) => ({
  id, api: 'scan', level: 'MUST', statement: `${id} holds`, source: 'SPEC.md', operations: ['listItems'], verdict,
  ...(verdict !== 'pass' && verdict !== 'fail' ? { reason: `why ${id}` } : {}),
  checks: checks.map((c) => ({ ...c, title: c.id })),
  failures: failed.map((checkId) => ({ requirement: id, message: 'broken', checkId, checkTitle: checkId })),
});

describe('junit.xml', () => {
  it('has one testcase per requirement with its own verdict; a known failure of the baseline is skipped, as counted', () => {
    const report = {
      startedAt: '2026-01-01T00:00:00Z', durationMs: 10, runErrors: [], seed: 42, runs: 25, targets: { scan: { url: 'http://127.0.0.1:1/api/scan', reference: true } }, baseline: { known: [{ requirement: 'scan.known', reason: 'filed' }] },
      checks: [
        { id: 'c1', api: 'scan', verdict: 'fail', durationMs: 5, firstRequestAt: '2026-01-01T00:00:00.001Z', lastResponseAt: '2026-01-01T00:00:00.005Z', failures: [{ requirement: 'scan.new', message: 'broken' }, { requirement: 'scan.known', message: 'broken' }] },
        { id: 'c2', api: 'scan', verdict: 'error', error: 'TransportError: refused', durationMs: 1, firstRequestAt: '2026-01-01T00:00:00.003Z', lastResponseAt: '2026-01-01T00:00:00.004Z' },
      ],
      requirements: [
        requirement('scan.known', 'fail', [{ id: 'c1', verdict: 'fail' }], ['c1']),
        requirement('scan.new', 'fail', [{ id: 'c1', verdict: 'fail' }], ['c1']),
        // a requirement of the failed check that the check kept: it passes
        requirement('scan.kept', 'pass', [{ id: 'c1', verdict: 'pass' }, { id: 'c2', verdict: 'error' }]),
        requirement('scan.off', 'skipped', [{ id: 'c1', verdict: 'skipped' }]),
        requirement('scan.broke', 'error', [{ id: 'c2', verdict: 'error' }]),
        requirement('scan.none', 'untested'),
      ],
    } as unknown as RunReport;
    const xml = renderJunit(report);
    expect(xml).toMatch(/<testsuites [^>]*tests="6" failures="1" errors="1" skipped="3"/);
    // the interface's time is the wall span of its checks (c2 ran inside c1's span), not their sum
    expect(xml).toMatch(/<testsuite name="scan" tests="6" failures="1" errors="1" skipped="3" time="0.005"/);
    // a requirement's time is the span from its checks' first start to their last end, never their sum
    expect(xml).toMatch(/<testcase [^>]*name="scan\.kept \(MUST\)" time="0\.005"/);
    expect(xml).toMatch(/<testcase [^>]*name="scan\.broke \(MUST\)" time="0\.001"/);
    expect(xml).toMatch(/<testcase [^>]*name="scan\.none \(MUST\)" time="0\.000"/);
    expect(xml.match(/<failure /g)?.length).toBe(1);
    expect(xml.match(/<skipped /g)?.length).toBe(3);
    const testcase = (id: string) => new RegExp(`<testcase [^>]*name="${id.replace(/\./g, '\\.')} \\(MUST\\)"[^>]*>([\\s\\S]*?)</testcase>`).exec(xml)?.[1] ?? '';
    expect(testcase('scan.kept')).not.toMatch(/<failure|<error|<skipped/);
    expect(testcase('scan.kept')).toContain('<system-err>checks in error, which decided nothing here:\n[c2] TransportError: refused</system-err>');
    expect(testcase('scan.new')).toContain('<failure message="broken" type="ConformanceFailure">[c1] broken</failure>');
    // a failed requirement names the command that reruns it alone (the run's seed, its interface)
    expect(testcase('scan.new')).toContain('<property name="rerun" value="canton-conformance run --seed 42 --requirement scan.new --only scan"/>');
    expect(testcase('scan.known')).not.toContain('name="rerun"');
    expect(testcase('scan.known')).toContain('<skipped message="known failure (baseline): filed');
    expect(testcase('scan.broke')).toContain('<error message="why scan.broke"');
    expect(testcase('scan.none')).toContain('<skipped message="untested: why scan.none"/>');
  });

  it('ends a failure with a curl line that repeats its exchange', () => {
    const x = { api: 'scan', request: { method: 'GET', url: 'http://127.0.0.1:1/api/scan/v0/x', headers: {} }, response: { status: 200, headers: {}, body: '{}' }, startedAt: '2026-01-01T00:00:00Z', durationMs: 1 };
    const report = {
      startedAt: '2026-01-01T00:00:00Z', durationMs: 10, runErrors: [], seed: 42, runs: 25, targets: {},
      checks: [{ id: 'c1', api: 'scan', verdict: 'fail' }],
      requirements: [{ ...requirement('scan.new', 'fail', [{ id: 'c1', verdict: 'fail' }], ['c1']), failures: [{ requirement: 'scan.new', message: 'broken', checkId: 'c1', checkTitle: 'c1', exchange: x }] }],
    } as unknown as RunReport;
    expect(renderJunit(report)).toContain("[c1] broken\n\nreproduce:\ncurl -sS -X GET 'http://127.0.0.1:1/api/scan/v0/x'</failure>");
  });
});
