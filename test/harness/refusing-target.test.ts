/**
 * A target that refuses everything with 503 ends a run in bounded time: a check's clean-up steps are tried (each with
 * its retries) until two in a row were refused as overloaded, and the later ones are listed as not tried instead of
 * each waiting out its own retries (against such a target a property that left twenty users to delete waited out the
 * check's whole time limit). Counted at the target, not timed: the steps tried are the requests it saw.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, miniConfig, runQuietly, startStub, tempDir } from '../robustness/harness.js';

const tmp = tempDir('refusing');
afterAll(cleanup);

describe('a target answering 503 to everything', () => {
  it('stops a check clean-up after two steps refused in a row, listing the rest as not tried', async () => {
    const steps: string[] = [];
    const target = await startStub((req, res) => {
      const step = new URL(req.url ?? '/', 'http://x').searchParams.get('step');
      if (step !== null) steps.push(step);
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '0' });
      res.end('Service Unavailable');
    });
    const config = miniConfig(target.url, ['test/fixtures/mini/cleanup-refused/*.check.ts'], { reportsDir: join(tmp, 'r'), timeoutMs: 5000, checkTimeoutMs: 60_000, retries: 1, seed: 1 });
    const r = await runQuietly(config);
    const check = r.report.checks.find((c) => c.id === 'v.cleanup-refused');
    expect(check?.verdict).toBe('error');
    // the last step registered is the first run (reverse order): steps 9 and 8 tried, the others not
    expect([...new Set(steps)]).toEqual(['9', '8']);
    const left = (check as { notCleanedUp?: string[] } | undefined)?.notCleanedUp ?? [];
    expect(left).toHaveLength(10);
    expect(left.filter((p) => /not tried, the target refused the 2 clean-up steps before it as overloaded/.test(p))).toHaveLength(8);
  }, 120_000);
});
