/**
 * run.maxRunMs: a run against a target too slow to finish within the limit is cut at the limit; no further check
 * starts, the reports of what ran are written, say the run was cut at the limit, and the run exits 3 (1 when a MUST
 * failed among what ran).
 *
 * The target cannot let the run end first, whatever the machine's speed (a stub answering after a fixed
 * 300 ms would let a fast machine finish every check as the limit fired): it holds every request unanswered until the CLI has
 * said the limit was reached, and answers 404 from then on. No check can end before its first answer, and no request
 * times out before the limit (run.timeoutMs and checkTimeoutMs are longer than run.maxRunMs, and both start after the
 * run does).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, expectEndedWithReports, spawnCli, startStub, tempDir, writeConfig, type Stub } from '../robustness/harness.js';

const tmp = tempDir('maxrun');

// long enough for the first requests to be held on a loaded machine (the CLI and its workers start in some 1.5 s on an
// idle one, several times that with busy processes on every core): the limit must find the target waited on
const LIMIT_MS = 20_000;
const REACHED = `run.maxRunMs (${LIMIT_MS} ms) reached`;

/** Holds every request until `open()`; answers 404 at once after it (the held ones too). */
const held = new Set<ServerResponse>();
let gateOpen = false;
let requestsBeforeGate = 0;
const answer = (res: ServerResponse) => {
  if (res.destroyed) return;
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"error":"not found"}');
};
const open = () => {
  gateOpen = true;
  for (const res of held) answer(res);
  held.clear();
};
let server: Stub;

beforeAll(async () => {
  server = await startStub((_req, res) => {
    if (gateOpen) return answer(res);
    requestsBeforeGate++;
    held.add(res);
  });
});

afterAll(async () => {
  for (const res of held) res.destroy();
  await cleanup();
});

describe('run.maxRunMs', () => {
  it('cuts the run at the limit, writes the reports of what ran, says so, and exits 3 (or 1)', async () => {
    // timeoutMs and checkTimeoutMs far beyond the limit: nothing ends a check before the target answers
    const config = writeConfig(join(tmp, 'config.json'), { run: { maxRunMs: LIMIT_MS, timeoutMs: 20000, checkTimeoutMs: 30000, html: false, compare: false, only: ['scan'], reportsDir: join(tmp, 'reports'), preflight: false }, targets: { scan: { url: server.url, version: '0.8.0' } } }, {});
    const started = Date.now();
    const run = await spawnCli(['run', '--config', config], {
      cwd: tmp,
      limitMs: 100_000,
      onStderr: (err) => {
        if (!gateOpen && err.includes(REACHED)) open();
      },
    });
    const { out, err, code } = run;
    expect(run.killed, err).toBe(false);
    expect(Date.now() - started).toBeLessThan(90_000);
    expect(err).toContain(REACHED);
    // the target was waited on when the limit came
    expect(requestsBeforeGate).toBeGreaterThan(0);
    const file = join(tmp, 'reports', 'latest', 'conformance.json');
    expect(existsSync(file)).toBe(true);
    const rep = JSON.parse(readFileSync(file, 'utf8')) as {
      outcome: string;
      exitCode: number;
      interrupted?: { by?: string; atOnce: boolean };
      runErrors: string[];
      checks: Array<{ verdict?: string; reason?: string }>;
    };
    expect(rep.outcome).toMatch(new RegExp(`^INTERRUPTED \\(run\\.maxRunMs limit of ${LIMIT_MS} ms\\)`));
    expect(rep.interrupted).toEqual({ by: `run.maxRunMs limit of ${LIMIT_MS} ms`, atOnce: false });
    // 3, or 1 when a MUST requirement failed among the checks that ran (this target answers 404 to everything)
    expect(code).toBe(rep.exitCode);
    expect([1, 3]).toContain(rep.exitCode);
    // no check started after the limit: the ones that had not started are skipped as such (at most run.concurrency
    // checks run at once, and none could end before the limit, so some had not started)
    const notStarted = rep.checks.filter((c) => c.verdict === 'skipped' && /interrupted before this check started/.test(c.reason ?? ''));
    expect(notStarted.length).toBeGreaterThan(0);
    expect(rep.runErrors.join('\n')).toMatch(new RegExp(`cut at the run\\.maxRunMs limit of ${LIMIT_MS} ms`));
    expect(out).toContain('INTERRUPTED');
    expect(out + err).not.toMatch(/\n\s+at /);
  }, 120_000);

  it('a run that ends before the limit says nothing of it', async () => {
    const fast = await startStub((_req, res) => answer(res));
    const config = writeConfig(join(tmp, 'fast.json'), { run: { maxRunMs: 600000, html: false, compare: false, only: ['scan'], reportsDir: join(tmp, 'fast-reports'), preflight: false }, targets: { scan: { url: fast.url, version: '0.8.0' } } }, {});
    const run = await spawnCli(['run', '--config', config], { cwd: tmp, limitMs: 60_000 });
    expect(run.err).not.toContain('run.maxRunMs');
    const rep = expectEndedWithReports(run, join(tmp, 'fast-reports'), [0, 1, 3]) as unknown as { outcome: string; exitCode: number; interrupted?: unknown; runErrors: string[] };
    expect(rep.interrupted).toBeUndefined();
    expect(rep.outcome).not.toMatch(/INTERRUPTED/);
    expect(rep.runErrors.join('\n')).not.toMatch(/maxRunMs/);
  }, 70_000);
});
