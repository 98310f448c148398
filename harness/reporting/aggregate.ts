/** From check results to requirement verdicts, counts and the exit code. */
import type { Catalogue, Requirement } from '../judging/catalogue.js';
import type { Api, CheckResultMeta, FailureRecord, Level, PropertyRecord, RequirementVerdict, TrafficCounts, Verdict } from '../types.js';

/** What the run's requests met, summed over its checks; `mostlyRefused` when most were 429/503 or redirects. */
export interface RunTraffic extends TrafficCounts {
  /** requests answered with a status (not a transport error) */
  responses: number;
  mostlyRefused: boolean;
}

export function trafficOf(checks: readonly CheckResultMeta[]): RunTraffic {
  const t = { requests: 0, overloaded: 0, redirected: 0, transportErrors: 0 };
  // timeouts while the suite's own thread was starved: this machine was overloaded (harness/transport/own-stall.ts)
  let ownStalls = 0;
  for (const c of checks) {
    if (c.traffic === undefined) continue;
    t.requests += c.traffic.requests;
    t.overloaded += c.traffic.overloaded;
    t.redirected += c.traffic.redirected;
    t.transportErrors += c.traffic.transportErrors;
    if (c.traffic.ownStalls !== undefined) ownStalls += c.traffic.ownStalls;
  }
  const responses = t.requests - t.transportErrors;
  return { ...t, ...(ownStalls > 0 ? { ownStalls } : {}), responses, mostlyRefused: responses > 0 && (t.overloaded + t.redirected) * 2 > responses };
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

/**
 * What beyond a MUST failure decides the exit code (run.failOn, run.minDecided): nothing tested is never a pass.
 * `decidedOver` are the interfaces whose MUST requirements must not all be left undecided (those with a target); empty
 * for a shard, whose share of the checks is judged whole once merged.
 */
export interface Gates {
  failOn: 'must' | 'should';
  minDecided?: number;
  decidedOver: Api[];
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
  gates?: Gates,
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
  } else if (gates?.failOn === 'should' && shouldFailed(requirements, known).length > 0) {
    const n = shouldFailed(requirements, known).length;
    exitCode = 1;
    outcome = `FAILED: ${n} SHOULD requirement${n === 1 ? '' : 's'} failed (run.failOn: should; no MUST requirement failed)`;
  } else if (errored.length > 0 || runErrors.length > 0) {
    exitCode = 3;
    outcome = `INCOMPLETE: no MUST requirement failed, but ${errored.length} requirement${errored.length === 1 ? '' : 's'} could not be decided because of errors${runErrors.length > 0 ? ` and ${runErrors.length} run error(s)` : ''}`;
  } else if (gates !== undefined) {
    const undecided = undecidedReason(requirements, gates);
    if (undecided !== undefined) {
      exitCode = 3;
      outcome = `INCOMPLETE: no MUST requirement failed, but ${undecided}`;
    }
  }
  return { requirements, counts, checkCounts, exitCode, outcome: outcome + knownNote };
}

/** SHOULD requirements that failed and are no known failure of the baseline. */
function shouldFailed(requirements: RequirementResult[], known: ReadonlySet<string>): RequirementResult[] {
  return requirements.filter((r) => r.level === 'SHOULD' && r.verdict === 'fail' && !known.has(r.id));
}

const decided = (r: RequirementResult) => r.verdict === 'pass' || r.verdict === 'fail';

/**
 * Why a run decided too little to pass, or undefined: an interface whose selected MUST requirements (of those a check
 * covers) were all left undecided (skipped, in error, unsupported), a run that decided no requirement at all, or fewer
 * decided MUST requirements than run.minDecided asks.
 */
function undecidedReason(requirements: RequirementResult[], gates: Gates): string | undefined {
  if (gates.decidedOver.length === 0) return undefined;
  // a requirement no check covers, or outside the target's version range, is not the target's to decide
  const covered = requirements.filter((r) => gates.decidedOver.includes(r.api) && r.verdict !== 'untested' && !(r.verdict === 'skipped' && r.reason?.startsWith('version: ') === true));
  for (const api of gates.decidedOver) {
    const must = covered.filter((r) => r.api === api && r.level === 'MUST');
    if (must.length > 0 && !must.some(decided)) {
      const skipped = must.filter((r) => r.verdict === 'skipped');
      const first = (skipped[0] ?? must[0])!;
      return `${must.length === 1 ? `the selected MUST requirement of ${api} was not decided` : `none of the ${must.length} selected MUST requirements of ${api} was decided`} (${skipped.length} skipped${first.reason !== undefined ? `, e.g. ${first.id}: ${first.reason}` : ''}): nothing of ${api} was tested`;
    }
  }
  if (covered.length > 0 && !covered.some(decided)) return `none of the ${covered.length} selected requirements was decided: nothing was tested`;
  if (gates.minDecided !== undefined) {
    const must = covered.filter((r) => r.level === 'MUST');
    const share = must.length === 0 ? 100 : (100 * must.filter(decided).length) / must.length;
    if (share < gates.minDecided) {
      return `only ${must.filter(decided).length} of the ${must.length} selected MUST requirements a check covers were decided (${share.toFixed(1)}%), fewer than run.minDecided (--min-decided) asks: ${gates.minDecided}%`;
    }
  }
  return undefined;
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
