/**
 * The mutation report: the score per group (interface), the surviving mutants, and the triage file's verdicts on
 * them (survivors whose effect SPEC.md and FACTS.md make unobservable, left out of the second score).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { MutantResult, RunOutcome } from './run.js';

export interface TriageEntry {
  key: string;
  reason: string;
  /** unobservable: left out of the second score; gap: a check could notice it and none does yet (stays in the score) */
  kind: 'unobservable' | 'gap';
}

export class TriageError extends Error {}

/**
 * Reads the triage: a file, or a folder of them (every *.yaml in it, one per group by convention), each
 * `unobservable: [{ key, reason }]` and `gaps: [{ key, reason }]` (survivors a check could notice, with what is
 * missing). A missing file or folder is an empty triage; a key listed twice, in one file or two, is an error.
 */
export function loadTriage(path: string): TriageEntry[] {
  if (!existsSync(path)) return [];
  const files = statSync(path).isDirectory() ? readdirSync(path).filter((f) => f.endsWith('.yaml') || f.endsWith('.yml')).sort().map((f) => join(path, f)) : [path];
  const out: TriageEntry[] = [];
  const where = new Map<string, string>();
  for (const file of files) {
    for (const e of loadTriageFile(file)) {
      const first = where.get(e.key);
      if (first !== undefined) throw new TriageError(`${file}: ${e.key} is listed twice${first === file ? '' : ` (also in ${first})`}`);
      where.set(e.key, file);
      out.push(e);
    }
  }
  return out;
}

function loadTriageFile(file: string): TriageEntry[] {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new TriageError(`${file}: not valid YAML (${(e as Error).message.split('\n')[0]})`);
  }
  if (doc === null || doc === undefined) return [];
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new TriageError(`${file}: expected a mapping with the lists "unobservable" and "gaps"`);
  const out: TriageEntry[] = [];
  const keys = new Set<string>();
  for (const kind of ['unobservable', 'gaps'] as const) {
    const list = (doc as Record<string, unknown>)[kind];
    if (list !== undefined && list !== null && !Array.isArray(list)) throw new TriageError(`${file}: "${kind}" must be a list`);
    for (const [i, e] of ((list as unknown[] | null | undefined) ?? []).entries()) {
      const { key, reason } = (e ?? {}) as { key?: unknown; reason?: unknown };
      if (typeof key !== 'string' || key === '' || typeof reason !== 'string' || reason.trim() === '') throw new TriageError(`${file}: ${kind} entry ${i + 1} needs a "key" and a "reason" (both non-empty strings)`);
      if (keys.has(key)) throw new TriageError(`${file}: ${key} is listed twice`);
      keys.add(key);
      out.push({ key, reason: reason.trim(), kind: kind === 'gaps' ? 'gap' : 'unobservable' });
    }
  }
  return out;
}

export interface GroupScore {
  group: string;
  mutants: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  /** survivors (run or not reached) the triage file explains as unobservable */
  triaged: number;
  /** detected / all, in percent (undefined with no mutant) */
  score?: number;
  /** detected / (all - triaged) */
  scoreObservable?: number;
}

const pct = (a: number, b: number) => (b === 0 ? undefined : Math.round((1000 * a) / b) / 10);

/**
 * Marks the triaged survivors, and returns the stale triage entries: those whose mutant is detected now, and, where
 * the run made every mutant of some files (`wholeFiles`), those of these files that match no mutant any more.
 */
export function applyTriage(mutants: MutantResult[], triage: TriageEntry[], wholeFiles: readonly string[] = []): { stale: TriageEntry[] } {
  const byKey = new Map(triage.map((t) => [t.key, t]));
  const stale: TriageEntry[] = [];
  const seen = new Set<string>();
  for (const m of mutants) {
    const t = byKey.get(m.key);
    if (t === undefined) continue;
    seen.add(t.key);
    if (m.status !== 'survived' && m.status !== 'no-coverage') stale.push(t);
    else if (t.kind === 'gap') m.gap = t.reason;
    else m.triaged = t.reason;
  }
  const whole = new Set(wholeFiles);
  for (const t of triage) if (!seen.has(t.key) && whole.has(t.key.split('#')[0]!)) stale.push(t);
  return { stale };
}

