/** junit.xml: one testsuite per interface, one testcase per check, error and failure kept apart. */
import type { RunReport } from './model.js';

const esc = (s: string) =>
  s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

type Outcome = 'pass' | 'fail' | 'error' | 'skipped' | 'known';

export function renderJunit(report: RunReport): string {
  const known = new Set((report.baseline?.known ?? []).map((e) => e.requirement));
  // one outcome per check decides both its testcase element and the counts, so the two never disagree
  const outcome = (c: RunReport['checks'][number]): Outcome => {
    if (c.verdict === 'fail') return (c.failures ?? []).length > 0 && (c.failures ?? []).every((f) => known.has(f.requirement)) ? 'known' : 'fail';
    if (c.verdict === 'skipped' || c.verdict === 'unsupported') return 'skipped';
    return c.verdict === 'pass' ? 'pass' : 'error';
  };
  const count = (checks: RunReport['checks'], ...kinds: Outcome[]) => checks.filter((c) => kinds.includes(outcome(c))).length;
  const byApi = new Map<string, RunReport['checks']>();
  for (const c of report.checks) byApi.set(c.api, [...(byApi.get(c.api) ?? []), c]);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const all = report.checks;
  out.push(`<testsuites name="canton-conformance" tests="${all.length}" failures="${count(all, 'fail')}" errors="${count(all, 'error') + report.runErrors.length}" skipped="${count(all, 'skipped', 'known')}" time="${(report.durationMs / 1000).toFixed(3)}">`);
  for (const [api, checks] of byApi) {
    const time = checks.reduce((a, c) => a + (c.durationMs ?? 0), 0) / 1000;
    out.push(`  <testsuite name="${esc(api)}" tests="${checks.length}" failures="${count(checks, 'fail')}" errors="${count(checks, 'error')}" skipped="${count(checks, 'skipped', 'known')}" time="${time.toFixed(3)}" timestamp="${esc(report.startedAt)}">`);
    for (const c of checks) {
      const classname = `${c.api}.${c.operations[0] ?? 'general'}`;
      out.push(`    <testcase classname="${esc(classname)}" name="${esc(`${c.title} [${c.id}]`)}" time="${((c.durationMs ?? 0) / 1000).toFixed(3)}"${c.file ? ` file="${esc(c.file)}"` : ''}>`);
      out.push('      <properties>');
      for (const r of c.requirements) out.push(`        <property name="requirement" value="${esc(r)}"/>`);
      out.push(`        <property name="verdict" value="${esc(c.verdict ?? 'error')}"/>`);
      for (const p of c.properties ?? []) out.push(`        <property name="fast-check" value="${esc(`seed=${p.seed} runs=${p.numRuns}${p.path ? ` path=${p.path}` : ''}`)}"/>`);
      out.push('      </properties>');
      const o = outcome(c);
      if (o === 'known') {
        out.push(`      <skipped message="${esc(`known failure (baseline): ${(c.failures ?? []).map((f) => `[${f.requirement}] ${f.message}`).join('; ').slice(0, 500)}`)}"/>`);
      } else if (o === 'fail') {
        const msg = (c.failures ?? []).map((x) => `[${x.requirement}] ${x.message}`).join('\n');
        out.push(`      <failure message="${esc((c.failures?.[0]?.message ?? 'failed').slice(0, 500))}" type="ConformanceFailure">${esc(msg)}</failure>`);
      } else if (o === 'error') {
        out.push(`      <error message="${esc((c.error ?? 'error').slice(0, 500))}" type="HarnessError">${esc(c.error ?? '')}</error>`);
      } else if (o === 'skipped') {
        out.push(`      <skipped message="${esc(`${c.verdict}: ${c.reason ?? ''}`)}"/>`);
      }
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
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
