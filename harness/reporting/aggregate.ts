/** From check results to requirement verdicts, counts and the exit code. */
import type { Catalogue, Requirement } from '../catalogue.js';
import type { Api, CheckResultMeta, FailureRecord, Level, PropertyRecord, RequirementVerdict, TrafficCounts, Verdict } from '../types.js';

/** What the run's requests met, summed over its checks; `mostlyRefused` when most were 429/503 or redirects. */
export interface RunTraffic extends TrafficCounts {
  /** requests answered with a status (not a transport error) */
  responses: number;
  mostlyRefused: boolean;
}

export function trafficOf(checks: readonly CheckResultMeta[]): RunTraffic {
  const t = { requests: 0, overloaded: 0, redirected: 0, transportErrors: 0 };
  for (const c of checks) {
    if (c.traffic === undefined) continue;
    t.requests += c.traffic.requests;
    t.overloaded += c.traffic.overloaded;
    t.redirected += c.traffic.redirected;
    t.transportErrors += c.traffic.transportErrors;
  }
  const responses = t.requests - t.transportErrors;
  return { ...t, responses, mostlyRefused: responses > 0 && (t.overloaded + t.redirected) * 2 > responses };
}

export interface CheckRef {
  id: string;
  title: string;
  file?: string;
  verdict: Verdict;
  reason?: string;
  /** the check stopped at a failure of another requirement before it could decide this one */
  blocked?: boolean;
}

export interface RequirementResult {
  id: string;
  api: Api;
  level: Level;
  statement: string;
  source: string;
  operations: string[];
  verdict: RequirementVerdict;
  reason?: string;
  checks: CheckRef[];
  failures: Array<FailureRecord & { checkId: string; checkTitle: string; file?: string; properties?: PropertyRecord[] }>;
}

export type VerdictCounts = Record<RequirementVerdict, number>;

export interface Aggregate {
  requirements: RequirementResult[];
  /** per interface, per level, verdict counts of requirements */
  counts: Record<string, Record<Level | 'ALL', VerdictCounts>>;
  checkCounts: Record<Verdict, number>;
  exitCode: 0 | 1 | 3;
  outcome: string;
}

const emptyCounts = (): VerdictCounts => ({ pass: 0, fail: 0, error: 0, skipped: 0, unsupported: 0, untested: 0 });

/** Stronger evidence wins: a failure anywhere fails the requirement; then error; then pass; then the not-run kinds. */
const RANK: Verdict[] = ['fail', 'error', 'pass', 'unsupported', 'skipped'];

/**
 * `known` holds the requirement ids whose failure the target's baseline expects: they stay failed in every report
 * but do not decide the exit code.
 */
export function aggregate(
  catalogue: Catalogue,
  checks: CheckResultMeta[],
  apis: Api[],
  selection: string[],
  runErrors: string[],
  known: ReadonlySet<string> = new Set(),
): Aggregate {
  const selected = catalogue.requirements.filter((r) => apis.includes(r.api) && (selection.length === 0 || selection.includes(r.id)));
  const requirements = selected.map((r) => judge(r, checks));
  const counts: Aggregate['counts'] = {};
  for (const r of requirements) {
    const perApi = (counts[r.api] ??= { MUST: emptyCounts(), SHOULD: emptyCounts(), MAY: emptyCounts(), ALL: emptyCounts() });
    perApi[r.level][r.verdict]++;
    perApi.ALL[r.verdict]++;
  }
  const checkCounts: Record<Verdict, number> = { pass: 0, fail: 0, error: 0, skipped: 0, unsupported: 0 };
  for (const c of checks) checkCounts[c.verdict ?? 'error']++;

  const mustFailed = requirements.filter((r) => r.level === 'MUST' && r.verdict === 'fail' && !known.has(r.id));
  const errored = requirements.filter((r) => r.verdict === 'error' && !known.has(r.id));
  const knownNote = requirements.some((r) => known.has(r.id) && (r.verdict === 'fail' || r.verdict === 'error')) ? ' (known failures of the baseline excluded)' : '';
  let exitCode: Aggregate['exitCode'] = 0;
  let outcome = 'PASSED: no MUST requirement failed';
  if (mustFailed.length > 0) {
    exitCode = 1;
    outcome = `FAILED: ${mustFailed.length} MUST requirement${mustFailed.length === 1 ? '' : 's'} failed`;
  } else if (errored.length > 0 || runErrors.length > 0) {
    exitCode = 3;
    outcome = `INCOMPLETE: no MUST requirement failed, but ${errored.length} requirement${errored.length === 1 ? '' : 's'} could not be decided because of errors${runErrors.length > 0 ? ` and ${runErrors.length} run error(s)` : ''}`;
  }
  return { requirements, counts, checkCounts, exitCode, outcome: outcome + knownNote };
}

