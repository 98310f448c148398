/** summary.md: the readable report. Per interface counts, then every failure with what reproduces it. */
import type { ExchangeRecord, PropertyRecord, Verdict } from '../types.js';
import type { RunReport } from './model.js';
import { renderOwnDescription } from '../spec-diff/own-report.js';
import { binaryBodyOf, curlLine, errorCauses, groupFailures, rerunCommand } from './reproduce.js';

const EXCERPT = 1200;
/** a failed requirement's distinct failures shown with their exchange; the others get a line each */
const SHOWN_EXCHANGES = 3;
const excerpt = (s: string | undefined) => (s === undefined ? '' : s.length > EXCERPT ? `${s.slice(0, EXCERPT)}\n... (${s.length - EXCERPT} more characters)` : s);
const fence = (s: string, lang = '') => `\`\`\`${lang}\n${s.replace(/```/g, '`\u200b``')}\n\`\`\``;

/**
 * An exchange: request, response, and a curl line that repeats it. `bodies` maps the digest prefix of a binary request
 * body to its file beside the report (RunReport.bodies), which the curl line sends.
 */
function exchangeBlock(x: ExchangeRecord, bodies?: Record<string, string>): string[] {
  const lines: string[] = [];
  lines.push(`- request: \`${x.request.method} ${x.request.url}\``);
  const binary = binaryBodyOf(x);
  const file = binary !== undefined ? bodies?.[binary.sha256] : undefined;
  if (binary !== undefined) lines.push(`- request body: ${binary.bytes} bytes of binary data${file !== undefined ? `, saved as \`${file}\` in the run's directory` : ' (not kept: the check did not attach it)'}`);
  else if (x.request.body !== undefined) lines.push('', fence(excerpt(x.request.body), 'json'), '');
  if (x.response !== undefined) {
    lines.push(`- response: \`${x.response.status}\` ${x.response.headers['content-type'] ?? '(no content type)'} in ${x.durationMs} ms`);
    if (x.response.body.length > 0) lines.push('', fence(excerpt(x.response.body)), '');
  } else if (x.transportError !== undefined) {
    lines.push(`- no response: ${x.transportError}`);
  }
  lines.push(`- reproduce${file !== undefined ? ' (from the run\'s directory)' : ''}:`, '', fence(curlLine(x, file), 'sh'), '');
  return lines;
}

/** a table cell: no line break, no column separator */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ');

/** A property's name in the table: the one the check gave it, else its place among the check's properties. */
function propertyName(p: PropertyRecord, i: number, of: number): string {
  if (p.name !== undefined) return p.name;
  return of === 1 ? "(the check's property)" : `property ${i + 1} of ${of}`;
}

/** A property's own verdict; a report written before properties had one falls back on what it recorded. */
function propertyVerdict(p: PropertyRecord, check: Verdict | undefined): string {
  if (p.verdict !== undefined) return p.verdict;
  if (p.path !== undefined) return 'fail';
  return check === 'pass' ? 'pass' : 'not finished';
}

const ms = (v: number | undefined) => (v === undefined ? '' : String(v));

/** Response times per operation: information only. */
function latencyTable(r: RunReport): string[] {
  const rows = r.latency ?? [];
  if (rows.length === 0) return [];
  const out: string[] = [];
  out.push(`## Response times per operation (${rows.length} operations, information only)`, '');
  out.push('How long the target took to answer each operation\'s requests (every request of the run, retries included; p50 and p95 within 2.5%, from bounded histograms). No verdict depends on them.', '');
  out.push('| interface | operation | requests | no response | p50 ms | p95 ms | max ms |', '|---|---|---:|---:|---:|---:|---:|');
  for (const l of rows) out.push(`| ${l.api} | ${cell(l.operation)} | ${l.requests} | ${l.noResponse} | ${ms(l.p50Ms)} | ${ms(l.p95Ms)} | ${ms(l.maxMs)} |`);
  out.push('');
  return out;
}

const secs = (ms: number) => (ms / 1000).toFixed(ms < 10_000 ? 2 : 1);

/**
 * Where the time goes: the ten slowest checks, their requests and their longest chain of requests sent one after
 * another (each after the previous answer). A check whose chain is most of its wall time waits for the target, and only
 * a shorter chain (or skipping it) makes it faster; one whose chain is short is held by its requests' number, the
 * concurrency or the CPU. Information only.
 */
