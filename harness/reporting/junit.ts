/**
 * junit.xml: one testsuite per interface, one testcase per requirement with the requirement's own verdict (a
 * check that failed one of its requirements does not fail the others), error and failure kept apart. Each testcase
 * names the checks behind its verdict as properties; a requirement no check covers is a skipped testcase ("untested").
 */
import type { RunReport } from './model.js';
import { binaryBodyOf, curlLine, firstExchange, rerunCommand } from './reproduce.js';
import { checkSpans, requirementSpan, type Span } from './spans.js';

const esc = (s: string) =>
  s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

type Outcome = 'pass' | 'fail' | 'error' | 'skipped' | 'known';

/** passing checks named one by one under a requirement */
const LISTED_PASSES = 10;
type Requirement = RunReport['requirements'][number];

export function renderJunit(report: RunReport): string {
  const known = new Map((report.baseline?.known ?? []).map((e) => [e.requirement, e.reason]));
  // one outcome per requirement decides both its testcase element and the counts, so the two never disagree
  const outcome = (q: Requirement): Outcome => {
    if (q.verdict === 'fail') return known.has(q.id) ? 'known' : 'fail';
    if (q.verdict === 'pass') return 'pass';
    return q.verdict === 'error' ? 'error' : 'skipped';
  };
  const count = (list: Requirement[], ...kinds: Outcome[]) => list.filter((q) => kinds.includes(outcome(q))).length;
  const checks = new Map(report.checks.map((c) => [c.id, c]));
  // a requirement's time: its wall span, from the first start to the last end of the checks behind it (checks that ran
  // side by side are not added up)
  const spans = checkSpans(report);
  const seconds = (s: Span | undefined) => (s === undefined ? 0 : (s.end - s.start) / 1000);
  const timeOf = (q: Requirement) => seconds(requirementSpan(q.checks.map((ref) => ref.id), spans));
  const byApi = new Map<string, Requirement[]>();
  for (const q of report.requirements) byApi.set(q.api, [...(byApi.get(q.api) ?? []), q]);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const all = report.requirements;
  // a run that is not passed where no testcase shows why (an interface that decided nothing, run.minDecided, a stopped
  // run): its outcome is a testcase in error, so that junit.xml is red whenever the exit code is not 0
  const gate = report.exitCode !== 0 && count(all, 'fail', 'error') + report.runErrors.length === 0 ? report.outcome : undefined;
  const extra = gate !== undefined ? 1 : 0;
  out.push(`<testsuites name="canton-conformance" tests="${all.length + report.runErrors.length + extra}" failures="${count(all, 'fail')}" errors="${count(all, 'error') + report.runErrors.length + extra}" skipped="${count(all, 'skipped', 'known')}" time="${(report.durationMs / 1000).toFixed(3)}">`);
  for (const [api, list] of byApi) {
    // the interface's time: the wall span of its checks
    const time = seconds(requirementSpan(report.checks.filter((c) => c.api === api).map((c) => c.id), spans));
    out.push(`  <testsuite name="${esc(api)}" tests="${list.length}" failures="${count(list, 'fail')}" errors="${count(list, 'error')}" skipped="${count(list, 'skipped', 'known')}" time="${time.toFixed(3)}" timestamp="${esc(report.startedAt)}">`);
    for (const q of list) {
      const classname = `${q.api}.${q.operations[0] ?? 'general'}`;
      const file = q.checks.find((ref) => ref.file !== undefined)?.file;
      out.push(`    <testcase classname="${esc(classname)}" name="${esc(`${q.id} (${q.level})`)}" time="${timeOf(q).toFixed(3)}"${file !== undefined ? ` file="${esc(file)}"` : ''}>`);
      out.push('      <properties>');
      out.push(`        <property name="requirement" value="${esc(q.id)}"/>`);
      out.push(`        <property name="level" value="${esc(q.level)}"/>`);
      out.push(`        <property name="verdict" value="${esc(q.verdict)}"/>`);
      // every check that did not keep it; of those that did, the first few (conformance.json lists every one)
      let passes = 0;
      for (const ref of q.checks) {
        if (ref.verdict === 'pass' && ref.blocked !== true && ++passes > LISTED_PASSES) continue;
        out.push(`        <property name="check" value="${esc(`${ref.id}: ${ref.blocked === true ? 'stopped at a failure of another requirement' : ref.verdict}`)}"/>`);
      }
      if (passes > LISTED_PASSES) out.push(`        <property name="check" value="${passes - LISTED_PASSES} more checks: pass"/>`);
      const seeds = new Set<string>();
      for (const f of q.failures) for (const p of f.properties ?? []) if (p.path !== undefined && (p.requirement === undefined || p.requirement === q.id)) seeds.add(`${f.checkId}${p.name !== undefined ? ` (${p.name})` : ''}: seed=${p.seed} runs=${p.numRuns} path=${p.path}`);
      for (const s of seeds) out.push(`        <property name="fast-check" value="${esc(s)}"/>`);
      // what reruns a failed requirement alone (a passive judgement's report generated nothing to rerun)
      if (outcome(q) === 'fail' && !('observed' in report)) out.push(`        <property name="rerun" value="${esc(rerunCommand(report, q))}"/>`);
      out.push('      </properties>');
      const o = outcome(q);
      const failures = q.failures.map((f) => `[${f.checkId}] ${f.message}`);
      if (o === 'known') {
        out.push(`      <skipped message="${esc(`known failure (baseline): ${known.get(q.id) ?? ''}: ${failures.join('; ')}`.slice(0, 500))}"/>`);
      } else if (o === 'fail') {
        // the failures, then a curl line that repeats the first failing exchange (a binary body sent from its saved file)
        const x = firstExchange(q)?.exchange;
        const binary = x !== undefined ? binaryBodyOf(x) : undefined;
        const file = binary !== undefined ? report.bodies?.[binary.sha256] : undefined;
        const curl = x !== undefined ? `\n\nreproduce${file !== undefined ? " (from the run's directory)" : ''}:\n${curlLine(x, file)}` : '';
        out.push(`      <failure message="${esc((q.failures[0]?.message ?? 'failed').slice(0, 500))}" type="ConformanceFailure">${esc(failures.join('\n') + curl)}</failure>`);
      } else if (o === 'error') {
        const errors = q.checks.filter((ref) => ref.verdict === 'error').map((ref) => `[${ref.id}] ${checks.get(ref.id)?.error ?? ref.reason ?? 'error'}`);
        out.push(`      <error message="${esc((q.reason ?? 'error').slice(0, 500))}" type="HarnessError">${esc(errors.join('\n'))}</error>`);
      } else if (o === 'skipped') {
        out.push(`      <skipped message="${esc(`${q.verdict}: ${q.reason ?? ''}`)}"/>`);
      }
      out.push(`      <system-out>${esc(q.statement)}</system-out>`);
      // a check that broke (harness, transport, overload) where other checks decided the requirement: said, not judged
      const broke = o === 'error' ? [] : q.checks.filter((ref) => ref.verdict === 'error').map((ref) => `[${ref.id}] ${checks.get(ref.id)?.error ?? ref.reason ?? 'error'}`);
      if (broke.length > 0) out.push(`      <system-err>${esc(`checks in error, which decided nothing here:\n${broke.join('\n')}`)}</system-err>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  if (report.runErrors.length > 0) {
    out.push(`  <testsuite name="run" tests="${report.runErrors.length}" failures="0" errors="${report.runErrors.length}" skipped="0">`);
    report.runErrors.forEach((e, i) => {
      out.push(`    <testcase classname="run" name="run error ${i + 1}"><error message="${esc(e.slice(0, 500))}">${esc(e)}</error></testcase>`);
    });
    out.push('  </testsuite>');
  }
  if (gate !== undefined) {
    out.push('  <testsuite name="run" tests="1" failures="0" errors="1" skipped="0">');
    out.push(`    <testcase classname="run" name="outcome (exit code ${report.exitCode})"><error message="${esc(gate.slice(0, 500))}">${esc(gate)}</error></testcase>`);
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