export function scores(mutants: readonly MutantResult[]): GroupScore[] {
  const groups = [...new Set(mutants.map((m) => m.group))];
  const one = (group: string, ms: readonly MutantResult[]): GroupScore => {
    const n = (s: string) => ms.filter((m) => m.status === s).length;
    const killed = n('killed');
    const timeout = n('timeout');
    const triaged = ms.filter((m) => m.triaged !== undefined).length;
    const score = pct(killed + timeout, ms.length);
    const scoreObservable = pct(killed + timeout, ms.length - triaged);
    return { group, mutants: ms.length, killed, timeout, survived: n('survived'), noCoverage: n('no-coverage'), triaged, ...(score !== undefined ? { score } : {}), ...(scoreObservable !== undefined ? { scoreObservable } : {}) };
  };
  return [...groups.map((g) => one(g, mutants.filter((m) => m.group === g))), ...(groups.length > 1 ? [one('all', mutants)] : [])];
}

const fmt = (x: number | undefined) => (x === undefined ? '-' : `${x.toFixed(1)} %`);
const oneLine = (s: string, max = 100) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
};

/** The console table and the survivors. */
export function textReport(out: RunOutcome, stale: TriageEntry[]): string {
  const rows = scores(out.mutants);
  const head = ['interface', 'mutants', 'killed', 'timeout', 'survived', 'no coverage', 'score', 'triaged', 'score w/o triaged'];
  const cells = rows.map((r) => [r.group, r.mutants, r.killed, r.timeout, r.survived, r.noCoverage, fmt(r.score), r.triaged, fmt(r.scoreObservable)].map(String));
  const width = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(width[i]!) : x.padStart(width[i]!))).join('  ');
  let s = `${line(head)}\n${cells.map(line).join('\n')}\n`;
  s += passLines(out).map((l) => `${l}\n`).join('');
  for (const m of out.merged ?? []) s += `merged: ${m.mutants} mutants run again at ${m.at} (${m.file})${m.unmatched > 0 ? `; ${m.unmatched} of its mutants are not in this run, left out` : ''}\n`;
  const left = out.mutants.filter((m) => (m.status === 'survived' || m.status === 'no-coverage') && m.triaged === undefined && m.gap === undefined);
  const gaps = out.mutants.filter((m) => m.gap !== undefined);
  if (gaps.length > 0) s += `\n${gaps.length} survivors are known gaps in the checks (see mutation.md)\n`;
  if (left.length > 0) {
    s += `\nsurvivors not triaged (${left.length}):\n`;
    for (const m of left) s += `  #${m.id} ${m.file}:${m.line}:${m.column} ${m.operator}${m.status === 'no-coverage' ? ' (not reached by the tests)' : m.passes !== undefined && m.passes.length > 1 ? ` (run in ${m.passes.join(', ')})` : ''}\n    ${oneLine(m.original)}  ->  ${oneLine(m.mutated)}\n    key: ${m.key}\n`;
  }
  const triaged = out.mutants.filter((m) => m.triaged !== undefined);
  if (triaged.length > 0) s += `\n${triaged.length} survivors are triaged as unobservable (see mutation.md)\n`;
  if (stale.length > 0) s += `\nstale triage entries, whose mutant is detected now or is made no more (remove them): ${stale.map((t) => t.key).join(', ')}\n`;
  return s;
}

/** Per pass: the mutants it reached and detected; and how many timed out and were run again alone. */
function passLines(out: RunOutcome): string[] {
  const lines: string[] = [];
  if ((out.passes?.length ?? 0) > 1) {
    lines.push(`\npasses (a mutant runs in each that reaches it, in this order, up to the first that detects it):`);
    for (const p of out.passes!) {
      const detected = out.mutants.filter((m) => m.pass === p.name).length;
      lines.push(`  ${p.name}${p.args.length > 0 ? ` (${p.args.join(' ')}; ${p.apis.join(', ')})` : ''}: ${p.reached} reached, ${detected} detected; ${(p.baselineMs / 1000).toFixed(1)} s without a mutant`);
    }
  }
  if ((out.rerunTimeouts ?? 0) > 0) {
    const again = out.mutants.filter((m) => m.rerun === true);
    lines.push(`\n${out.rerunTimeouts} timed out and were run again alone: ${again.filter((m) => m.status === 'timeout').length} timed out again, ${again.filter((m) => m.status === 'killed').length} killed, ${again.filter((m) => m.status === 'survived').length} survived`);
  }
  return lines;
}

