/**
 * A timeout that comes from this machine is not the target's: while the suite's own thread was starved, a request's
 * timeout is given its stalled time back and a read is retried once before the timeout is judged; the report says this
 * machine was overloaded, and a clean target ends the run with exit 0, not 3.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, miniConfig, runQuietly, startStub, tempDir } from '../robustness/harness.js';

const tmp = tempDir('own-stall');
afterAll(cleanup);

describe('a run whose check thread is starved while a request is in flight', () => {
  it('retries the read once, passes, exits 0 and says the machine was overloaded in conformance.json and summary.md', async () => {
    let seen = 0;
    const target = await startStub((_req, res) => {
      // the first request is never answered (a target that lost it); the retry is answered at once
      if (seen++ === 0) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"items":[]}');
    });
    const r = await runQuietly(miniConfig(target.url, ['test/fixtures/mini/own-stall/*.check.ts'], { reportsDir: join(tmp, 'r'), timeoutMs: 400, checkTimeoutMs: 20_000, retries: 0, seed: 1 }));
    const check = r.report.checks.find((c) => c.id === 's.starved');
    expect(check?.verdict, check?.error ?? check?.reason).toBe('pass');
    expect(r.report.exitCode).toBe(0);
    expect(seen).toBe(2);
    const json = JSON.parse(readFileSync(join(r.dir, 'conformance.json'), 'utf8')) as { traffic?: { ownStalls?: number } };
    expect(json.traffic?.ownStalls).toBe(1);
    expect(readFileSync(join(r.dir, 'summary.md'), 'utf8')).toMatch(/this machine was overloaded:\*\* 1 request timed out or lost its connection while the suite's own thread was stalled/);
  }, 60_000);
});