/**
 * The outcome, exit code and interruption of a run's report: the aggregate's, or, for a run stopped early, the verdict
 * among the checks that ran, with exit 3 unless a MUST requirement failed among them (1).
 */
export function runOutcome(agg: Aggregate, interrupted: { by?: string; atOnce: boolean } | undefined): { outcome: string; exitCode: number; interrupted?: { by?: string; atOnce: boolean } } {
  if (interrupted === undefined) return { outcome: agg.outcome, exitCode: agg.exitCode };
  return {
    outcome: `INTERRUPTED${interrupted.by !== undefined ? ` (${interrupted.by})` : ''}: the run was stopped early; among the checks that ran, ${agg.outcome.replace(/^[A-Z]+: /, '')}`,
    interrupted,
    exitCode: agg.exitCode === 0 ? 3 : agg.exitCode,
  };
}

function judge(r: Requirement, checks: CheckResultMeta[]): RequirementResult {
  const refs: CheckRef[] = [];
  const failures: RequirementResult['failures'] = [];
  const evidence: Verdict[] = [];
  const reasons: string[] = [];
  for (const c of checks) {
    const own = (c.failures ?? []).filter((f) => f.requirement === r.id);
    const notHere = c.inapplicable?.find((i) => i.requirement === r.id);
    if (notHere !== undefined && own.length === 0) {
      refs.push({ id: c.id, title: c.title, verdict: 'skipped', reason: notHere.reason, ...(c.file !== undefined ? { file: c.file } : {}) });
      evidence.push('skipped');
      reasons.push(notHere.reason);
      continue;
    }
    const declares = c.requirements.includes(r.id);
    const judged = c.judged?.includes(r.id) ?? false;
    if (!declares && !judged && own.length === 0) continue;
    // a generic check judged this requirement on the check's exchanges: that is evidence whatever else the check did
    const verdict: Verdict = judged && own.length === 0 ? 'pass' : (c.verdict ?? 'error');
    const blocked = own.length === 0 && verdict === 'fail';
    refs.push({ id: c.id, title: c.title, verdict, ...(c.file !== undefined ? { file: c.file } : {}), ...(c.reason !== undefined ? { reason: c.reason } : {}), ...(blocked ? { blocked } : {}) });
    for (const f of own) failures.push({ ...f, checkId: c.id, checkTitle: c.title, ...(c.file !== undefined ? { file: c.file } : {}), ...(c.properties !== undefined ? { properties: c.properties } : {}) });
    if (own.length > 0) evidence.push('fail');
    else if (blocked) reasons.push(`check ${c.id} stopped at a failure of another requirement`);
    else {
      evidence.push(verdict);
      if (c.reason !== undefined) reasons.push(c.reason);
      if (verdict === 'error' && c.error !== undefined) reasons.push(c.error);
    }
  }
  let verdict: RequirementVerdict = 'untested';
  let reason: string | undefined;
  for (const v of RANK) {
    if (evidence.includes(v)) {
      verdict = v;
      break;
    }
  }
  if (verdict === 'untested') {
    if (refs.length > 0) {
      verdict = 'skipped';
      reason = reasons[0];
    } else reason = r.observable ? 'no check covers this requirement yet' : `not observable by a black-box HTTP client: ${r.whyNotObservable ?? 'no endpoint shows it'}`;
  } else if (verdict !== 'pass' && verdict !== 'fail') reason = reasons[0];
  return {
    id: r.id,
    api: r.api,
    level: r.level,
    statement: r.statement,
    source: r.source,
    operations: r.operations,
    verdict,
    ...(reason !== undefined ? { reason } : {}),
    checks: refs,
    failures,
  };
}
