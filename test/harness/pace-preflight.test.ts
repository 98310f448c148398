/**
 * run.maxRequestsPerSecond counts the preflight's reads too: they reach the same target a moment before the checks'
 * requests, and the run's window holds them with the rest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preflight } from '../../harness/setup/preflight.js';
import { runConformance } from '../../harness/run/runner.js';
import { miniConfig } from '../robustness/harness.js';
import { arrivalCounter, busiestWindow, type ArrivalCounter } from '../load/arrivals.js';

describe('the preflight under run.maxRequestsPerSecond', () => {
  let counter: ArrivalCounter;
  beforeAll(async () => void (counter = await arrivalCounter()));
  afterAll(async () => counter?.close());

  it('keeps to the limit, and the run after it counts its reads in the same window', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'cc-pace-preflight-'));
    try {
      const config = miniConfig(counter.url, ['test/fixtures/mini/pace/*.check.ts'], { reportsDir: reports, maxRequestsPerSecond: 4, checkTimeoutMs: 60_000 });
      // three preflights one after another (two reads each against this target), then the run: its checks burst
      for (let i = 0; i < 3; i++) await preflight(config);
      const reads = counter.arrivals.length;
      expect(reads).toBeGreaterThanOrEqual(6);
      const { report } = await runConformance(config, { write: () => undefined });
      expect(report.checks.map((c) => c.verdict)).toEqual(['pass', 'pass']);
      expect(counter.arrivals.length).toBeGreaterThan(reads);
      const at = counter.arrivals.map((a) => a - counter.arrivals[0]!);
      expect(busiestWindow(counter.arrivals.slice(0, reads), 1000), `reads (ms from the first): ${at.slice(0, reads).join(' ')}`).toBeLessThanOrEqual(5);
      expect(busiestWindow(counter.arrivals, 1000), `arrivals (ms from the first): ${at.join(' ')}`).toBeLessThanOrEqual(5);
    } finally {
      rmSync(reports, { recursive: true, force: true });
    }
  }, 120_000);
});
