/**
 * Response times per operation, information only: no verdict depends on them.
 *
 * Each check tallies its own exchanges as they are recorded (in the worker), per operation, into a bounded histogram:
 * the count, the exact maximum and a sparse map of logarithmic buckets 5% wide (below 1 ms, buckets of 0.1 ms). No
 * exchange is kept for it. The main thread (and `merge`, from the shards' conformance.json) adds the checks' histograms
 * together and reads p50, p95 and max off the sum: p50 and p95 are within 2.5% of the exact nearest-rank values, the
 * maximum is exact. A histogram holds at most a few hundred buckets whatever the number of requests (a 10-minute
 * response is bucket 290).
 */
import { APIS, type Api, type CheckResultMeta, type ExchangeRecord, type LatencyTally } from '../types.js';

/** width of a bucket from 1 ms up: each bucket's upper bound is 5% above its lower bound */
const RATIO = 1.05;
const LOG_RATIO = Math.log(RATIO);
/** buckets 0..9 hold 0-0.1, 0.1-0.2, ... 0.9-1 ms; from 10 on, logarithmic */
const SUB_MS = 10;

export function bucketOf(ms: number): number {
  if (!(ms >= 0)) return 0;
  if (ms < 1) return Math.floor(ms * SUB_MS);
  return SUB_MS + Math.floor(Math.log(ms) / LOG_RATIO + 1e-9);
}

/** A representative value of a bucket: its middle (the geometric middle for the logarithmic ones). */
export function bucketValue(b: number): number {
  if (b < SUB_MS) return (b + 0.5) / SUB_MS;
  return RATIO ** (b - SUB_MS + 0.5);
}

/** The key of an exchange's operation: "<api> <operationId>", or the method when the request named no operation. */
export function operationKey(x: Pick<ExchangeRecord, 'api' | 'operationId' | 'request'>): string {
  return `${x.api} ${x.operationId ?? `(${x.request.method}, no operation id)`}`;
}

/** Adds one exchange to a check's tallies (in place). */
export function noteLatency(tallies: Record<string, LatencyTally>, x: ExchangeRecord): void {
  const key = operationKey(x);
  const t = (tallies[key] ??= { requests: 0, noResponse: 0, maxMs: 0, buckets: {} });
  t.requests++;
  if (x.response === undefined) {
    t.noResponse++;
    return;
  }
  const ms = x.durationMs;
  if (ms > t.maxMs) t.maxMs = ms;
  const b = String(bucketOf(ms));
  t.buckets[b] = (t.buckets[b] ?? 0) + 1;
}

/** Adds `from` into `into` (in place). */
export function addTally(into: LatencyTally, from: LatencyTally): void {
  into.requests += from.requests;
  into.noResponse += from.noResponse;
  if (from.maxMs > into.maxMs) into.maxMs = from.maxMs;
  for (const [b, n] of Object.entries(from.buckets)) into.buckets[b] = (into.buckets[b] ?? 0) + n;
}

/** The nearest-rank percentile `p` (0..1) of a histogram, never above its exact maximum; undefined when it is empty. */
export function percentile(t: LatencyTally, p: number): number | undefined {
  const entries = Object.entries(t.buckets).map(([b, n]) => [Number(b), n] as const).sort((a, b) => a[0] - b[0]);
  const total = entries.reduce((a, [, n]) => a + n, 0);
  if (total === 0) return undefined;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (const [b, n] of entries) {
    seen += n;
    if (seen >= rank) return Math.min(bucketValue(b), t.maxMs);
  }
  return t.maxMs;
}

/** One row of the run's latency table. */
export interface OperationLatency {
  api: Api;
  /** the operationId, or "(METHOD, no operation id)" */
  operation: string;
  /** requests sent, answered or not */
  requests: number;
  /** requests that got no response (transport errors, timeouts): not in the times */
  noResponse: number;
  /** response times in milliseconds of the answered requests (p50 and p95 within 2.5%; max exact) */
  p50Ms?: number;
  p95Ms?: number;
  maxMs?: number;
}

const round = (ms: number) => (ms < 10 ? Math.round(ms * 10) / 10 : Math.round(ms));

/** The run's response times per operation, summed over its checks, in the order of interface and operation. */
export function latencyOf(checks: readonly CheckResultMeta[]): OperationLatency[] {
  const sum = new Map<string, LatencyTally>();
  for (const c of checks) {
    for (const [key, t] of Object.entries(c.latency ?? {})) {
      let into = sum.get(key);
      if (into === undefined) sum.set(key, (into = { requests: 0, noResponse: 0, maxMs: 0, buckets: {} }));
      addTally(into, t);
    }
  }
  const rows: OperationLatency[] = [];
  for (const [key, t] of sum) {
    const space = key.indexOf(' ');
    const answered = t.requests - t.noResponse;
    const p50 = percentile(t, 0.5);
    const p95 = percentile(t, 0.95);
    rows.push({
      api: key.slice(0, space) as Api,
      operation: key.slice(space + 1),
      requests: t.requests,
      noResponse: t.noResponse,
      ...(answered > 0 && p50 !== undefined && p95 !== undefined ? { p50Ms: round(p50), p95Ms: round(p95), maxMs: round(t.maxMs) } : {}),
    });
  }
  return rows.sort((a, b) => (a.api === b.api ? (a.operation < b.operation ? -1 : a.operation > b.operation ? 1 : 0) : APIS.indexOf(a.api) - APIS.indexOf(b.api)));
}
