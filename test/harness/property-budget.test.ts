/**
 * A property stops at its time budget (80% of run.checkTimeoutMs) and passes with the cases it ran: the reports say
 * how many of how many (conformance.json's plannedRuns, summary.md's properties table), so a nightly run that lost depth
 * says so (the benchmark counts them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../../harness/run/runner.js';
import { renderSummary } from '../../harness/reporting/summary.js';
import { miniConfig } from '../robustness/harness.js';

describe('a property whose time runs out', () => {
  it('passes with the cases it ran, and the reports say how many of how many', async () => {
    // every answer after 200 ms: 200 cases four at once take 10 s, against a 4.8 s budget (80% of 6 s), which leaves a
    // loaded machine seconds for the first cases
    const server = createServer((_req, res) => void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[]}'), 200));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const reports = mkdtempSync(join(tmpdir(), 'cc-budget-'));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const config = miniConfig(url, ['test/fixtures/mini/budget/*.check.ts'], { reportsDir: reports, checkTimeoutMs: 6000, concurrency: 4 });
      const { report } = await runConformance(config, { write: () => undefined });
      expect(report.checks.map((c) => c.verdict).sort()).toEqual(['pass', 'pass']);
      for (const c of report.checks) {
        const p = c.properties?.[0];
        expect(p?.plannedRuns, c.id).toBe(200);
        expect(p!.numRuns, c.id).toBeGreaterThan(0);
        expect(p!.numRuns, c.id).toBeLessThan(200);
      }
      expect(renderSummary(report)).toMatch(/\| \d+ of 200 \(its time ran out\) \|/);
    } finally {
      server.closeAllConnections();
      server.close();
      rmSync(reports, { recursive: true, force: true });
    }
  }, 60_000);
});
