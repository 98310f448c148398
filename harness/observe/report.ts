/**
 * The reports of a passive judgement (observe, judge): the usual reports (conformance.json, junit.xml, summary.md under
 * reports/<run-id>/), written by the usual writers from a report whose checks are the passive rules, one per
 * requirement. A requirement the passive rules judged is "observed pass" (judged, never broken) or "observed fail"
 * (broken by at least one exchange, each kept failure with its recorded, redacted exchange); every other requirement is
 * "not observed": it needs a request of the suite's own, or more than one exchange, or no exchange could judge it.
 * In the report's verdict counts an observed pass counts as pass and an observed fail as fail; a not observed
 * requirement counts as skipped, with the reason.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Catalogue } from '../judging/catalogue.js';
import { genericCoverage } from '../judging/checks.js';
import { printableConfig, type Config } from '../config.js';
import { PACKAGE_ROOT } from '../paths.js';
import { redactText } from '../transport/redact.js';
import type { SchemaRegistry } from '../judging/schemas.js';
import type { Api, CheckResultMeta, FailureRecord, Level } from '../types.js';
import { aggregate } from '../reporting/aggregate.js';
import type { RunReport } from '../reporting/model.js';
import { renderSummary } from '../reporting/summary.js';
import { createRunDir, writeReports } from '../reporting/write.js';
import type { PassiveTally } from './passive.js';

export type ObservedVerdict = 'observed pass' | 'observed fail' | 'not observed';

/** conformance.json's `observed` section: what was judged passively, per requirement. */
export interface ObservedSection {
  mode: 'observe' | 'judge';
  /** where the exchanges came from: the listeners and their targets, or the HAR file */
  source: string;
  exchanges: number;
  judged: number;
  /** exchanges of a request no operation of the specification has */
  notInSpecification: { total: number; listed: Array<{ request: string; count: number }> };
  notJudged: Array<{ reason: string; count: number }>;
  firstExchangeAt?: string;
  lastExchangeAt?: string;
  maxKeptFailures: number;
  requirements: Array<{ id: string; api: Api; level: Level; verdict: ObservedVerdict; exchanges: number; failures: number; failedOperations?: Record<string, number>; reason?: string }>;
}

export type ObservedReport = RunReport & { observed: ObservedSection };

const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

export const NOT_PASSIVE_REASON =
  'not observed: this rule needs requests of the suite\'s own or more than one exchange; observe and judge decide only the rules a single exchange decides ("run" checks it)';
export const NO_EXCHANGE_REASON = 'not observed: no observed exchange could judge this rule';

export interface ObservedReportInput {
  tally: PassiveTally;
  catalogue: Catalogue;
  schemas: SchemaRegistry;
  config: Config;
  apis: Api[];
  mode: 'observe' | 'judge';
  source: string;
  runId: string;
  startedAt: Date;
  finishedAt: Date;
  maxKeptFailures: number;
  /** a line the report's notes carry (e.g. the run stopped by a signal) */
  notes?: string[];
}

