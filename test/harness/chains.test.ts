/**
 * Where the time goes: each check measures, as its exchanges end, its longest chain of requests sent one after
 * another (each after the previous answer), without keeping the exchanges; the reports list it per check and
 * summary.md the ten slowest checks. The run's requests in flight count against one limit shared by every worker.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { newChainTally, noteChain, noteChainTimes, reportedChain } from '../../harness/reporting/chains.js';
import { IN_FLIGHT_CELLS, LatencyWatch, shareInFlight, SharedInFlight, SLOW_RATIO } from '../../harness/transport/in-flight.js';
import { renderSummary } from '../../harness/reporting/summary.js';
import type { RunReport } from '../../harness/reporting/model.js';
import type { CheckResultMeta } from '../../harness/types.js';
import { random } from './seeded-random.js';


/**
 * the longest chain by brute force: intervals each starting at or after the previous one's end (within the millisecond
 * a recorded start is cut to), most time summed
 */
function exactLongest(xs: Array<{ start: number; end: number }>): { ms: number; requests: number } {
  const sorted = [...xs].sort((a, b) => a.end - b.end);
  const best: Array<{ ms: number; requests: number }> = [];
  let top = { ms: 0, requests: 0 };
  sorted.forEach((x, i) => {
    let before = { ms: 0, requests: 0 };
    for (let j = 0; j < i; j++) if (sorted[j]!.end <= x.start + 1 && best[j]!.ms > before.ms) before = best[j]!;
    best[i] = { ms: before.ms + (x.end - x.start), requests: before.requests + 1 };
    if (best[i]!.ms > top.ms) top = best[i]!;
  });
  return top;
}

/** exchanges as a check sees them: in the order they end */
const feed = (xs: Array<{ start: number; end: number }>) => {
  const c = newChainTally();
  for (const x of [...xs].sort((a, b) => a.end - b.end)) noteChainTimes(c, x.start, x.end - x.start);
  return c;
};

describe('the longest chain of a check', () => {
  it('sums requests sent one after another, and takes the longest of requests sent at once', () => {
    const chain = Array.from({ length: 5 }, (_, i) => ({ start: i * 100 + 2, end: i * 100 + 90 }));
    expect(reportedChain(feed(chain))).toEqual({ ms: 5 * 88, requests: 5 });
    const atOnce = Array.from({ length: 5 }, (_, i) => ({ start: 0, end: 50 + i * 10 }));
    expect(reportedChain(feed(atOnce))).toEqual({ ms: 90, requests: 1 });
    // a fan-out of three, then one request after all of them answered: the slowest of the three, then the last one
    const fan = [{ start: 0, end: 30 }, { start: 0, end: 80 }, { start: 1, end: 50 }, { start: 85, end: 120 }];
    expect(reportedChain(feed(fan))).toEqual({ ms: 80 + 35, requests: 2 });
    expect(reportedChain(newChainTally())).toBeUndefined();
  });

  it('finds the longest chain of any schedule, exactly, keeping a few steps only', () => {
    const next = random(23);
    for (let round = 0; round < 200; round++) {
      // lanes of requests one after another with gaps, beside overlapping ones, at whole milliseconds
      const xs: Array<{ start: number; end: number }> = [];
      const lanes = 1 + Math.floor(next() * 6);
      for (let l = 0; l < lanes; l++) {
        let t = Math.floor(next() * 50);
        const n = 1 + Math.floor(next() * 12);
        for (let i = 0; i < n; i++) {
          const d = 1 + Math.floor(next() * 400);
          xs.push({ start: t, end: t + d });
          t += d + 2 + Math.floor(next() * 30);
        }
      }
      const c = feed(xs);
      const want = exactLongest(xs);
      expect(c.longestMs).toBe(want.ms);
      expect(c.longestRequests).toBe(want.requests);
    }
  });

  it('stays bounded over a long check at nightly depth', () => {
    const c = newChainTally();
    const next = random(5);
    let t = 0;
    for (let i = 0; i < 100_000; i++) {
      // 16 in flight, each 10-50 ms
      const d = 10 + Math.floor(next() * 40);
      noteChainTimes(c, t, d);
      if (i % 16 === 15) t += 25;
    }
    expect(c.ends.length).toBeLessThanOrEqual(256);
    expect(c.longestRequests).toBeGreaterThan(1000);
  });

  it('reads the recorded start (to the millisecond) and duration of an exchange', () => {
    const c = newChainTally();
    noteChain(c, { startedAt: '2026-01-01T00:00:00.000Z', durationMs: 20.4 });
    // sent 0.6 ms before the recorded end (the start is cut to the millisecond): still after the answer
    noteChain(c, { startedAt: '2026-01-01T00:00:00.020Z', durationMs: 30 });
    noteChain(c, { startedAt: '2026-01-01T00:00:00.010Z', durationMs: 5 });
    expect(reportedChain(c)).toEqual({ ms: 50, requests: 2 });
  });
});

