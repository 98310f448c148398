/**
 * A run stopped at once (SIGTERM or a second Ctrl-C: the CLI aborts the runner's stopNow signal) cuts off the checks
 * that are running and still runs their clean-up, within a bound: the check below waits on a request
 * the target never answers; once that request arrives, the run is stopped at once. Its first clean-up step must reach
 * the target, its second (held by the target too) is cut at the bound and listed as not cleaned up, and the run ends
 * within the bound with a report marked interrupted. (test/harness/signals.test.ts covers the signals themselves.)
 */
import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FINAL_GRACE_MS, STOP_CLEANUP_MS } from '../../harness/run/stop-now.js';
import { cleanup, json, miniConfig, runQuietly, startStub, tempDir } from './harness.js';

const tmp = tempDir('stop-cleanup');
afterAll(cleanup);

/** The mini stop check (test/fixtures/mini/stop) against a target; requests wait 60 s for an answer, the check 120 s. */
const stopConfig = (url: string, reports: string) =>
  miniConfig(url, ['test/fixtures/mini/stop/*.check.ts'], { reportsDir: join(tmp, reports), retries: 0, timeoutMs: 60_000, checkTimeoutMs: 120_000 });

describe('a run stopped at once', () => {
  it('cuts off the running check and runs its clean-up within the bound', async () => {
    const steps: string[] = [];
    const held = new Set<ServerResponse>();
    const stopNow = new AbortController();
    let stoppedAt = 0;
    const server = await startStub((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const step = url.searchParams.get('step');
      if (step !== null) steps.push(step);
      if (url.searchParams.get('mode') === 'hang') {
        held.add(res);
        if (step === 'body' && stoppedAt === 0) {
          stoppedAt = Date.now();
          stopNow.abort('SIGTERM');
        }
        return;
      }
      json(res, 200, { items: [{ id: 'a', round: 1, expires_at: null }] });
    });
    try {
      const r = await runQuietly(stopConfig(server.url, 'reports'), { stopNow: stopNow.signal });
      const afterStop = Date.now() - stoppedAt;
      expect(stoppedAt).toBeGreaterThan(0);
      // the clean-up bound, and a little for the runner to write the reports
      expect(afterStop).toBeLessThan(STOP_CLEANUP_MS + 6000);
      expect(steps).toEqual(['body', 'undo', 'held']);
      const check = r.report.checks.find((c) => c.id === 'v.stop');
      // cut off before it judged anything: not a verdict on the target
      expect(check?.verdict).toBe('skipped');
      expect(check?.reason).toMatch(/stopped at once/);
      expect(check?.notCleanedUp).toEqual([expect.stringMatching(/^the held step: .*not done within \d+ ms of the run's stop at once/)]);
      expect(r.report.interrupted).toMatchObject({ atOnce: true });
      expect(r.report.exitCode).toBe(3);
    } finally {
      for (const res of held) res.destroy();
      await server.close();
    }
  }, 60_000);

  // a further signal (a second SIGTERM, as coreutils `timeout` sends) shortens the stop's wait: the clean-up
  // held by the target is abandoned FINAL_GRACE_MS after it, not at STOP_CLEANUP_MS, and the reports are still written
  it('a further signal during the clean-up shortens the wait to the final grace; the reports are written', async () => {
    const held = new Set<ServerResponse>();
    const stopNow = new AbortController();
    const hurry = new AbortController();
    let hurriedAt = 0;
    const server = await startStub((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const step = url.searchParams.get('step');
      if (url.searchParams.get('mode') === 'hang') {
        held.add(res);
        if (step === 'body') stopNow.abort('SIGTERM');
        if (step === 'held' && hurriedAt === 0) {
          hurriedAt = Date.now();
          hurry.abort('SIGTERM');
        }
        return;
      }
      json(res, 200, { items: [{ id: 'a', round: 1, expires_at: null }] });
    });
    try {
      let writtenAt = 0;
      const r = await runQuietly(stopConfig(server.url, 'reports-hurried'), { stopNow: stopNow.signal, hurry: hurry.signal, onReportsWritten: () => void (writtenAt = Date.now()) });
      expect(hurriedAt).toBeGreaterThan(0);
      // the final grace and the closing steps (0.5 s each), a little for the reports: far below the clean-up bound
      expect(writtenAt - hurriedAt).toBeGreaterThanOrEqual(FINAL_GRACE_MS - 50);
      expect(writtenAt - hurriedAt).toBeLessThan(STOP_CLEANUP_MS - 2000);
      expect(existsSync(join(r.dir, 'conformance.json'))).toBe(true);
      expect(existsSync(join(r.dir, 'summary.md'))).toBe(true);
      expect(r.report.interrupted).toEqual({ by: 'SIGTERM', atOnce: true });
      expect(r.report.exitCode).toBe(3);
      // the check still cleaning up was abandoned, and the report says so
      expect(r.report.runErrors.join('\n')).toMatch(/abandoned/);
    } finally {
      for (const res of held) res.destroy();
      await server.close();
    }
  }, 60_000);
});
