/**
 * When things ran: a check's span of wall time and a requirement's (from the first start to the last end of its checks),
 * inside the run's own. The times of a check are its own (its last response and its duration), not the test runner's,
 * which stamps a check's start when it is queued and its end when its result reaches the main thread.
 */
import type { CheckResultMeta } from '../types.js';
import type { RunReport } from './model.js';

export interface Span {
  start: number;
  end: number;
}

const at = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso));

/** The run's span: its start to its start plus its wall time. */
export function runSpan(report: Pick<RunReport, 'startedAt' | 'durationMs'>): Span {
  const start = Date.parse(report.startedAt);
  return { start, end: start + report.durationMs };
}

/**
 * A check's span: it ends at its last response and started its duration before (or at its first request, when that is
 * earlier), within the run's span. Undefined for a check that sent no request (it took no time worth a span).
 */
export function checkSpan(c: Pick<CheckResultMeta, 'firstRequestAt' | 'lastResponseAt' | 'durationMs'>, run: Span): Span | undefined {
  const last = at(c.lastResponseAt);
  if (last === undefined || Number.isNaN(last)) return undefined;
  const first = at(c.firstRequestAt) ?? last;
  const start = Math.min(first, last - (c.durationMs ?? 0));
  const clamp = (t: number) => Math.min(Math.max(t, run.start), run.end);
  return { start: clamp(start), end: clamp(Math.max(last, start)) };
}

/** A requirement's span: from the first start to the last end of its checks; undefined when none of them has one. */
export function requirementSpan(checkIds: readonly string[], spans: ReadonlyMap<string, Span | undefined>): Span | undefined {
  let start = Infinity;
  let end = -Infinity;
  for (const id of checkIds) {
    const s = spans.get(id);
    if (s === undefined) continue;
    start = Math.min(start, s.start);
    end = Math.max(end, s.end);
  }
  return Number.isFinite(start) ? { start, end } : undefined;
}

/** Every check's span, by check id. */
export function checkSpans(report: Pick<RunReport, 'checks' | 'startedAt' | 'durationMs'>): Map<string, Span | undefined> {
  const run = runSpan(report);
  return new Map(report.checks.map((c) => [c.id, checkSpan(c, run)]));
}