describe('summary.md: where the time goes', () => {
  it('lists the ten slowest checks with their requests and longest chain, and the run\'s longest chain', () => {
    const checks = Array.from({ length: 14 }, (_, i): CheckResultMeta => ({
      id: `ledger.c${i}`, title: `check ${i}`, api: 'ledger', operations: [], requirements: [], file: `suites/ledger/f${i % 3}.test.ts`,
      verdict: 'pass', requests: 3 + i, durationMs: 1000 + i * 500, chain: { ms: i === 2 ? 9000 : 800 + i * 100, requests: i === 2 ? 40 : 2 + i },
    }));
    const report = {
      schemaVersion: 1, suite: { name: 'canton-conformance', version: '0' }, runId: 'r', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:09Z', durationMs: 9000,
      seed: 1, runs: 25, targets: {}, config: {}, selection: { apis: ['ledger'], requirements: [] }, outcome: 'PASSED', exitCode: 0,
      counts: {}, checkCounts: { pass: 14, fail: 0, error: 0, skipped: 0, unsupported: 0 }, requirements: [], checks, runErrors: [], notes: [],
    } satisfies RunReport;
    const md = renderSummary(report);
    const section = md.slice(md.indexOf('## Where the time goes'));
    expect(section).toMatch(/^## Where the time goes \(the 10 slowest of 14 checks/);
    const rows = section.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows).toHaveLength(10);
    expect(rows[0]).toBe('| `ledger.c13` | suites/ledger/f1.test.ts | 7.50 | 16 | 15, 2.10 |');
    expect(rows.some((r) => r.includes('ledger.c3`'))).toBe(false);
    expect(section).toContain('Longest chain of the run: `ledger.c2`, 40 requests one after another, 9.00 s');
  });
});