function slowestChecks(r: RunReport): string[] {
  const timed = r.checks.filter((c) => c.durationMs !== undefined && (c.requests ?? 0) > 0);
  if (timed.length === 0) return [];
  const rows = [...timed].sort((a, b) => b.durationMs! - a.durationMs! || (a.id < b.id ? -1 : 1)).slice(0, 10);
  const longest = timed.reduce<(typeof timed)[number] | undefined>((a, c) => (c.chain !== undefined && (a?.chain === undefined || c.chain.ms > a.chain.ms) ? c : a), undefined);
  const out: string[] = [];
  out.push(`## Where the time goes (the ${rows.length} slowest of ${timed.length} checks, information only)`, '');
  out.push("Wall time from the check's start to its end (waiting for shared target state included), its requests, and its longest chain: requests sent one after another, each after the previous answer, with their summed response times. No concurrency makes a check shorter than its chain; a check whose wall time is mostly its chain waits for the target. To make a run against a slow target shorter, shard (`--shard i/n`) or select (`--requirement`) around the checks at the top.", '');
  out.push('| check | file | wall s | requests | longest chain (requests, s) |', '|---|---|---:|---:|---:|');
  for (const c of rows) out.push(`| \`${c.id}\` | ${cell(c.file ?? '')} | ${secs(c.durationMs!)} | ${c.requests ?? 0} | ${c.chain !== undefined ? `${c.chain.requests}, ${secs(c.chain.ms)}` : ''} |`);
  out.push('');
  if (longest?.chain !== undefined) out.push(`Longest chain of the run: \`${longest.id}\`, ${longest.chain.requests} requests one after another, ${secs(longest.chain.ms)} s of response times.`, '');
  return out;
}

