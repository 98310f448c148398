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
