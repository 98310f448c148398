/**
 * A check in error always says why: a rejection without a value, an error without a message (an AggregateError as
 * undici throws for a host tried on several addresses), and a test vitest ended without the wrapper's verdict and
 * without an error message each carry a reason in the report, never an empty one.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { whyErrored } from '../../harness/conformance.js';
import { ConformanceCollector } from '../../harness/reporting/collector.js';
import type { CheckResultMeta } from '../../harness/types.js';
import { cleanup, miniConfig, runQuietly, startStub, tempDir } from '../robustness/harness.js';

const tmp = tempDir('reasons');
afterAll(cleanup);

describe('a check in error says why', () => {
  it('for a rejection without a value, an Error without a message and an AggregateError of connection errors', async () => {
    const target = await startStub((_req, res) => res.end());
    const r = await runQuietly(miniConfig(target.url, ['test/fixtures/mini/no-reason/*.check.ts'], { reportsDir: join(tmp, 'r'), timeoutMs: 2000, checkTimeoutMs: 10_000 }));
    const byId = Object.fromEntries(r.report.checks.map((c) => [c.id, c]));
    for (const id of ['n.undefined', 'n.empty', 'n.aggregate']) {
      expect(byId[id]?.verdict, id).toBe('error');
      expect(byId[id]?.error ?? '', id).toMatch(/\w{3,}.*\w{3,}/);
    }
    expect(byId['n.undefined']?.error).toMatch(/rejected without a reason/);
    expect(byId['n.aggregate']?.error).toMatch(/ECONNREFUSED.*127\.0\.0\.1:9/);
    // the requirement those checks judge is in error with a reason too
    expect(r.report.requirements.find((q) => q.id === 'scan.list-items.response-schema')?.reason ?? '').not.toBe('');
  }, 60_000);

  it('names the code and the causes of an error without a message', () => {
    expect(whyErrored(new Error(''))).toMatch(/^Error without a message/);
    expect(whyErrored(Object.assign(new Error(''), { code: 'ECONNRESET' }))).toBe('Error without a message: ECONNRESET');
    expect(whyErrored(new TypeError('x is not a function'))).toBe('TypeError: x is not a function');
    expect(whyErrored('')).toMatch(/no error was thrown \(an empty string\)/);
  });

  it('when vitest ended a check without the wrapper verdict and without an error message', () => {
    const collector = new ConformanceCollector('/root', () => undefined, false);
    const meta = { id: 'x', title: 'x', api: 'scan', operations: [], requirements: ['scan.list-items.response-schema'] } as unknown as CheckResultMeta;
    const testCase = { meta: () => ({ conformance: meta }), result: () => ({ state: 'failed', errors: [] }), module: { moduleId: '/root/suites/x.test.ts' } };
    collector.onTestCaseResult(testCase as never);
    expect(meta.verdict).toBe('error');
    expect(meta.error).toMatch(/ended without a verdict \(vitest: failed, no error message\)/);
  });
});

describe('a property whose time runs out before its first case ended', () => {
  it('ends its check in error saying so (fast-check reports such a run as failed with no error: "Error: null")', async () => {
    const target = await startStub((_req, res) => void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[]}'), 2500));
    const r = await runQuietly(miniConfig(target.url, ['test/fixtures/mini/budget/*.check.ts'], { reportsDir: join(tmp, 'budget'), timeoutMs: 10_000, checkTimeoutMs: 3000, concurrency: 4 }));
    // one case after another: the first still waits for its answer when the 2.4 s budget ends
    const inTurn = r.report.checks.find((c) => c.id === 'b.slow-in-turn');
    expect(inTurn?.verdict).toBe('error');
    expect(inTurn?.error).toMatch(/the property ran out of its time \(\d+ ms of the check's run.checkTimeoutMs 3000 ms\) before any of its 200 cases ended/);
    for (const c of r.report.checks) expect(c.error ?? '', c.id).not.toMatch(/Error: null/);
  }, 60_000);
});
