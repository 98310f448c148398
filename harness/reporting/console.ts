/**
 * What a run (or a merge) prints at its end, for a person reading a CI log: on a failing or incomplete run the failed
 * requirements grouped by interface (id, level, a one-line reason, a curl line), capped, and the commonest cause of the
 * errors; then the verdict and the counts last, where a reader of a log looks first. The seed of each property only
 * with --verbose.
 */
import { join, relative } from 'node:path';
import type { Level } from '../types.js';
import type { RunReport } from './model.js';
import { binaryBodyOf, curlLine, errorCauses, firstExchange, oneLine, rerunCommand } from './reproduce.js';

/** failed requirements listed by name before "and N more in summary.md" */
export const LISTED_FAILURES = 10;
/** a curl line longer than this is left to summary.md (a body of kilobytes on one console line helps nobody) */
const CURL_MAX = 2000;
/** error causes named */
const LISTED_CAUSES = 3;

const LEVEL_ORDER: Record<Level, number> = { MUST: 0, SHOULD: 1, MAY: 2 };

/** The property seed lines: one per check and seed (a check's several properties from one seed share a line). */
function propertyLines(r: RunReport, verbose: boolean): string[] {
  let count = 0;
  const lines = r.checks.flatMap((c) => {
    const bySeed = new Map<number, NonNullable<typeof c.properties>>();
    for (const p of c.properties ?? []) bySeed.set(p.seed, [...(bySeed.get(p.seed) ?? []), p]);
    return [...bySeed].map(([seed, list]) => {
      count += list.length;
      const runs = list.reduce((n, p) => n + p.numRuns, 0);
      const paths = list.map((p) => p.path).filter((x): x is string => x !== undefined);
      return `  ${c.id} seed ${seed} (${list.length > 1 ? `${list.length} properties, ` : ''}${runs} runs${paths.length > 0 ? `, failing path ${paths.join('; ')}` : ''})`;
    });
  });
  if (lines.length === 0) return [];
  if (!verbose) return [`properties: ${count} in ${lines.length} checks ran with seeds derived from --seed ${r.seed} (--verbose lists them; summary.md has them all)`];
  return [`properties: ${count} in ${lines.length} checks ran with seeds derived from --seed ${r.seed}:`, ...lines];
}

/** The failed requirements (known failures of the baseline left out), MUST first, grouped by interface. */
function failureLines(r: RunReport, dir: string, cwd: string): string[] {
  const known = new Set((r.baseline?.known ?? []).map((e) => e.requirement));
  const failed = r.requirements.filter((q) => q.verdict === 'fail' && !known.has(q.id));
  if (failed.length === 0) return [];
  const order = new Map(Object.keys(r.counts).map((api, i) => [api, i]));
  const sorted = [...failed].sort((a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] || (order.get(a.api) ?? 9) - (order.get(b.api) ?? 9));
  const shown = sorted.slice(0, LISTED_FAILURES);
  const out: string[] = [`failed requirements (${failed.length}):`];
  const apis = [...new Set(shown.map((q) => q.api))].sort((a, b) => (order.get(a) ?? 9) - (order.get(b) ?? 9));
  for (const api of apis) {
    out.push(`  ${api}`);
    for (const q of shown.filter((x) => x.api === api)) {
      // the reason and the curl line of one failure: the first with an exchange, else the first
      const x = firstExchange(q);
      const first = x ?? q.failures[0];
      out.push(`    ${q.id} (${q.level}): ${first !== undefined ? oneLine(first.message) : 'failed'}`);
      if (x === undefined) out.push('      (no single request shows it: see summary.md)');
      else {
        // a binary body is sent from its file, saved in the run's directory
        const binary = binaryBodyOf(x.exchange);
        const file = binary !== undefined ? r.bodies?.[binary.sha256] : undefined;
        const curl = curlLine(x.exchange, file !== undefined ? relative(cwd, join(dir, file)) : undefined);
        out.push(curl.length <= CURL_MAX ? `      ${curl}` : `      (its curl line, ${curl.length} characters, is in summary.md)`);
      }
    }
  }
  if (failed.length > shown.length) out.push(`  and ${failed.length - shown.length} more in summary.md`);
  const example = shown[0]!;
  out.push(`rerun one: ${rerunCommand(r, example)}`);
  const tokens = [...new Set(shown.filter((q) => firstExchange(q)?.exchange.request.headers.authorization !== undefined).map((q) => `${q.api.toUpperCase()}_TOKEN`))];
  if (tokens.length > 0) out.push(`(the curl lines read the bearer token from $${tokens.join(', $')})`);
  if (Object.values(r.targets).some((t) => t?.reference === true)) out.push('(the embedded reference server ended with the run: "canton-conformance serve" with the same --fault flags starts one to send the curl lines to, at another port)');
  return out;
}

