/** What changed since an earlier run: requirement verdicts compared one by one. */
import { existsSync, readFileSync } from 'node:fs';
import { ConfigError } from '../config.js';
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

/**
 * Reads an earlier conformance.json. The default one (reports/latest) may be missing or not a report: undefined, never
 * fatal. A file the user named (`required`) that is missing or is not a conformance.json is a configuration error.
 */
export function readEarlierReport(file: string, required = false): EarlierReport | undefined {
  const fail = (why: string) => {
    if (required) throw new ConfigError(`--compare / run.compare: ${file} ${why}`);
    return undefined;
  };
  if (!existsSync(file)) return fail('does not exist (an earlier conformance.json to diff against; --no-compare runs without one)');
  let r: Partial<EarlierReport>;
  try {
    r = JSON.parse(readFileSync(file, 'utf8')) as Partial<EarlierReport>;
  } catch (e) {
    return fail(`is not a conformance.json: ${(e as Error).message.split('\n')[0]}`);
  }
  if (typeof r !== 'object' || r === null || typeof r.runId !== 'string' || !Array.isArray(r.requirements)) {
    return fail('is not a conformance.json (no runId and requirements)');
  }
  return r as EarlierReport;
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