export function observedReport(i: ObservedReportInput): ObservedReport {
  const { tally } = i;
  const coverage = genericCoverage(i.schemas);
  const checks: CheckResultMeta[] = [];
  const section: ObservedSection['requirements'] = [];
  for (const api of i.apis) {
    const target = i.config.targets[api];
    const notPassive: string[] = [];
    for (const r of i.catalogue.requirements.filter((q) => q.api === api)) {
      const rules = coverage.get(r.id);
      if (rules === undefined) {
        notPassive.push(r.id);
        section.push({ id: r.id, api, level: r.level, verdict: 'not observed', exchanges: 0, failures: 0, reason: NOT_PASSIVE_REASON });
        continue;
      }
      const t = tally.requirements.get(r.id);
      const off = target?.disabledRequirements.includes(r.id) === true ? "disabled by the target's configuration" : undefined;
      const verdict: ObservedVerdict = t === undefined || t.judged === 0 ? 'not observed' : t.failed > 0 ? 'observed fail' : 'observed pass';
      const failures: FailureRecord[] = [...(t?.kept ?? [])];
      if (t !== undefined && t.failed > t.kept.length) {
        failures.push({ requirement: r.id, message: `... and ${t.failed - t.kept.length} more observed exchanges broke this requirement, not kept (the first ${t.kept.length} are; ${t.failed} of ${t.judged} judged exchanges broke it)` });
      }
      const reason = verdict === 'not observed' ? (off !== undefined ? `not observed: ${off}` : NO_EXCHANGE_REASON) : verdict === 'observed fail' ? `observed fail: ${t!.failed} of ${t!.judged} judged exchanges broke it` : `observed pass: ${t!.judged} judged exchanges, none broke it`;
      section.push({
        id: r.id,
        api,
        level: r.level,
        verdict,
        exchanges: t?.judged ?? 0,
        failures: t?.failed ?? 0,
        ...(t !== undefined && t.failed > 0 ? { failedOperations: t.failedOperations } : {}),
        ...(verdict === 'not observed' ? { reason } : {}),
      });
      checks.push({
        id: `observed:${r.id}`,
        title: `${verdict}: ${r.statement}`,
        api,
        operations: r.operations,
        requirements: [r.id],
        file: `${i.mode} (${rules.map((c) => c.name).join(', ')})`,
        verdict: verdict === 'observed fail' ? 'fail' : verdict === 'observed pass' ? 'pass' : 'skipped',
        reason,
        ...(verdict === 'observed pass' ? { judged: [r.id] } : {}),
        ...(failures.length > 0 ? { failures } : {}),
        requests: t?.judged ?? 0,
      });
    }
    if (notPassive.length > 0) {
      checks.push({
        id: `observed:${api}.not-passive`,
        title: `${api}: the rules a single observed exchange cannot decide`,
        api,
        operations: [],
        requirements: notPassive,
        file: i.mode,
        verdict: 'skipped',
        reason: NOT_PASSIVE_REASON,
      });
    }
  }
  const agg = aggregate(i.catalogue, checks, i.apis, [], []);
  // every writer shows a requirement's verdict as pass or fail: its reason says it was observed, on how many exchanges
  const observedReason = new Map(checks.map((c) => [c.id, c.reason]));
  for (const q of agg.requirements) if (q.verdict === 'pass' || q.verdict === 'fail') q.reason ??= observedReason.get(`observed:${q.id}`);
  const traffic = { requests: 0, overloaded: 0, redirected: 0, transportErrors: 0 };
  for (const t of Object.values(tally.byApi)) {
    traffic.requests += t.requests;
    traffic.overloaded += t.overloaded;
    traffic.redirected += t.redirected;
    traffic.transportErrors += t.transportErrors;
  }
  const responses = traffic.requests - traffic.transportErrors;
  const failedMust = section.filter((s) => s.verdict === 'observed fail' && s.level === 'MUST').length;
  const failedAny = section.filter((s) => s.verdict === 'observed fail').length;
  const passed = section.filter((s) => s.verdict === 'observed pass').length;
  const what = `${tally.exchanges} exchange${tally.exchanges === 1 ? '' : 's'} ${i.mode === 'observe' ? 'observed' : 'read'} (${tally.judged} of an operation of the specification judged)`;
  const outcome =
    failedMust > 0
      ? `OBSERVED FAIL: ${failedMust} MUST requirement${failedMust === 1 ? '' : 's'} broken by observed exchanges; ${what}`
      : `OBSERVED PASS: no MUST requirement broken by observed exchanges (${passed} observed pass, ${failedAny} observed fail); ${what}`;
  const targets: RunReport['targets'] = {};
  for (const api of i.apis) {
    const t = i.config.targets[api];
    if (t !== undefined) targets[api] = { url: redactText(t.url), ...(t.version !== undefined ? { version: t.version } : {}), reference: false };
  }
  return {
    schemaVersion: 1,
    suite: { name: pkg.name, version: pkg.version },
    runId: i.runId,
    startedAt: i.startedAt.toISOString(),
    finishedAt: i.finishedAt.toISOString(),
    durationMs: i.finishedAt.getTime() - i.startedAt.getTime(),
    seed: i.config.run.seed,
    runs: 0,
    targets,
    config: printableConfig(i.config),
    selection: { apis: i.apis, requirements: [] },
    outcome,
    exitCode: agg.exitCode,
    traffic: { ...traffic, responses, mostlyRefused: responses > 0 && (traffic.overloaded + traffic.redirected) * 2 > responses },
    counts: agg.counts,
    checkCounts: agg.checkCounts,
    requirements: agg.requirements,
    checks,
    runErrors: [],
    notes: [
      `passive judgement (${i.mode}): ${what}; no request of the suite's own was sent. Only the rules a single exchange decides are judged (documented status, content type and body schema, no 5xx, the ledger's status by gRPC code); "pass" and "fail" here are observed pass and observed fail, and every other requirement is not observed (skipped, with the reason).`,
      ...(tally.notInSpecificationTotal > 0 ? [`${tally.notInSpecificationTotal} exchange(s) of requests not in the specification (not judged): see "Observed exchanges" in summary.md and observed.notInSpecification in conformance.json`] : []),
      ...(i.notes ?? []),
    ],
    observed: {
      mode: i.mode,
      source: redactText(i.source),
      exchanges: tally.exchanges,
      judged: tally.judged,
      notInSpecification: { total: tally.notInSpecificationTotal, listed: [...tally.notInSpecification].map(([request, count]) => ({ request, count })).sort((a, b) => b.count - a.count) },
      notJudged: [...tally.notJudged].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count),
      ...(tally.firstAt !== undefined ? { firstExchangeAt: tally.firstAt } : {}),
      ...(tally.lastAt !== undefined ? { lastExchangeAt: tally.lastAt } : {}),
      maxKeptFailures: i.maxKeptFailures,
      requirements: section,
    },
  };
}