describe('requests in flight: one limit for the run', () => {
  it('lets threads take slots up to the limit together, and a thread take the slots the others leave', async () => {
    const cells = new Int32Array(new SharedArrayBuffer(12));
    cells[1] = 3;
    const a = new SharedInFlight(cells);
    const b = new SharedInFlight(cells);
    await a.acquire();
    await a.acquire();
    await b.acquire();
    let got = false;
    const waiting = b.acquire().then(() => (got = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(got).toBe(false);
    a.release();
    await waiting;
    expect(b.active).toBe(3);
    // the waiting requests of one thread get slots in their order
    const order: number[] = [];
    const more = [1, 2, 3].map((i) => a.acquire().then(() => order.push(i)));
    for (let i = 0; i < 3; i++) b.release();
    await Promise.all(more);
    expect(order).toEqual([1, 2, 3]);
    expect(a.active).toBe(3);
  });

  it('gives a freed slot to an urgent request (a check holding shared state) before the others, in any thread', async () => {
    const cells = new Int32Array(new SharedArrayBuffer(IN_FLIGHT_CELLS * 4));
    cells[1] = 2;
    const a = new SharedInFlight(cells);
    const b = new SharedInFlight(cells);
    await a.acquire();
    await a.acquire();
    const order: string[] = [];
    // b's plain requests wait first, then a's urgent one
    const plain = [1, 2].map((i) => b.acquire().then(() => order.push(`plain ${i}`)));
    await new Promise((r) => setTimeout(r, 10));
    const urgent = a.acquire(true).then(() => order.push('urgent'));
    await new Promise((r) => setTimeout(r, 10));
    // every thread sees the requests waiting in all of them (a worker starts no further check meanwhile)
    expect([a.waitingAll, b.waitingAll]).toEqual([3, 3]);
    a.release();
    await urgent;
    expect(order).toEqual(['urgent']);
    a.release();
    a.release();
    await Promise.all(plain);
    expect(order).toEqual(['urgent', 'plain 1', 'plain 2']);
    expect(b.waitingAll).toBe(0);
    // no urgent request waits any more: a plain one takes a free slot at once
    expect(a.active).toBe(2);
  });

  it('gives a freed slot to a request whose check has none other in flight before the requests of checks that have some', async () => {
    const cells = new Int32Array(new SharedArrayBuffer(IN_FLIGHT_CELLS * 4));
    cells[1] = 1;
    const gate = new SharedInFlight(cells);
    await gate.acquire();
    const order: string[] = [];
    // a property's cases wait first (their check has requests in flight), then a chain's next step
    const flood = [1, 2, 3].map((i) => gate.acquire(false, false).then(() => order.push(`case ${i}`)));
    await new Promise((r) => setTimeout(r, 10));
    const step = gate.acquire(false, true).then(() => order.push('chain step'));
    const urgent = gate.acquire(true).then(() => order.push('urgent'));
    for (let i = 0; i < 5; i++) {
      gate.release();
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all([...flood, step, urgent]);
    expect(order).toEqual(['urgent', 'chain step', 'case 1', 'case 2', 'case 3']);
  });

  it('hands the run\'s counter to a worker thread, whose slots the run\'s other threads then wait for', async () => {
    const channel = `cc-test-in-flight-${process.pid}-${Date.now()}`;
    const shared = shareInFlight(channel, 2);
    const module = new URL('../../harness/transport/in-flight.ts', import.meta.url).href;
    const worker = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads');
       import(workerData.tsx).then((tsx) => tsx.register()).then(() => import(workerData.module)).then(async ({ sharedInFlight }) => {
         const gate = await sharedInFlight(workerData.channel);
         await gate.acquire(); await gate.acquire();
         parentPort.postMessage('holding');
         parentPort.once('message', () => { gate.release(); gate.release(); parentPort.postMessage('released'); });
       });`,
      { eval: true, workerData: { module, channel, tsx: pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs') } },
    );
    try {
      const next = () => new Promise<unknown>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      expect(await next()).toBe('holding');
      expect(shared.gate.active).toBe(2);
      let got = false;
      const mine = shared.gate.acquire().then(() => (got = true));
      await new Promise((r) => setTimeout(r, 30));
      expect(got).toBe(false);
      worker.postMessage('release');
      expect(await next()).toBe('released');
      await mine;
      expect(shared.gate.active).toBe(1);
      shared.gate.release();
    } finally {
      shared.close();
      await worker.terminate();
    }
  });
});

describe('requests in flight: the limit adapts to the target\'s answers', () => {
  const cellsOf = (limit: number) => {
    const cells = new Int32Array(new SharedArrayBuffer(IN_FLIGHT_CELLS * 4));
    cells[1] = limit;
    cells[3] = limit;
    return cells;
  };
  const answer = (gate: SharedInFlight, status: number | undefined) => gate.release(status);

  it('halves on a 429 or 503, once per burst of refusals, and never below 1', async () => {
    const cells = cellsOf(32);
    const gate = new SharedInFlight(cells);
    for (let i = 0; i < 8; i++) await gate.acquire();
    // eight refusals of one burst: one step down
    for (let i = 0; i < 8; i++) answer(gate, i % 2 === 0 ? 429 : 503);
    expect(gate.limit).toBe(16);
    // a limit's worth of releases later, another refusal steps down again
    for (let i = 0; i < 16; i++) {
      await gate.acquire();
      answer(gate, undefined);
    }
    await gate.acquire();
    answer(gate, 503);
    expect(gate.limit).toBe(8);
    for (let k = 0; k < 10; k++) {
      for (let i = 0; i < 32; i++) {
        await gate.acquire();
        answer(gate, undefined);
      }
      await gate.acquire();
      answer(gate, 429);
    }
    expect(gate.limit).toBe(1);
  });

  it('grows by one after a limit\'s worth of answers that were not refusals, up to run.concurrency', async () => {
    const cells = cellsOf(4);
    const gate = new SharedInFlight(cells);
    await gate.acquire();
    answer(gate, 429);
    expect(gate.limit).toBe(2);
    const ok = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await gate.acquire();
        answer(gate, 200);
      }
    };
    await ok(1);
    expect(gate.limit).toBe(2);
    await ok(1);
    expect(gate.limit).toBe(3);
    await ok(3);
    expect(gate.limit).toBe(4);
    await ok(50);
    expect(gate.limit).toBe(4);
    // a 4xx or 5xx other than 429 and 503 is an answer, not a refusal; no answer (a transport error) tells nothing
    await gate.acquire();
    answer(gate, 500);
    expect(gate.limit).toBe(4);
  });

  it('takes a quarter off when answers take SLOW_RATIO times their operation\'s usual, and grows again once they are usual', async () => {
    const cells = cellsOf(32);
    const gate = new SharedInFlight(cells, new LatencyWatch(() => false));
    const reply = async (n: number, key: string, ms: number, status = 200) => {
      for (let i = 0; i < n; i++) {
        await gate.acquire();
        gate.release(status, { key, ms });
      }
    };
    // reads answered in 20 ms and uploads in 800 ms, each its own usual: the limit stays where it is
    for (let k = 0; k < 20; k++) {
      await reply(3, 'GET /v2/version', 20);
      await reply(1, 'POST /v2/packages', 800);
    }
    expect(gate.limit).toBe(32);
    expect(gate.lowered).toEqual({ refused: 0, slow: 0 });
    // reads now take 200 ms (the target queues them): a quarter off, once per limit's worth of answers
    await reply(12, 'GET /v2/version', 200);
    expect(gate.limit).toBe(24);
    await reply(12, 'GET /v2/version', 200);
    expect(gate.limit).toBe(24);
    await reply(6, 'GET /v2/version', 200);
    expect(gate.limit).toBe(18);
    expect(gate.lowered).toEqual({ refused: 0, slow: 2 });
    // usual again: once the average is back under SLOW_RATIO, one step up per limit's worth of answers
    await reply(60, 'GET /v2/version', 20);
    expect(gate.limit).toBeGreaterThan(18);
    expect(gate.limit).toBeLessThanOrEqual(21);
  });

  it('reads an answer\'s time against the usual of its own operation, after a few answers of it', () => {
    const watch = new LatencyWatch(() => false);
    // the first answers of an operation only set its usual
    expect(watch.observe({ key: 'a', ms: 20 })).toBeUndefined();
    expect(watch.observe({ key: 'a', ms: 25 })).toBeUndefined();
    expect(watch.observe({ key: 'a', ms: 20 })).toBeUndefined();
    expect(watch.observe({ key: 'a', ms: 22 })).toBe('usual');
    // a slow operation at its usual is not slow; a few milliseconds on a 1 ms answer are jitter
    for (let i = 0; i < 4; i++) watch.observe({ key: 'upload', ms: 900 });
    for (let i = 0; i < 10; i++) watch.observe({ key: 'fast', ms: i % 2 === 0 ? 1 : 6 });
    expect(watch.ratio).toBeLessThan(1.5);
    // answers at four times their usual, sustained: slow
    let said: string | undefined;
    for (let i = 0; i < 30; i++) said = watch.observe({ key: 'upload', ms: 3600 });
    expect(said).toBe('slow');
    expect(watch.ratio).toBeGreaterThanOrEqual(SLOW_RATIO);
    // while this machine's cores are busy an answer's time is the machine's: it counts for nothing
    let busy = true;
    const watched = new LatencyWatch(() => busy);
    for (let i = 0; i < 10; i++) expect(watched.observe({ key: 'a', ms: i < 5 ? 20 : 2000 })).toBeUndefined();
    busy = false;
    for (let i = 0; i < 3; i++) expect(watched.observe({ key: 'a', ms: 20 })).toBeUndefined();
    expect(watched.observe({ key: 'a', ms: 20 })).toBe('usual');
    // a slowness that stays becomes, in time, the operation's usual
    for (let i = 0; i < 1000; i++) said = watch.observe({ key: 'upload', ms: 3600 });
    expect(said).toBe('usual');
  });

  it('is the same for the same answers, whatever the timing (the run\'s counter made without adapting stays put)', async () => {
    const fixed = shareInFlight(`cc-test-fixed-${process.pid}-${Date.now()}`, 8, { adaptive: false });
    try {
      await fixed.gate.acquire();
      fixed.gate.release(429);
      expect(fixed.gate.limit).toBe(8);
    } finally {
      fixed.close();
    }
  });
});
