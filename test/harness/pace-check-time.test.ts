/**
 * Time a check's requests wait for their turn under run.maxRequestsPerSecond is the run's, not the check's: its time
 * limits (run.checkTimeoutMs, the test's bound around it, its properties' budgets) leave it out, so that a slow rate
 * makes a run longer, never its checks errors. The limit still binds: the extension is bounded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../harness/run/runner.js';
import { PacedTime, RequestPace, pacedTimer } from '../../harness/transport/pace.js';
import { HttpClient } from '../../harness/transport/http.js';
import { miniConfig } from '../robustness/harness.js';
import { arrivalCounter, busiestWindow, type ArrivalCounter } from '../load/arrivals.js';

describe('a check under a rate limit slower than its time limit', () => {
  let counter: ArrivalCounter;
  beforeAll(async () => void (counter = await arrivalCounter()));
  afterAll(async () => counter?.close());

  it('passes: the time its requests waited for their turn is not counted against run.checkTimeoutMs', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'cc-pace-time-'));
    try {
      // 38 requests at 2 a second take 19 s, each check's 10 or 14 of them 5 s or more, against a check time limit of 5 s
      // (and 10 s for the test around it); the time of its own (the first request compiles the schemas) has room on a
      // busy machine
      const config = miniConfig(counter.url, ['test/fixtures/mini/pace-limit/*.check.ts'], { reportsDir: reports, checkTimeoutMs: 5000, maxRequestsPerSecond: 2, workers: 1 });
      const { report } = await runConformance(config, { write: () => undefined });
      const byId = new Map(report.checks.map((c) => [c.id, c]));
      for (const id of ['r.in-turn', 'r.cases-at-once', 'r.cases-in-turn']) expect(byId.get(id)?.verdict, `${id}: ${byId.get(id)?.error ?? ''}`).toBe('pass');
      // every case of the properties ran, at once or one after another: their budgets left the waits out too
      for (const [id, runs] of [['r.cases-at-once', 14], ['r.cases-in-turn', 10]] as const) {
        const p = byId.get(id)?.properties?.[0];
        expect(p?.numRuns, id).toBe(runs);
        expect(p?.plannedRuns, id).toBeUndefined();
      }
      expect(counter.arrivals).toHaveLength(38);
      expect(counter.arrivals[37]! - counter.arrivals[0]!).toBeGreaterThan(14_000);
      expect(busiestWindow(counter.arrivals, 1000)).toBeLessThanOrEqual(3);
    } finally {
      rmSync(reports, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a check waiting for the lock of a check held back by the rate limit', () => {
  let counter: ArrivalCounter;
  beforeAll(async () => void (counter = await arrivalCounter()));
  afterAll(async () => counter?.close());

  it('waits for it: the time the run\'s requests waited for their turn is not counted against the wait', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'cc-pace-lock-'));
    try {
      // two worker threads, one holder each: each holder's 8 requests at 1 a second take 7 s or more, the second
      // waits for the first as long, against a check time limit (and lock wait) of 5 s
      const config = miniConfig(counter.url, ['test/fixtures/mini/pace-lock/*.check.ts'], { reportsDir: reports, checkTimeoutMs: 5000, maxRequestsPerSecond: 1, workers: 2 });
      const { report } = await runConformance(config, { write: () => undefined });
      for (const c of report.checks) expect(c.verdict, `${c.id}: ${c.error ?? ''}`).toBe('pass');
      expect(report.checks).toHaveLength(2);
      expect(counter.arrivals).toHaveLength(16);
    } finally {
      rmSync(reports, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a request waiting for a slot in flight under a rate limit', () => {
  let counter: ArrivalCounter;
  beforeAll(async () => void (counter = await arrivalCounter()));
  afterAll(async () => counter?.close());

  it('counts that wait as paced: the slots are held by requests waiting for their turn', async () => {
    const memory = { cells: new Int32Array(new SharedArrayBuffer(4 * 4200)), base: Date.now() };
    const pace = new RequestPace(1, 1, 0, Date.now, Promise.resolve(memory));
    // one slot in flight in this thread, taken by the other client's request, which then waits a second for its turn
    // (a request a second: one just left)
    await pace.take();
    const other = new HttpClient({ api: 'scan', baseUrl: counter.url, timeoutMs: 10_000, maxResponseBytes: 1 << 20, pace, maxInFlight: 1 });
    const paced = new PacedTime();
    const client = new HttpClient({ api: 'scan', baseUrl: counter.url, timeoutMs: 10_000, maxResponseBytes: 1 << 20, pace, pacedTime: paced, maxInFlight: 1 });
    const theirs = other.send({ method: 'GET', path: '/x' });
    await new Promise((r) => setTimeout(r, 20));
    const t0 = performance.now();
    await client.send({ method: 'GET', path: '/y' });
    const waited = performance.now() - t0;
    await theirs;
    // for the slot (about a second), then for its own turn (another)
    expect(waited).toBeGreaterThan(1500);
    // all of it was the rate's
    expect(paced.ms).toBeGreaterThan(waited - 300);
    // no limit in flight for what runs after in this thread
    void new HttpClient({ api: 'scan', baseUrl: counter.url, timeoutMs: 1000, maxResponseBytes: 1024, maxInFlight: Number.POSITIVE_INFINITY });
  }, 30_000);
});

describe('PacedTime and pacedTimer', () => {
  it('counts requests waiting side by side once', () => {
    let now = 0;
    const paced = new PacedTime(() => now);
    paced.enter();
    now = 100;
    paced.enter();
    now = 300;
    paced.leave();
    expect(paced.ms).toBe(300);
    now = 400;
    paced.leave();
    now = 1000;
    expect(paced.ms).toBe(400);
    // a leave without an enter changes nothing
    paced.leave();
    expect(paced.ms).toBe(400);
  });

  it('fires after its time plus the paced time that came while it ran, at most the bound given', async () => {
    let now = 0;
    const paced = new PacedTime(() => now);
    paced.enter();
    now = 500;
    // waiting before the timer started is not its own
    const t0 = performance.now();
    const firing = new Promise<number>((resolve) => pacedTimer(50, paced, () => resolve(performance.now() - t0), 150));
    // ten seconds of waiting come while it runs: the timer of 50 ms may grow by 150 ms at most
    now = 10_000;
    const fired = await firing;
    expect(fired).toBeGreaterThanOrEqual(195);
    expect(fired).toBeLessThan(5000);
  });

  it('fires after its own time when nothing waited', async () => {
    const t0 = performance.now();
    const fired = await new Promise<number>((resolve) => pacedTimer(50, new PacedTime(), () => resolve(performance.now() - t0)));
    expect(fired).toBeGreaterThanOrEqual(49);
    expect(fired).toBeLessThan(5000);
  });

  it('is cleared by the function it returns', async () => {
    let fired = false;
    const clear = pacedTimer(20, undefined, () => void (fired = true));
    clear();
    await new Promise((r) => setTimeout(r, 100));
    expect(fired).toBe(false);
  });
});
