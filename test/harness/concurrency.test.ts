/**
 * Concurrency: the in-flight limit of the HTTP client, the locks on shared target state, and the same verdicts at any
 * run.concurrency. run.concurrency is one limit over every worker of a run (a worker takes
 * the slots the others leave), and the verdicts stay those of concurrency 1 with it, however it splits, and when it
 * adapts to a target that refuses load (a gateway answering 503 above 4 requests in flight).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, targetsFromBlock, type Config } from '../../harness/config.js';
import { startReference } from '../../reference/index.js';
import { HttpClient } from '../../harness/transport/http.js';
import { runConformance } from '../../harness/run/runner.js';
import { renderSummary } from '../../harness/reporting/summary.js';
import { lockShared, withSharedState } from '../../harness/run/shared-state.js';
import { miniConfig } from '../robustness/harness.js';
import { forwardTo } from './mini-server.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'mini');

describe('requests in flight', () => {
  it('never sends more requests at once than maxInFlight, and sends them all', async () => {
    let open = 0;
    let most = 0;
    const server = createServer((_req, res) => {
      most = Math.max(most, ++open);
      setTimeout(() => {
        open--;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }, 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const client = new HttpClient({ api: 'scan', baseUrl: url, timeoutMs: 2000, maxResponseBytes: 1024, maxInFlight: 3 });
      const xs = await Promise.all(Array.from({ length: 12 }, () => client.send({ method: 'GET', path: '/x' })));
      expect(xs.map((x) => x.status)).toEqual(Array(12).fill(200));
      expect(most).toBe(3);
    } finally {
      server.closeAllConnections();
      server.close();
      // later clients of this worker set their own limit; this one lifts it for them
      new HttpClient({ api: 'scan', baseUrl: 'http://127.0.0.1:1', timeoutMs: 100, maxResponseBytes: 1, maxInFlight: 1000 });
    }
  });
});

describe('one limit of requests in flight for the whole run', () => {
  it('keeps the requests of all worker threads together within run.concurrency, and lets busy workers use the slots idle ones leave', async () => {
    let open = 0;
    let most = 0;
    let total = 0;
    const server = createServer((_req, res) => {
      total++;
      most = Math.max(most, ++open);
      setTimeout(() => {
        open--;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[]}');
      }, 60);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const reports = mkdtempSync(join(tmpdir(), 'cc-in-flight-'));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // two files of 12 requests at once, in two of the run's four workers: a fixed share would be one request in
      // flight per worker (two in all); the run's one limit lets the two busy workers send four
      const config = miniConfig(url, ['test/fixtures/mini/pace/*.check.ts'], { reportsDir: reports, timeoutMs: 5000, checkTimeoutMs: 20_000, concurrency: 4, workers: 4 });
      const { report } = await runConformance(config, { write: () => undefined });
      expect(report.checks.map((c) => c.verdict)).toEqual(['pass', 'pass']);
      expect(total).toBe(24);
      expect(most).toBe(4);
    } finally {
      server.closeAllConnections();
      server.close();
      rmSync(reports, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a limit that adapts to the target\'s answer times', () => {
  it('comes down when answers slow with the requests the target holds, reports it, and keeps every verdict', async () => {
    // a target that answers in 2 ms until it has answered 60 requests, and from then on queues: each answer takes
    // 2 ms more plus 15 ms for every request it holds (32 in flight: about half a second, 3 in flight: about 50 ms)
    let open = 0;
    let total = 0;
    const openAtArrival: number[] = [];
    const server = createServer((_req, res) => {
      total++;
      open++;
      openAtArrival.push(open);
      setTimeout(() => {
        open--;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[]}');
      }, total <= 60 ? 2 : 2 + 15 * open);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const reports = mkdtempSync(join(tmpdir(), 'cc-latency-'));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const config = miniConfig(url, ['test/fixtures/mini/latency/*.check.ts'], { reportsDir: reports, timeoutMs: 10_000, checkTimeoutMs: 60_000, concurrency: 32, workers: 2 });
      // the project's tests run beside each other: answer times count however busy the machine is
      config.internal = { ...config.internal, latencyIgnoresMachineLoad: true };
      const { report } = await runConformance(config, { write: () => undefined });
      expect(report.checks.map((c) => c.verdict)).toEqual(['pass', 'pass']);
      expect(total).toBe(300);
      // the run started at 32 in flight; answers at three times their usual time brought the limit down, and the
      // report says so
      expect(report.concurrency?.max).toBe(32);
      expect(report.concurrency?.lowered.slow).toBeGreaterThan(0);
      expect(report.concurrency?.lowered.refused).toBe(0);
      expect(renderSummary(report)).toMatch(/the run's limit came down \d+ times? for answers at three times their usual time/);
      // the target held up to the run's limit at first, and far fewer through the last third of the requests (the
      // limit goes up again by one after each run of as many answers that were not slow)
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      expect(Math.max(...openAtArrival)).toBeGreaterThan(16);
      // (at most half the start: on a loaded machine the answer times it reads are noisier, and the limit settles higher)
      expect(median(openAtArrival.slice(200)), openAtArrival.join(' ')).toBeLessThanOrEqual(16);
    } finally {
      server.closeAllConnections();
      server.close();
      rmSync(reports, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('shared target state', () => {
  it('lets only one holder of a resource on a target run at a time; other resources and targets run beside it', async () => {
    const running = new Map<string, number>();
    let overlap = false;
    const hold = async (resource: string, target: string) => {
      const release = await lockShared([resource], target, 5000);
      const key = `${resource}@${target}`;
      const n = (running.get(key) ?? 0) + 1;
      running.set(key, n);
      if (n > 1) overlap = true;
      await new Promise((r) => setTimeout(r, 15));
      running.set(key, n - 1);
      release();
    };
    const t0 = performance.now();
    await Promise.all([...Array.from({ length: 4 }, () => hold('vetting', 'http://a')), hold('vetting', 'http://b'), hold('traffic', 'http://a')]);
    expect(overlap).toBe(false);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(4 * 15 - 5);
  });

  it('lets readers of a resource run beside each other, never beside a holder, and a waiting holder go before new readers', async () => {
    const log: string[] = [];
    let readers = 0;
    let most = 0;
    let holders = 0;
    let mixed = false;
    const read = async (name: string, ms: number) => {
      const release = await lockShared([], 'http://rw', 5000, ['vetting']);
      readers++;
      most = Math.max(most, readers);
      if (holders > 0) mixed = true;
      log.push(`${name} in`);
      await new Promise((r) => setTimeout(r, ms));
      readers--;
      release();
    };
    const hold = async (name: string) => {
      const release = await lockShared(['vetting'], 'http://rw', 5000);
      holders++;
      if (readers > 0 || holders > 1) mixed = true;
      log.push(`${name} in`);
      await new Promise((r) => setTimeout(r, 20));
      holders--;
      release();
    };
    const first = [read('r1', 60), read('r2', 60), read('r3', 60)];
    await new Promise((r) => setTimeout(r, 15));
    // a holder comes while three readers are in: it waits for them; a reader after it (and after the 20 ms the first
    // holder of a resource leaves the readers started beside it) waits for the holder
    const writer = hold('w');
    await new Promise((r) => setTimeout(r, 30));
    const late = read('r4', 10);
    await Promise.all([...first, writer, late]);
    expect(mixed).toBe(false);
    expect(most).toBe(3);
    expect(log.slice(3)).toEqual(['w in', 'r4 in']);
    // readers that waited for a writer go in before the next writer, even one that asks the moment the first lets go
    // (checks of one file that share state run one after another), which then waits for them
    log.length = 0;
    const writers = (async () => {
      await hold('w1');
      await hold('w2');
    })();
    await new Promise((r) => setTimeout(r, 5));
    const waited = [read('r5', 30), read('r6', 30)];
    await Promise.all([writers, ...waited]);
    expect(mixed).toBe(false);
    expect(log[0]).toBe('w1 in');
    expect(log.slice(1, 3).sort()).toEqual(['r5 in', 'r6 in']);
    expect(log[3]).toBe('w2 in');
    // a reader's lock and a holder's of the same resource on another target do not meet
    const other = await lockShared(['vetting'], 'http://rw-other', 50);
    (await lockShared([], 'http://rw', 50, ['vetting']))();
    other();
  });

  it('lets the readers started beside the first holder of a resource go first', async () => {
    const log: string[] = [];
    let mixed = false;
    let inside = 0;
    const enter = async (name: string, reads: boolean) => {
      const release = await lockShared(reads ? [] : ['grace'], 'http://grace', 5000, reads ? ['grace'] : []);
      if (!reads && inside > 0) mixed = true;
      inside++;
      log.push(name);
      await new Promise((r) => setTimeout(r, 10));
      inside--;
      release();
    };
    // the holder asks first, the readers a few milliseconds later (a run's first checks, each after its own set-up)
    const holder = enter('w', false);
    await new Promise((r) => setTimeout(r, 5));
    await Promise.all([holder, enter('r1', true), enter('r2', true)]);
    expect(mixed).toBe(false);
    expect(log).toEqual(['r1', 'r2', 'w']);
    // the next holder of the same resource takes it at once: the reader a moment after it waits
    log.length = 0;
    const next = enter('w2', false);
    await new Promise((r) => setTimeout(r, 5));
    await Promise.all([next, enter('r3', true)]);
    expect(log).toEqual(['w2', 'r3']);
  });

  it('gives up after the wait with an error naming the resource', async () => {
    const release = await lockShared(['busy'], 'http://c', 1000);
    await expect(lockShared(['busy'], 'http://c', 50)).rejects.toThrow(/busy stayed in use/);
    release();
    (await lockShared(['busy'], 'http://c', 50))();
  });

  it('releases the locks when the set-up, the body or the clean-up of their holder throws', async () => {
    const setUp = withSharedState(['fragile'], 'http://d', 1000, async (lockError) => {
      expect(lockError).toBeUndefined();
      throw new Error('set-up broke before the check body');
    });
    await expect(setUp).rejects.toThrow(/set-up broke/);
    // free at once, not after the holder's wait ran out
    (await lockShared(['fragile'], 'http://d', 50))();
    // locks not free in time: the function runs with the error, holding nothing
    const release = await lockShared(['fragile'], 'http://d', 1000);
    const seen = await withSharedState(['fragile'], 'http://d', 30, async (lockError) => (lockError as Error).message);
    expect(seen).toMatch(/fragile stayed in use/);
    release();
    expect(await withSharedState([], 'http://d', 30, async (lockError) => lockError)).toBeUndefined();
  });
});

describe('verdicts at any concurrency', () => {
  const reports = mkdtempSync(join(tmpdir(), 'cc-concurrency-'));
  afterAll(() => rmSync(reports, { recursive: true, force: true }));
  const config = (concurrency: number): Config => ({
    // 20 s per request: the reference serves from this test's own thread, and on a loaded CI machine a queued large page
    // can wait past the default 5 s (a timeout would differ between the two runs without saying anything of the scheduler)
    // (and 180 s per check: with four busy processes on the two cores a check's time is several times its own)
    run: { ...DEFAULT_RUN, reportsDir: join(reports, String(concurrency)), html: false, compare: false, runs: 5, seed: 11, concurrency, timeoutMs: 20_000, checkTimeoutMs: 180_000 },
    targets: {},
    reference: { faults: [] },
    useReference: true,
    sources: ['test'],
  });

  it('a run at concurrency 1, one at the default and one at an uneven split give the same requirement and check verdicts on the reference', async () => {
    const one = await runConformance(config(1), { write: () => undefined });
    const many = await runConformance(config(DEFAULT_RUN.concurrency), { write: () => undefined });
    // three slots over two workers: one check at a time in each, the third slot taken by whichever worker asks first
    const uneven = await runConformance(config(3), { write: () => undefined });
    const verdicts = (r: typeof one) => Object.fromEntries(r.report.requirements.map((q) => [q.id, q.verdict]));
    const checks = (r: typeof one) => Object.fromEntries(r.report.checks.map((c) => [c.id, c.verdict]));
    expect(one.report.checks.length).toBeGreaterThan(200);
    expect(verdicts(many)).toEqual(verdicts(one));
    expect(checks(many)).toEqual(checks(one));
    expect(verdicts(uneven)).toEqual(verdicts(one));
    expect(checks(uneven)).toEqual(checks(one));
    expect(one.report.exitCode).toBe(0);
    // every check reports its longest chain of requests; at concurrency 1 no two requests overlap, so the chain of a
    // check that sends one request at a time is all of its requests
    const chained = one.report.checks.filter((c) => (c.requests ?? 0) > 0);
    expect(chained.every((c) => c.chain !== undefined && c.chain.requests >= 1 && c.chain.requests <= c.requests!)).toBe(true);
    expect(chained.filter((c) => c.chain!.requests === c.requests).length).toBeGreaterThan(chained.length * 0.9);
    // three runs of the whole suite: past 360 s with four busy processes and npm test's other files on the two cores
  }, 1_200_000);

  it('gives the verdicts of concurrency 1 when the limit adapts to a target that answers 503 above 4 requests in flight', async () => {
    const server = await startReference();
    const upstream = new URL(server.urls.ledger);
    // a gateway in front of the reference that sheds load: above 4 requests in flight it answers 503 at once
    let open = 0;
    let refused = 0;
    let forwarded = 0;
    const gateway = createServer((req, res) => {
      if (open >= 4) {
        refused++;
        req.resume();
        res.writeHead(503, { 'content-type': 'text/plain' }).end('overloaded');
        return;
      }
      open++;
      forwarded++;
      let done = false;
      const finish = () => void (done ? undefined : ((done = true), open--));
      res.once('close', finish);
      forwardTo(upstream, req, res);
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    const via = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
    try {
      const block = JSON.parse(JSON.stringify(server.targetConfig()).split(server.urls.ledger).join(via)) as Record<string, unknown>;
      const targets = targetsFromBlock(block, 'the reference behind a load-shedding gateway');
      const run = (concurrency: number) => runConformance({
        // three retries (300, 600, 1200 ms): with the limit left at 32 (not adapting) checks still end in error, about
        // 40% of the requests refused; the reference serves from this thread
        run: { ...DEFAULT_RUN, reportsDir: join(reports, `shed-${concurrency}`), html: false, compare: false, runs: 5, seed: 11, concurrency, timeoutMs: 20_000, retries: 3, retryMaxWaitMs: 10_000, only: ['scan', 'validator', 'registry'] },
        targets: { scan: targets.scan!, validator: targets.validator!, registry: targets.registry! },
        reference: { faults: [] },
        useReference: false,
        sources: ['test'],
        // no file-order cache is written for a test's run
        internal: {},
      }, { write: () => undefined });
      const one = await run(1);
      const refusedAtOne = refused;
      const forwardedAtOne = forwarded;
      const adaptive = await run(DEFAULT_RUN.concurrency);
      const verdicts = (r: typeof one) => Object.fromEntries(r.report.requirements.map((q) => [q.id, q.verdict]));
      const checks = (r: typeof one) => Object.fromEntries(r.report.checks.map((c) => [c.id, c.verdict]));
      expect(one.report.checks.length).toBeGreaterThan(40);
      expect(Object.values(checks(one))).not.toContain('error');
      // the run started at 32 in flight and was refused: its limit came down (and stayed near what the gateway takes),
      // and every refused request was retried until answered: no check ended in error, the verdicts are those of one at a time
      expect(refused - refusedAtOne).toBeGreaterThan(0);
      expect(checks(adaptive)).toEqual(checks(one));
      expect(verdicts(adaptive)).toEqual(verdicts(one));
      // a limit left at 32 has about 45% of its requests refused here, this one about 10%
      expect(refused - refusedAtOne).toBeLessThan((forwarded - forwardedAtOne) / 4);
      // the report says the limit came down for refusals; the run at concurrency 1 had nothing to lower
      expect(adaptive.report.concurrency?.max).toBe(DEFAULT_RUN.concurrency);
      expect(adaptive.report.concurrency?.lowered.refused).toBeGreaterThan(0);
      expect(one.report.concurrency).toEqual({ max: 1, final: 1, lowered: { refused: 0, slow: 0 } });
      expect(renderSummary(adaptive.report)).toMatch(/the run's limit came down \d+ times? for refusals \(429, 503\)/);
    } finally {
      gateway.closeAllConnections();
      gateway.close();
      await server.close();
    }
  }, 240_000);
});
