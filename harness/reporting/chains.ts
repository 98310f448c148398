/**
 * Where a check's time goes: the longest chain of its requests that ran one after another, each sent after
 * the previous one was answered. On a distant target a check lasts at least that chain's response times, whatever the
 * run's concurrency, so its length says what no concurrency can hide (and the run's longest chain, what no sharding can).
 *
 * Measured in the worker as the check's exchanges end, from each one's recorded start and duration, without keeping the
 * exchanges: the longest chain ending with an exchange is its own response time plus the longest chain that ended
 * before it started. What is kept is a staircase of (end, longest chain ended by then), at most MAX_STEPS steps: ends
 * only grow, and a step that does not lengthen the chain is dropped. Past MAX_STEPS the oldest step is dropped (a chain
 * of more than MAX_STEPS steps of growing length, all ending after a request still in flight started, would be
 * measured shorter; no check comes near).
 */
import type { ExchangeRecord } from '../types.js';

/** start times are recorded to the millisecond: a request sent within this of an answer counts as sent after it */
const CLOCK_SLACK_MS = 1;
const MAX_STEPS = 256;

export interface ChainTally {
  /** ends (ms since the epoch), increasing */
  ends: number[];
  /** the longest chain (summed response times, ms) among the exchanges that ended by ends[i]; increasing */
  lengths: number[];
  /** how many requests that chain has */
  counts: number[];
  /** the longest chain so far */
  longestMs: number;
  longestRequests: number;
}

export const newChainTally = (): ChainTally => ({ ends: [], lengths: [], counts: [], longestMs: 0, longestRequests: 0 });

/** The last step whose end is at or before `t` (binary search), or -1. */
function stepAt(c: ChainTally, t: number): number {
  let lo = 0;
  let hi = c.ends.length - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (c.ends[mid]! <= t) {
      at = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return at;
}

/** Adds an exchange that started at `startMs` and lasted `durationMs` (answered or not). */
export function noteChainTimes(c: ChainTally, startMs: number, durationMs: number): void {
  const end = startMs + durationMs;
  const before = stepAt(c, startMs + CLOCK_SLACK_MS);
  const length = durationMs + (before >= 0 ? c.lengths[before]! : 0);
  const count = 1 + (before >= 0 ? c.counts[before]! : 0);
  if (length > c.longestMs) {
    c.longestMs = length;
    c.longestRequests = count;
  }
  // the step for this end: kept only if no step ending at or before it has a chain as long
  const at = stepAt(c, end);
  if (at >= 0 && c.lengths[at]! >= length) return;
  // steps ending later whose chains are not longer say nothing any more
  let drop = at + 1;
  while (drop < c.ends.length && c.lengths[drop]! <= length) drop++;
  c.ends.splice(at + 1, drop - at - 1, end);
  c.lengths.splice(at + 1, drop - at - 1, length);
  c.counts.splice(at + 1, drop - at - 1, count);
  if (c.ends.length > MAX_STEPS) {
    c.ends.shift();
    c.lengths.shift();
    c.counts.shift();
  }
}

/** Adds one recorded exchange (its start to the millisecond, its duration to the tenth). */
export function noteChain(c: ChainTally, x: Pick<ExchangeRecord, 'startedAt' | 'durationMs'>): void {
  const start = Date.parse(x.startedAt);
  if (Number.isFinite(start)) noteChainTimes(c, start, x.durationMs);
}

/** What a report keeps of it: the longest chain's summed response times (ms, rounded) and requests. */
export function reportedChain(c: ChainTally): { ms: number; requests: number } | undefined {
  return c.longestRequests === 0 ? undefined : { ms: Math.round(c.longestMs), requests: c.longestRequests };
}
