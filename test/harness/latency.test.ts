/**
 * Response times per operation: each check tallies its exchanges into bounded histograms, the run
 * (and a merge of shards) adds them up. p50 and p95 are within 2.5% of the exact nearest-rank values, the maximum is
 * exact, the histogram stays small however many requests it counts, and adding the parts gives what one tally of all
 * of them gives.
 */
import { describe, expect, it } from 'vitest';
import { addTally, bucketOf, bucketValue, latencyOf, noteLatency, percentile } from '../../harness/reporting/latency.js';
import type { CheckResultMeta, ExchangeRecord, LatencyTally } from '../../harness/types.js';
import { random } from './seeded-random.js';


const exchange = (operationId: string | undefined, durationMs: number, answered = true): ExchangeRecord => ({
  api: 'ledger',
  ...(operationId !== undefined ? { operationId } : {}),
  request: { method: 'GET', url: 'http://x/v2/version', headers: {} },
  ...(answered ? { response: { status: 200, headers: {}, body: '' } } : { transportError: 'timed out' }),
  startedAt: '2026-01-01T00:00:00Z',
  durationMs,
});

const exact = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.max(1, Math.ceil(p * values.length)) - 1]!;

describe('latency histograms', () => {
  it('puts each value in a bucket whose middle is within 2.5% of it (0.05 ms below 1 ms)', () => {
    const next = random(1);
    for (let i = 0; i < 5_000; i++) {
      const v = Math.round(10 ** (next() * 6 - 1) * 10) / 10;
      const mid = bucketValue(bucketOf(v));
      if (v < 1) expect(Math.abs(mid - v)).toBeLessThanOrEqual(0.05 + 1e-9);
      else expect(Math.abs(mid - v) / v).toBeLessThanOrEqual(0.025 + 1e-9);
    }
  });

  it('gives p50 and p95 within 2.5% of the exact ones and the exact maximum, in a bounded number of buckets', () => {
    const next = random(7);
    const values: number[] = [];
    const tallies: Record<string, LatencyTally> = {};
    for (let i = 0; i < 50_000; i++) {
      // most answers fast, a tail of slow ones, a few timeouts near 30 s
      const v = Math.round((next() < 0.9 ? 1 + next() * 20 : next() < 0.99 ? 20 + next() * 2000 : 29_000 + next() * 1000) * 10) / 10;
      values.push(v);
      noteLatency(tallies, exchange('getVersion', v));
    }
    noteLatency(tallies, exchange('getVersion', 60_000, false));
    const t = tallies['ledger getVersion']!;
    expect(t.requests).toBe(50_001);
    expect(t.noResponse).toBe(1);
    expect(t.maxMs).toBe(Math.max(...values));
    for (const p of [0.5, 0.95]) {
      const want = exact(values, p);
      expect(Math.abs(percentile(t, p)! - want) / want, `p${p * 100}`).toBeLessThanOrEqual(0.025);
    }
    expect(Object.keys(t.buckets).length).toBeLessThan(300);
    // what a check carries to the main thread: small, and the same after JSON
    expect(JSON.stringify(t).length).toBeLessThan(4000);
  });

  it('adds the checks\' tallies (a run, a merge of shards) to what one tally of all the exchanges gives', () => {
    const next = random(3);
    const all: Record<string, LatencyTally> = {};
    const checks: CheckResultMeta[] = [];
    for (let c = 0; c < 6; c++) {
      const own: Record<string, LatencyTally> = {};
      for (let i = 0; i < 200; i++) {
        const x = exchange(next() < 0.5 ? 'getVersion' : next() < 0.5 ? 'listUsers' : undefined, Math.round(next() * 5000) / 10, next() > 0.01);
        noteLatency(own, x);
        noteLatency(all, x);
      }
      checks.push({ id: `c${c}`, title: '', api: 'ledger', operations: [], requirements: [], latency: JSON.parse(JSON.stringify(own)) as Record<string, LatencyTally> });
    }
    const rows = latencyOf(checks);
    expect(rows.map((r) => r.operation)).toEqual(['(GET, no operation id)', 'getVersion', 'listUsers']);
    const halves = [latencyOf(checks.slice(0, 3)), latencyOf(checks.slice(3))];
    for (const r of rows) {
      const t = all[`ledger ${r.operation}`]!;
      expect(r.requests).toBe(t.requests);
      expect(r.noResponse).toBe(t.noResponse);
      expect(r.maxMs).toBe(Math.round(t.maxMs));
      const p50 = percentile(t, 0.5)!;
      expect(r.p50Ms).toBe(p50 < 10 ? Math.round(p50 * 10) / 10 : Math.round(p50));
      expect(r.requests).toBe(halves.reduce((a, h) => a + (h.find((x) => x.operation === r.operation)?.requests ?? 0), 0));
    }
    const sum: LatencyTally = { requests: 0, noResponse: 0, maxMs: 0, buckets: {} };
    for (const c of checks) addTally(sum, c.latency!['ledger getVersion']!);
    expect(sum).toEqual(all['ledger getVersion']);
  });

  it('reports an operation none of whose requests was answered without times', () => {
    const latency: Record<string, LatencyTally> = {};
    noteLatency(latency, exchange('getVersion', 30_000, false));
    expect(latencyOf([{ id: 'c', title: '', api: 'ledger', operations: [], requirements: [], latency }])).toEqual([{ api: 'ledger', operation: 'getVersion', requests: 1, noResponse: 1 }]);
  });
});