export function renderSummary(r: RunReport): string {
  const out: string[] = [];
  out.push('# Conformance report', '');
  out.push(`**${r.outcome}** (exit code ${r.exitCode})`, '');
  const t = r.traffic;
  if (t?.mostlyRefused === true) {
    const kinds = [t.overloaded > 0 ? `${t.overloaded} of ${t.responses} responses were 429/503` : '', t.redirected > 0 ? `${t.redirected} of ${t.responses} responses were redirects` : ''].filter(Boolean).join(', ');
    const what = t.overloaded >= t.redirected ? 'the target was overloaded' : 'the target redirected the requests (a misrouted URL or a gateway in front of it)';
    out.push(`> **Warning: ${what}: ${kinds}.** Such answers judge nothing: the requirements they touched are errors or not judged, not failures. Rerun when the target has capacity, or with the right URL.`, '');
  }
  if ((t?.ownStalls ?? 0) > 0) {
    out.push(`> **Warning: this machine was overloaded:** ${t!.ownStalls} request${t!.ownStalls === 1 ? ' timed out or lost its connection' : 's timed out or lost their connection'} while the suite's own thread was stalled (starved of CPU); a timeout had its stalled time back, and a read was tried once more, before it was judged. Run on a machine with free cores, or fewer \`run.workers\`.`, '');
  }
  if (r.readOnly !== undefined) {
    out.push(`> **Read-only run:** only GET requests and the operations the OpenAPI documents mark \`x-read-only\` were sent; ${r.readOnly.skippedChecks} check${r.readOnly.skippedChecks === 1 ? '' : 's'} that needed a request changing state ${r.readOnly.skippedChecks === 1 ? 'was' : 'were'} skipped ("read-only mode: ..."), and the requirements only they judge are not decided.`, '');
  }
  out.push(`- run: \`${r.runId}\`, ${r.startedAt}, ${(r.durationMs / 1000).toFixed(1)} s, ${r.suite.name} ${r.suite.version}`);
  out.push(`- generation: seed ${r.seed}, ${r.runs} runs per property (rerun with \`--seed ${r.seed}\` for the same inputs)`);
  const c = r.concurrency;
  if (c !== undefined && c.lowered.refused + c.lowered.slow > 0) {
    const why = [c.lowered.refused > 0 ? `${c.lowered.refused} time${c.lowered.refused === 1 ? '' : 's'} for refusals (429, 503)` : '', c.lowered.slow > 0 ? `${c.lowered.slow} time${c.lowered.slow === 1 ? '' : 's'} for answers at three times their usual time` : ''].filter(Boolean).join(' and ');
    out.push(`- requests in flight: the run's limit came down ${why}, and ended at ${c.final} of \`run.concurrency\` ${c.max} (the target was busy: a lower \`run.concurrency\` or \`run.maxRequestsPerSecond\` spares it; verdicts do not depend on it)`);
  }
  if (r.shard !== undefined) out.push(`- shard ${r.shard.index}/${r.shard.count} of the checks only: \`canton-conformance merge\` joins the shards' reports into the run's verdicts`);
  if (r.merged !== undefined) {
    const missing = r.merged.missing.map((i) => `**shard ${i}/${r.merged!.count} missing**`);
    out.push(`- merged from ${[...r.merged.shards.map((s) => `shard ${s.index}/${s.count} (\`${s.runId}\`)`), ...missing].join(', ')}`);
  }
  for (const [api, t] of Object.entries(r.targets)) {
    out.push(`- ${api}: ${t.url}${t.version ? ` (version ${t.version})` : ''}${t.reference ? ' (embedded reference server)' : ''}`);
  }
  if (r.reference !== undefined && r.reference.faults.length > 0) out.push(`- planted faults switched on: ${r.reference.faults.join(', ')}`);
  if (r.reference?.variant !== undefined) {
    const c = Object.entries(r.reference.variant.choices).map(([k, v]) => `${k} ${v}`).join('; ');
    out.push(`- reference variant ${r.reference.variant.seed}${c !== '' ? `: ${c}` : ''}`);
  }
  if (r.selection.filters !== undefined) out.push(`- selection: ${r.selection.filters} (${r.selection.requirements.length} requirements)`);
  else if (r.selection.requirements.length > 0) out.push(`- selected requirements: ${r.selection.requirements.join(', ')}`);
  out.push('', '## Requirements per interface', '');
  out.push('| interface | level | requirements | pass | fail | error | skipped | unsupported | untested |');
  out.push('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [api, perLevel] of Object.entries(r.counts)) {
    for (const level of ['MUST', 'SHOULD', 'MAY', 'ALL'] as const) {
      const c = perLevel[level];
      const n = c.pass + c.fail + c.error + c.skipped + c.unsupported + c.untested;
      if (n === 0) continue;
      const lv = level === 'ALL' ? '**all**' : level;
      out.push(`| ${api} | ${lv} | ${n} | ${c.pass} | ${c.fail} | ${c.error} | ${c.skipped} | ${c.unsupported} | ${c.untested} |`);
    }
  }
  const cc = r.checkCounts;
  out.push('', `Checks: ${cc.pass} pass, ${cc.fail} fail, ${cc.error} error, ${cc.skipped} skipped, ${cc.unsupported} unsupported.`, '');

  // the outcome and the counts above; then what to act on (failures, errors); then the rest, the properties last
  const known = new Map((r.baseline?.known ?? []).map((e) => [e.requirement, e.reason]));
  const failed = r.requirements.filter((q) => q.verdict === 'fail');
  out.push(`## Failures (${failed.length})`, '');
  if (failed.length === 0) out.push('None.', '');
  for (const q of failed) {
    const why = known.get(q.id);
    out.push(`### ${q.id} (${q.level})${why !== undefined ? ' (known failure)' : ''}`, '', `> ${q.statement}`, '', `Source: ${q.source}.`, '');
    if (why !== undefined) out.push(`Known failure in the baseline: ${why}.`, '');
    out.push(`Rerun it alone: \`${rerunCommand(r, q)}\``, '');
    // a failure found again and again on the same exchange (a generic check on every call of an operation) is told once
    const groups = groupFailures(q.failures);
    if (groups.length < q.failures.length) out.push(`${q.failures.length} failures, ${groups.length} distinct (the same message on the same exchange is shown once):`, '');
    groups.forEach(({ failure: f, count, checks }, i) => {
      if (i >= SHOWN_EXCHANGES) {
        out.push(`- also: \`${f.checkId}\`: ${f.message.replace(/\s+/g, ' ')}${f.exchange !== undefined ? ` (\`${f.exchange.request.method} ${f.exchange.request.url}\`)` : ''}${count > 1 ? ` (${count} times)` : ''}`);
        if (i === groups.length - 1) out.push('');
        return;
      }
      const also = checks.length > 1 ? `; also found by ${checks.slice(1, 6).map((c) => `\`${c}\``).join(', ')}${checks.length > 6 ? `, ${checks.length - 6} more` : ''}` : '';
      out.push(`- check: \`${f.checkId}\`: ${f.checkTitle}${f.file ? ` (${f.file})` : ''}${f.check ? `; found by the generic check \`${f.check}\`` : ''}${count > 1 ? ` (${count} times${also})` : ''}`);
      out.push(`- what: ${f.message}`);
      for (const p of f.properties ?? []) {
        if (p.path !== undefined && (p.requirement === undefined || p.requirement === q.id)) out.push(`- fast-check: seed ${p.seed}, path \`${p.path}\`, counterexample \`${excerpt(p.counterexample)}\``);
      }
      if (f.exchange !== undefined) out.push(...exchangeBlock(f.exchange, r.bodies));
      out.push('');
    });
  }

  const errored = r.checks.filter((c) => c.verdict === 'error');
  if (errored.length > 0 || r.runErrors.length > 0) {
    out.push(`## Errors (${errored.length + r.runErrors.length})`, '', 'The harness or the network broke; these say nothing about the target\'s conformance.', '');
    // what broke them, commonest first (URLs cut to the target's origin): one cause usually stands for most
    const causes = errorCauses(r);
    if (causes.length > 1 || (causes[0]?.checks ?? 0) > 1) {
      out.push('Causes, commonest first:', '', ...causes.slice(0, 10).map((c) => `- ${c.checks} check${c.checks === 1 ? '' : 's'}: ${c.cause}`), ...(causes.length > 10 ? [`- and ${causes.length - 10} other causes`] : []), '', 'Every check in error:', '');
    }
    for (const e of r.runErrors) out.push(`- run: ${e}`);
    for (const c of errored) {
      out.push(`- \`${c.id}\` (${c.requirements.join(', ')}): ${c.error ?? 'unknown error'}`);
    }
    const undecided = r.requirements.filter((q) => q.verdict === 'error');
    if (undecided.length > 0) out.push('', `Requirements not decided because of these errors (${undecided.length}): ${undecided.map((q) => `\`${q.id}\``).join(', ')}`);
    const first = errored.find((c) => (c.exchanges ?? []).length > 0)?.exchanges?.at(-1);
    if (first !== undefined) out.push('', 'Last exchange of the first errored check:', '', ...exchangeBlock(first));
    out.push('');
  }

  if (r.diff !== undefined) {
    const d = r.diff;
    out.push(`## Changes since the last run (${d.against.runId}, ${d.against.startedAt})`, '');
    if (d.regressions.length + d.fixes.length + d.other.length === 0) out.push('No requirement changed its verdict.', '');
    for (const [title, list] of [['Regressions (passed before, fail or error now)', d.regressions], ['Fixed (failed before, pass now)', d.fixes], ['Other changes', d.other]] as const) {
      if (list.length === 0) continue;
      out.push(`${title}:`, '', ...list.map((c) => `- \`${c.id}\` (${c.level}): ${c.before} -> ${c.after}`), '');
    }
  }

  if (r.baseline !== undefined) {
    out.push(`## Baseline (${r.baseline.file})`, '');
    out.push(`${r.baseline.known.length} known failure(s) held as expected; they do not fail the run.`, '');
    if (r.baseline.stale.length > 0) {
      out.push('Expectations that no longer hold (remove them from the baseline):', '');
      for (const e of r.baseline.stale) out.push(`- \`${e.requirement}\`: expected ${e.verdict}, now ${e.actual} (${e.reason})`);
      out.push('');
    }
  }

  const notRun = r.requirements.filter((q) => q.verdict === 'skipped' || q.verdict === 'unsupported');
  if (notRun.length > 0) {
    out.push(`## Skipped and unsupported (${notRun.length})`, '');
    const byReason = new Map<string, string[]>();
    for (const q of notRun) {
      const key = `${q.verdict}: ${q.reason ?? 'no reason given'}`;
      byReason.set(key, [...(byReason.get(key) ?? []), q.id]);
    }
    for (const [reason, ids] of byReason) out.push(`- ${reason}: ${ids.map((i) => `\`${i}\``).join(', ')}`);
    out.push('');
  }

  const untested = r.requirements.filter((q) => q.verdict === 'untested');
  out.push(`## Untested requirements (${untested.length})`, '');
  if (untested.length === 0) out.push('None.');
  else {
    out.push('No check covers these yet, so this run says nothing about them:', '');
    for (const q of untested) out.push(`- \`${q.id}\` (${q.level}): ${q.statement}${q.reason && q.reason !== 'no check covers this requirement yet' ? ` (${q.reason})` : ''}`);
  }
  out.push('');

  const fp = r.footprint;
  if (fp !== undefined && (fp.parties + fp.packageUploads + fp.usersLeft.length + fp.notCleanedUp.length + (fp.repaired ?? []).length + (fp.possiblyLeft ?? []).length > 0 || r.targets.ledger !== undefined)) {
    out.push('## Footprint on the target', '');
    out.push('What this run left behind. A participant deletes no party and no package; the suite reuses parties under stable hints where a check does not need a fresh one, and uploads the same package archives in every run.', '');
    out.push(`- parties allocated: ${fp.parties}`);
    out.push(`- packages added: ${fp.packagesAdded ?? fp.packageUploads} (distinct archives accepted that no earlier run had uploaded, as reports/state records it; ${fp.packageUploads} uploads accepted in all: the suite uploads the same archives in every run, and an upload of a package the participant holds already adds none)`);
    out.push(`- users created and not removed: ${fp.usersLeft.length}${fp.usersLeft.length > 0 ? ` (${fp.usersLeft.slice(0, 20).map((u) => `\`${u}\``).join(', ')}${fp.usersLeft.length > 20 ? ', ...' : ''})` : ''}`);
    const possibly = fp.possiblyLeft ?? [];
    if (possibly.length > 0) {
      out.push(`- possibly left behind: ${possibly.length} (asked to create, but the answer was lost, so the target may hold them: look them up by the ids below)`);
      out.push('', `Possibly left behind (${possibly.length}):`, '');
      for (const p of possibly.slice(0, 50)) out.push(`- \`${p.check}\`: ${p.kind} \`${p.id}\` (${p.why})`);
      if (possibly.length > 50) out.push(`- ... and ${possibly.length - 50} more (conformance.json lists every one under footprint.possiblyLeft)`);
    }
    if (fp.notCleanedUp.length > 0) {
      out.push('', `Could not be cleaned up (${fp.notCleanedUp.length}, after retries):`, '');
      for (const n of fp.notCleanedUp) out.push(`- \`${n.check}\`: ${n.what}`);
    }
    if ((fp.repaired ?? []).length > 0) {
      out.push('', `Left behind by an earlier run and repaired (${fp.repaired!.length}):`, '');
      for (const n of fp.repaired!) out.push(`- \`${n.check}\`: ${n.what}`);
    }
    out.push('');
  }

  out.push(...latencyTable(r));
  out.push(...slowestChecks(r));

  if (r.ownDescription !== undefined) out.push(...renderOwnDescription(r.ownDescription), '');
  if (r.notes.length > 0) out.push('## Notes', '', ...r.notes.map((n) => `- ${n}`), '');
  const noted = r.checks.filter((c) => (c.notes ?? []).length > 0);
  if (noted.length > 0) {
    out.push(`## Forms the target chose (${noted.length} checks)`, '');
    out.push('Where SPEC.md and FACTS.md allow more than one form, the checks accept each and note which one they saw. Information only: no verdict depends on it.', '');
    for (const c of noted) out.push(`- \`${c.id}\`: ${(c.notes ?? []).join('; ')}`);
    out.push('');
  }

  const properties = r.checks.filter((c) => (c.properties ?? []).length > 0);
  if (properties.length > 0) {
    const n = properties.reduce((a, c) => a + (c.properties ?? []).length, 0);
    out.push(`## Properties (${n} in ${properties.length} checks with generated inputs)`, '');
    out.push('Each property ran with the seed below (derived from the run seed and the check id); `--seed ' + String(r.seed) + '` reproduces them all. The verdict is the property\'s own: a check fails when one of its properties fails, the others keep theirs.', '');
    out.push('| check | property | verdict | seed | runs | failing path |', '|---|---|---|---:|---:|---|');
    for (const c of properties) {
      const list = c.properties ?? [];
      list.forEach((p, i) => {
        out.push(`| \`${c.id}\` | ${cell(propertyName(p, i, list.length))} | ${propertyVerdict(p, c.verdict)} | ${p.seed} | ${p.plannedRuns !== undefined ? `${p.numRuns} of ${p.plannedRuns} (its time ran out)` : p.numRuns} | ${p.path !== undefined ? `\`${p.path}\`` : ''} |`);
      });
    }
    out.push('');
  }

  return `${out.join('\n')}\n`;
}