/** mutation.md: the scores, every survivor with its triage, and how the run was made. */
export function markdownReport(out: RunOutcome, stale: TriageEntry[]): string {
  const rows = scores(out.mutants);
  let s = `# Mutation report\n\n${out.startedAt} to ${out.finishedAt}; source: ${out.source}${out.commit !== undefined ? ` (commit ${out.commit.slice(0, 12)})` : ''}; test command: \`${out.command}\` (CC_MUTANT=id); ` +
    `the tests without a mutant took ${(out.baselineMs / 1000).toFixed(1)} s.\n\n`;
  s += '| interface | mutants | killed | timeout | survived | no coverage | score | triaged | score w/o triaged |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|\n';
  for (const r of rows) s += `| ${r.group} | ${r.mutants} | ${r.killed} | ${r.timeout} | ${r.survived} | ${r.noCoverage} | ${fmt(r.score)} | ${r.triaged} | ${fmt(r.scoreObservable)} |\n`;
  const esc = (x: string) => oneLine(x, 160).replaceAll('|', '\\|').replaceAll('`', "'");
  if ((out.passes?.length ?? 0) > 1) {
    s += '\n## Passes\n\nA mutant runs in each pass whose run without a mutant reached it, in this order, up to the first that detects it.\n\n| pass | options | interfaces | without a mutant | reached | detected |\n|---|---|---|--:|--:|--:|\n';
    for (const p of out.passes!) s += `| ${p.name} | ${p.args.length > 0 ? `\`${p.args.join(' ')}\`` : '-'} | ${p.apis.join(', ')} | ${(p.baselineMs / 1000).toFixed(1)} s | ${p.reached} | ${out.mutants.filter((m) => m.pass === p.name).length} |\n`;
    const later = out.mutants.filter((m) => m.pass !== undefined && m.pass !== out.passes![0]!.name);
    if (later.length > 0) {
      s += `\nDetected only in a later pass (${later.length}):\n\n| where | operator | original | mutated | pass | key |\n|---|---|---|---|---|---|\n`;
      s += later.map((m) => `| ${m.file}:${m.line} | ${m.operator} | \`${esc(m.original)}\` | \`${esc(m.mutated)}\` | ${m.pass} | ${esc(m.key)} |`).join('\n') + '\n';
    }
  }
  if ((out.merged?.length ?? 0) > 0) {
    s += '\n## Runs merged in\n\nMutants run again later (by key, e.g. after a check was added): each takes its later result.\n\n| file | made at | mutants | detected now | not in this run |\n|---|---|--:|--:|--:|\n';
    for (const m of out.merged!) s += `| ${esc(m.file)} | ${m.at} | ${m.mutants} | ${out.mutants.filter((x) => x.rerunAt === m.at && (x.status === 'killed' || x.status === 'timeout')).length} | ${m.unmatched} |\n`;
  }
  if ((out.rerunTimeouts ?? 0) > 0) s += passLines({ ...out, passes: [] }).join('\n').replace(/^\n/, '\n') + '\n';
  const table = (ms: MutantResult[], withReason: boolean, title = 'why unobservable', reason = (m: MutantResult) => m.triaged ?? '') =>
    `| where | operator | original | mutated | ${withReason ? title : 'status'} | key |\n|---|---|---|---|---|---|\n` +
    ms.map((m) => `| ${m.file}:${m.line} | ${m.operator} | \`${esc(m.original)}\` | \`${esc(m.mutated)}\` | ${withReason ? esc(reason(m)) : m.status} | ${esc(m.key)} |`).join('\n') + '\n';
  const left = out.mutants.filter((m) => (m.status === 'survived' || m.status === 'no-coverage') && m.triaged === undefined && m.gap === undefined);
  const triaged = out.mutants.filter((m) => m.triaged !== undefined);
  const gaps = out.mutants.filter((m) => m.gap !== undefined);
  s += `\n## Survivors not triaged (${left.length})\n\nNot yet looked at: each is a gap in the checks or a change SPEC.md and FACTS.md make unobservable; the triage file says which.\n\n${left.length > 0 ? table(left, false) : 'None.\n'}`;
  s += `\n## Known gaps in the checks (${gaps.length})\n\nSurvivors a conforming check could notice; they stay in both scores until a check catches them.\n\n${gaps.length > 0 ? table(gaps, true, 'what is missing', (m) => m.gap ?? '') : 'None.\n'}`;
  s += `\n## Survivors triaged as unobservable (${triaged.length})\n\n${triaged.length > 0 ? table(triaged, true) : 'None.\n'}`;
  if (stale.length > 0) s += `\n## Stale triage entries\n\nTheir mutants are detected now, or no longer made (the code changed): remove them from the triage file.\n\n${stale.map((t) => `- ${t.key}`).join('\n')}\n`;
  return s;
}
