/**
 * run.maxRequestsPerSecond holds at the target on a busy machine: four processes spin on the machine's cores while a run
 * whose checks burst in two worker threads sends 48 requests at 10 a second; the loopback target counts their
 * arrivals, and no one-second window carries more than the limit plus one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../harness/run/runner.js';
import { RequestPace } from '../../harness/transport/pace.js';
import { miniConfig } from '../robustness/harness.js';
import { startBusy } from '../load/busy.js';
import { arrivalCounter, busiestWindow, type ArrivalCounter } from '../load/arrivals.js';

describe('run.maxRequestsPerSecond on a busy machine', () => {
  let counter: ArrivalCounter;
  let arrivals: number[] = [];
  let url = '';

  beforeAll(async () => {
    counter = await arrivalCounter();
    ({ arrivals, url } = counter);
  });

  afterAll(async () => counter?.close());

  it('lets no one-second window at the target carry more than the limit plus one, with four busy processes', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'cc-pace-busy-'));
    const busy = startBusy(4, 90_000);
    try {
      const config = miniConfig(url, ['test/fixtures/mini/pace-busy/*.check.ts'], { reportsDir: reports, timeoutMs: 10_000, checkTimeoutMs: 60_000, maxRequestsPerSecond: 10, workers: 2 });
      const { report } = await runConformance(config, { write: () => undefined });
      busy.stop();
      expect(report.checks.map((c) => c.verdict)).toEqual(['pass', 'pass']);
      expect(arrivals).toHaveLength(48);
      expect(busiestWindow(arrivals, 1000), `arrivals (ms from the first): ${arrivals.map((a) => a - arrivals[0]!).join(' ')}`).toBeLessThanOrEqual(11);
    } finally {
      busy.stop();
      rmSync(reports, { recursive: true, force: true });
    }
  }, 120_000);

  it('leaves room for requests the target reads up to three slots late: at most the limit plus one in any second there', async () => {
    const memory = { cells: new Int32Array(new SharedArrayBuffer(4 * 4200)), base: Date.now() };
    const pace = new RequestPace(10, 1, 0, Date.now, Promise.resolve(memory));
    // the send times the pace hands out; each may reach the target anywhere up to 300 ms later, so a one-second window
    // at the target can hold the requests sent within any 1.3 s
    const sent = (await Promise.all(Array.from({ length: 25 }, () => pace.take()))).sort((a, b) => a - b);
    expect(busiestWindow(sent, 1299), `sent (ms from the first): ${sent.map((t) => t - sent[0]!).join(' ')}`).toBeLessThanOrEqual(11);
  }, 30_000);

  it('sends one request of those due after a stall, not all: the spacing is read again at the moment of sending', async () => {
    const memory = { cells: new Int32Array(new SharedArrayBuffer(4 * 4200)), base: Date.now() };
    const pace = new RequestPace(10, 1, 0, Date.now, Promise.resolve(memory));
    const sent: number[] = [];
    // ten requests ask at once, then this thread stalls for a second (a machine short of CPU) before any timer runs;
    // each records the send time the pace read when it let it go (a callback's own clock reading would add the delay
    // of a busy machine between that moment and the callback)
    const all = Array.from({ length: 10 }, () => pace.take().then((at) => sent.push(at)));
    const end = Date.now() + 1000;
    while (Date.now() < end);
    await Promise.all(all);
    sent.sort((a, b) => a - b);
    const gaps = sent.slice(1).map((t, i) => t - sent[i]!);
    expect(Math.min(...gaps), `gaps ${gaps.join(' ')}`).toBeGreaterThanOrEqual(99);
  }, 30_000);
});
