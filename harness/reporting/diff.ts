/** What changed since an earlier run: requirement verdicts compared one by one. */
import { existsSync, readFileSync } from 'node:fs';
import type { RequirementVerdict } from '../types.js';

export interface VerdictChange {
  id: string;
  level: string;
  before: RequirementVerdict;
  after: RequirementVerdict;
}

export interface RunDiff {
  against: { runId: string; startedAt: string; file: string };
  /** pass before, fail or error now */
  regressions: VerdictChange[];
  /** fail or error before, pass now */
  fixes: VerdictChange[];
  /** every other change (e.g. skipped -> pass) */
  other: VerdictChange[];
  /** requirements of this run that the earlier run did not select (another --only or --requirement) */
  notInEarlier: number;
}

interface EarlierReport {
  runId: string;
  startedAt: string;
  requirements: Array<{ id: string; level: string; verdict: RequirementVerdict }>;
}

/** Reads an earlier conformance.json; undefined when there is none or it is not one (never fatal). */
export function readEarlierReport(file: string): EarlierReport | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as Partial<EarlierReport>;
    if (typeof r.runId !== 'string' || !Array.isArray(r.requirements)) return undefined;
    return r as EarlierReport;
  } catch {
    return undefined;
  }
}

const bad = (v: RequirementVerdict) => v === 'fail' || v === 'error';

export function diffRuns(earlier: EarlierReport, file: string, now: Array<{ id: string; level: string; verdict: RequirementVerdict }>): RunDiff {
  const before = new Map(earlier.requirements.map((r) => [r.id, r.verdict]));
  const diff: RunDiff = { against: { runId: earlier.runId, startedAt: earlier.startedAt, file }, regressions: [], fixes: [], other: [], notInEarlier: 0 };
  for (const r of now) {
    const b = before.get(r.id);
    if (b === undefined) {
      diff.notInEarlier++;
      continue;
    }
    if (b === r.verdict) continue;
    const change = { id: r.id, level: r.level, before: b, after: r.verdict };
    if (b === 'pass' && bad(r.verdict)) diff.regressions.push(change);
    else if (bad(b) && r.verdict === 'pass') diff.fixes.push(change);
    else diff.other.push(change);
  }
  return diff;
}