/** The summary's section on the observed exchanges, placed before its failures. */
export function renderObservedSection(r: ObservedReport): string[] {
  const o = r.observed;
  const out: string[] = ['## Observed exchanges', ''];
  out.push(`${o.mode === 'observe' ? 'Observed through the proxy' : 'Read from'}: ${o.source}. ${o.exchanges} exchange(s), ${o.judged} of an operation of the specification judged${o.firstExchangeAt !== undefined ? `, from ${o.firstExchangeAt} to ${o.lastExchangeAt}` : ''}.`, '');
  const row = (s: ObservedSection['requirements'][number]) => `| \`${s.id}\` | ${s.level} | ${s.verdict} | ${s.exchanges} | ${s.failures} |`;
  const judged = o.requirements.filter((s) => s.verdict !== 'not observed');
  if (judged.length > 0) {
    out.push('| requirement | level | verdict | exchanges judged | exchanges that broke it |', '|---|---|---|---:|---:|');
    for (const s of [...judged.filter((x) => x.verdict === 'observed fail'), ...judged.filter((x) => x.verdict === 'observed pass')]) out.push(row(s));
    out.push('');
  } else out.push('No requirement was judged: no observed exchange was of an operation of the specification with an answer.', '');
  const unjudged = o.requirements.filter((s) => s.verdict === 'not observed' && s.reason !== NOT_PASSIVE_REASON);
  if (unjudged.length > 0) out.push(`Not observed although a single exchange could decide them (no exchange judged them): ${unjudged.map((s) => `\`${s.id}\``).join(', ')}.`, '');
  const notPassive = o.requirements.filter((s) => s.reason === NOT_PASSIVE_REASON).length;
  out.push(`${notPassive} requirement(s) are not observed: they need requests of the suite's own or more than one exchange (\`run\`, or \`run --read-only\` on a production node, decides them).`, '');
  if (o.notInSpecification.total > 0) {
    out.push(`Requests not in the specification (${o.notInSpecification.total}, not judged)${o.notInSpecification.listed.length < o.notInSpecification.total ? `, the first distinct ones` : ''}:`, '');
    for (const n of o.notInSpecification.listed) out.push(`- \`${n.request}\`: ${n.count}`);
    out.push('');
  }
  if (o.notJudged.length > 0) {
    out.push('Exchanges or bodies not judged:', '');
    for (const n of o.notJudged) out.push(`- ${n.reason}: ${n.count}`);
    out.push('');
  }
  return out;
}

/** Writes the reports of a passive judgement into reports/<run-id>/ (again each time: the periodic reports of observe). */
export function writeObservedReports(reportsDir: string, report: ObservedReport): { dir: string; files: string[] } {
  const dir = createRunDir(reportsDir, report.runId);
  const files = writeReports(dir, report);
  // summary.md with the observed section before its failures (the writers above know nothing of it)
  // no generation seed: a passive judgement generates nothing, and "rerun with --seed" means nothing here
  const summary = renderSummary(report)
    .split('\n')
    .filter((l) => !/^- generation: seed /.test(l) && !/--seed\b/.test(l))
    .join('\n');
  const at = summary.indexOf('\n## Failures (');
  const section = renderObservedSection(report).join('\n');
  const text = at < 0 ? `${summary}\n${section}\n` : `${summary.slice(0, at + 1)}${section}\n${summary.slice(at + 1)}`;
  const file = join(dir, 'summary.md');
  writeFileSync(`${file}.tmp-${process.pid}`, text);
  renameSync(`${file}.tmp-${process.pid}`, file);
  return { dir, files };
}