/** The commonest causes of the run's errors, with how many checks each broke. */
function errorLines(r: RunReport): string[] {
  const causes = errorCauses(r);
  const out: string[] = [];
  if (causes.length > 0) {
    const total = causes.reduce((n, c) => n + c.checks, 0);
    out.push(`errors: ${total} check${total === 1 ? '' : 's'} could not decide their requirements; the commonest cause${causes.length > 1 ? 's' : ''}:`);
    for (const c of causes.slice(0, LISTED_CAUSES)) out.push(`  ${oneLine(c.cause, 300)}: ${c.checks} check${c.checks === 1 ? '' : 's'}`);
    if (causes.length > LISTED_CAUSES) out.push(`  and ${causes.length - LISTED_CAUSES} other cause${causes.length - LISTED_CAUSES === 1 ? '' : 's'} (summary.md lists every errored check)`);
  }
  for (const e of r.runErrors.slice(0, LISTED_CAUSES)) out.push(`run error: ${oneLine(e, 300)}`);
  if (r.runErrors.length > LISTED_CAUSES) out.push(`and ${r.runErrors.length - LISTED_CAUSES} more run errors in summary.md`);
  return out;
}

/** The lines printed at the end of a run or a merge, each without its line break. */
export function consoleLines(result: { report: RunReport; dir: string; files: string[] }, o: { verbose?: boolean; cwd?: string } = {}): string[] {
  const r = result.report;
  const cwd = o.cwd ?? process.cwd();
  const out: string[] = [...propertyLines(r, o.verbose === true)];
  if (r.exitCode !== 0 || r.requirements.some((q) => q.verdict === 'fail')) {
    out.push(...failureLines(r, result.dir, cwd));
    out.push(...errorLines(r));
  }
  out.push(r.outcome);
  for (const [api, perLevel] of Object.entries(r.counts)) {
    const c = perLevel.ALL;
    const must = perLevel.MUST;
    out.push(`  ${api.padEnd(9)} ${c.pass} pass, ${c.fail} fail (${must.fail} MUST), ${c.error} error, ${c.skipped} skipped, ${c.unsupported} unsupported, ${c.untested} untested`);
  }
  if (r.diff !== undefined) out.push(`since ${r.diff.against.runId}: ${r.diff.regressions.length} regression(s), ${r.diff.fixes.length} fix(es), ${r.diff.other.length} other change(s)`);
  if (r.baseline !== undefined) {
    out.push(`baseline: ${r.baseline.known.length} known failure(s) held${r.baseline.stale.length > 0 ? `, ${r.baseline.stale.length} expectation(s) no longer hold (see summary.md)` : ''}`);
  }
  if (r.ownDescription !== undefined) {
    const d = r.ownDescription;
    out.push(`own API description: ${d.responses} responses judged, ${d.findings.filter((f) => f.nullOnly !== true).length} distinct disagreement(s), ${d.findings.filter((f) => f.nullOnly === true).length} only by null (information only; see summary.md)`);
  }
  for (const n of r.notes) out.push(`note: ${n}`);
  for (const e of r.merged !== undefined ? r.runErrors.filter((e) => /^shard \d+\/\d+ missing/.test(e)) : []) out.push(e);
  out.push(`reports: ${relative(cwd, result.dir) || '.'}/ (${result.files.map((f) => relative(result.dir, f)).join(', ')})`);
  return out;
}
