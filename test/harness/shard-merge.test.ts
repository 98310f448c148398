/**
 * Sharded runs: `run --shard i/n` runs a stable share of the checks, and `merge` of the n shards' reports gives the
 * verdicts of one unsharded run (every requirement, every check, the exit code). Shards that are not the shards of
 * one run are refused (exit 2); a missing shard is named, its checks reported as errors, the merge INCOMPLETE (exit 3).
 *
 * The runs: some registry requirements (11 checks, in all three shards) against the embedded reference with a planted
 * fault (so that a failure judged by checks of every shard is part of what must match, beside passes, skipped
 * requirements and generic rules judged on every response), 5 runs per property, no HTML.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, loadConfig, type Config } from '../../harness/config.js';
import { runConformance, type RunResult } from '../../harness/run/runner.js';
import { mergeShards } from '../../harness/reporting/merge.js';
import type { RunReport } from '../../harness/reporting/model.js';
import { parseShard, shardOf } from '../../harness/run/shard.js';
import { main } from '../../harness/cli.js';
import { errorOf } from './config-error.js';

const FAULT = 'registry-choice-context-synchronizer-id-null';
const SHARDS = 3;
const REQUIREMENTS = [
  'registry.choice-context.disclosed-contract-fields',
  'registry.choice-context.debug-fields-excluded',
  'registry.choice-context.debug-fields-absent',
  'registry.choice-context.meta-optional',
  'registry.get-allocation-factory.missing-choice-arguments-rejected',
  'registry.versioning.path-versions',
  'registry.http.no-server-error',
];
const tmp = mkdtempSync(join(tmpdir(), 'cc-shard-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function config(name: string, shard?: number): Config {
  return {
    run: { ...DEFAULT_RUN, only: ['registry'], requirements: REQUIREMENTS, runs: 5, html: false, compare: false, reportsDir: join(tmp, name), ...(shard !== undefined ? { shard: { index: shard, count: SHARDS } } : {}) },
    targets: {},
    reference: { faults: [FAULT] },
    useReference: true,
    sources: ['test'],
  };
}

function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  return main(args, { out: (s) => void (out += s), err: (s) => void (err += s) }).then((code) => ({ code, out, err }));
}

const verdicts = (r: RunReport) => ({
  requirements: Object.fromEntries(r.requirements.map((q) => [q.id, q.verdict])),
  checks: Object.fromEntries(r.checks.map((c) => [c.id, c.verdict])),
  failed: Object.fromEntries(r.requirements.filter((q) => q.failures.length > 0).map((q) => [q.id, q.failures.map((f) => f.checkId).sort()])),
});

describe('sharded runs merged', () => {
  let whole: RunResult;
  const shards: RunResult[] = [];
  const shardDir = (i: number) => join(tmp, `shard-${i}`);

  beforeAll(async () => {
    whole = await runConformance(config('whole'), { write: () => undefined });
    for (let i = 1; i <= SHARDS; i++) shards.push(await runConformance(config(`shard-${i}`, i), { write: () => undefined }));
  }, 180_000);

  it('split the checks: every check in exactly the shard its id hashes to, none twice, none lost', () => {
    const ids = shards.flatMap((s, i) => s.report.checks.map((c) => {
      expect(shardOf(c.id, SHARDS), c.id).toBe(i + 1);
      return c.id;
    }));
    expect(ids.sort()).toEqual(whole.report.checks.map((c) => c.id).sort());
    expect(shards.every((s) => s.report.checks.length > 0)).toBe(true);
    expect(shards.map((s) => s.report.shard)).toEqual([1, 2, 3].map((index) => ({ index, count: SHARDS })));
  });

  it('gives the verdicts of the unsharded run: every requirement, every check, the failures and the exit code', async () => {
    // the planted fault fails a MUST requirement: the comparison covers fail as well as pass and skipped
    expect(whole.report.exitCode).toBe(1);
    expect(Object.keys(verdicts(whole.report).failed)).toContain('registry.choice-context.disclosed-contract-fields');
    expect(new Set(Object.values(verdicts(whole.report).requirements))).toEqual(new Set(['pass', 'fail', 'skipped']));
    // laid out as docs/ci/github-actions.yml downloads them: one directory per shard artifact, each holding the shard's
    // run directory (the `latest` link left out); the merge of docs/ci/gitlab-ci.yml reads reports directories
    // (shards/<i>/ with their `latest` link), as the other tests here do
    const artifacts = [1, 2, 3].map((i) => {
      const dir = join(tmp, 'download', `conformance-shard-${i}`);
      cpSync(shards[i - 1]!.dir, join(dir, basename(shards[i - 1]!.dir)), { recursive: true });
      return dir;
    });
    const r = await cli(['merge', ...artifacts, '--reports-dir', join(tmp, 'merged'), '--no-html', '--no-compare']);
    expect(r.err).toBe('');
    const merged = JSON.parse(readFileSync(join(tmp, 'merged', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    expect(verdicts(merged)).toEqual(verdicts(whole.report));
    expect(merged.counts).toEqual(whole.report.counts);
    expect(merged.checkCounts).toEqual(whole.report.checkCounts);
    expect(merged.outcome).toBe(whole.report.outcome);
    expect(r.code).toBe(whole.report.exitCode);
    expect(merged.merged).toMatchObject({ count: SHARDS, missing: [] });
    expect(merged.shard).toBeUndefined();
    for (const f of ['summary.md', 'junit.xml']) expect(existsSync(join(tmp, 'merged', 'latest', f))).toBe(true);
    expect(readFileSync(join(tmp, 'merged', 'latest', 'summary.md'), 'utf8')).toContain('merged from shard 1/3');
    expect(r.out).toContain(merged.outcome);
  });

  it('merges the Allure results into one per requirement with the merged verdict, and the response times per operation', () => {
    const dir = join(tmp, 'merged', 'latest');
    const merged = JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as RunReport;
    const results = join(dir, 'allure-results');
    const read = (d: string) => readdirSync(d).filter((f) => f.endsWith('-result.json')).map((f) => JSON.parse(readFileSync(join(d, f), 'utf8')) as { status: string; labels: Array<{ name: string; value: string }> });
    const status = { pass: 'passed', fail: 'failed', error: 'broken', skipped: 'skipped', unsupported: 'skipped', untested: 'unknown' } as const;
    // each shard wrote a result per requirement (most of them untested in its share): the merge writes them again
    const byRequirement = new Map(read(results).map((r) => [r.labels.find((l) => l.name === 'conformanceRequirement')?.value, r.status]));
    expect(byRequirement).toEqual(new Map(merged.requirements.map((q) => [q.id, status[q.verdict]])));
    expect(read(join(results, 'checks')).length).toBe(whole.report.checks.length);
    // the response times: the shards' requests per operation, added up; the maximum the largest of the shards'
    const rows = merged.latency ?? [];
    expect(rows.length).toBeGreaterThan(0);
    for (const l of rows) {
      const parts = shards.flatMap((s) => (s.report.latency ?? []).filter((x) => x.api === l.api && x.operation === l.operation));
      expect(l.requests, l.operation).toBe(parts.reduce((a, x) => a + x.requests, 0));
      expect(l.maxMs, l.operation).toBe(Math.max(...parts.map((x) => x.maxMs ?? 0)));
    }
    expect(rows.reduce((a, l) => a + l.requests, 0)).toBe(merged.checks.reduce((a, c) => a + (c.requests ?? 0), 0));
  });

  it('applies a baseline and diffs against the earlier run of its reports directory, as a run does', async () => {
    const baseline = join(tmp, 'known.yaml');
    writeFileSync(baseline, 'expectations:\n  - requirement: registry.choice-context.disclosed-contract-fields\n    reason: the planted fault of this test\n');
    // the reports directory's latest run is the merge of the test above: the default comparison
    const r = await cli(['merge', ...[1, 2, 3].map(shardDir), '--reports-dir', join(tmp, 'merged'), '--no-html', '--baseline', baseline]);
    const merged = JSON.parse(readFileSync(join(tmp, 'merged', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    expect(r.code).toBe(0);
    expect(merged.baseline?.known.map((k) => k.requirement)).toEqual(['registry.choice-context.disclosed-contract-fields']);
    expect(merged.diff).toMatchObject({ regressions: [], fixes: [], other: [], notInEarlier: 0 });
    expect(verdicts(merged)).toEqual(verdicts(whole.report));
  });

  it('names a missing shard, reports its checks as errors and exits as an incomplete run', async () => {
    const r = await cli(['merge', shardDir(1), shardDir(3), '--reports-dir', join(tmp, 'partial'), '--no-html', '--no-compare']);
    const merged = JSON.parse(readFileSync(join(tmp, 'partial', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    expect(r.out).toContain('shard 2/3 missing');
    expect(merged.merged?.missing).toEqual([2]);
    expect(merged.runErrors.join('\n')).toContain('shard 2/3 missing');
    const absent = shards[1]!.report.checks.map((c) => c.id).sort();
    expect(merged.checks.filter((c) => c.verdict === 'error').map((c) => c.id).sort()).toEqual(absent);
    // the fault's MUST failure is seen by a present shard, so the run fails (1); without it, it would be incomplete (3)
    expect(r.code).toBe(merged.exitCode);
    expect(merged.exitCode).toBe(verdicts(merged).failed['registry.choice-context.disclosed-contract-fields'] !== undefined ? 1 : 3);
    expect(readFileSync(join(tmp, 'partial', 'latest', 'summary.md'), 'utf8')).toContain('shard 2/3 missing');
  });

  it('writes a report for a shard with nothing to run', async () => {
    const req = whole.report.requirements.find((q) => q.checks.length === 1)!;
    const other = (shardOf(req.checks[0]!.id, SHARDS) % SHARDS) + 1;
    const empty = await runConformance({ ...config('empty', other), run: { ...config('empty', other).run, requirements: [req.id] } }, { write: () => undefined });
    expect(empty.report.selection.requirements).toEqual([req.id]);
    expect(empty.report.checks).toEqual([]);
    expect(empty.report.shard).toEqual({ index: other, count: SHARDS });
    expect(empty.report.exitCode).toBe(0);
    for (const f of ['conformance.json', 'summary.md', 'junit.xml']) expect(existsSync(join(empty.dir, f)), f).toBe(true);
  });

  /** a copy of shard i's run directory whose conformance.json is changed by `edit` */
  function altered(i: number, name: string, edit: (r: RunReport & { config: { run: Record<string, unknown> } }) => void): string {
    const dir = join(tmp, name);
    cpSync(shards[i - 1]!.dir, dir, { recursive: true });
    const report = JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as RunReport & { config: { run: Record<string, unknown> } };
    edit(report);
    writeFileSync(join(dir, 'conformance.json'), JSON.stringify(report));
    return dir;
  }

  it('refuses shards of different seeds, configurations, suite versions or shard counts, and a shard given twice (exit 2)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[shardDir(1), altered(2, 'seed', (r) => { r.seed = 7; r.config.run.seed = 7; })], /different seeds: .* seed 42, .* seed 7/],
      [[shardDir(1), altered(2, 'runs', (r) => { r.config.run.runs = 500; })], /different configurations: .*run\.runs: 5 vs 500/],
      [[shardDir(1), altered(2, 'version', (r) => { r.suite.version = '9.9.9'; })], /different suite versions/],
      [[shardDir(1), altered(2, 'count', (r) => { r.shard = { index: 2, count: 4 }; })], /different numbers of shards/],
      [[shardDir(1), shardDir(1)], /shard 1\/3 is given twice/],
      [[shardDir(1), altered(2, 'stray', (r) => { r.shard = { index: 3, count: 3 }; })], /belongs to shard 2\/3, not 3\/3/],
      [[join(tmp, 'nowhere')], /does not exist/],
      [[join(tmp, 'merged', 'latest')], /already a merged report/],
    ];
    for (const [dirs, message] of cases) {
      const r = await cli(['merge', ...dirs, '--reports-dir', join(tmp, 'refused'), '--no-html', '--no-compare']);
      expect({ code: r.code, err: r.err }, dirs.join(' ')).toMatchObject({ code: 2, err: expect.stringMatching(message) as unknown });
    }
    expect(existsSync(join(tmp, 'refused'))).toBe(false);
    // the embedded reference's generated targets (its ports) differ per shard and are not compared; its settings are
    await expect(mergeShards([shardDir(1), altered(2, 'fault', (r) => { (r.config as unknown as { reference: { faults: string[] } }).reference.faults = []; })], { reportsDir: join(tmp, 'refused'), html: false, compare: false, suiteVersion: version })).rejects.toThrow(/reference\.faults/);
  });
});

describe('the --shard setting', () => {
  it('accepts i/n with 1 <= i <= n, from the flag and from run.shard', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    expect(loadConfig({ flags: { shard: '1/1' }, env: {} }).run.shard).toEqual({ index: 1, count: 1 });
    const file = join(tmp, 'shard.yaml');
    writeFileSync(file, 'run:\n  shard: 3/4\nreference: {}\n');
    expect(loadConfig({ flags: { config: file }, env: {} }).run.shard).toEqual({ index: 3, count: 4 });
    writeFileSync(file, 'run:\n  shard: 5/4\nreference: {}\n');
    expect(errorOf(() => loadConfig({ flags: { config: file }, env: {} }))).toContain('run.shard: "5/4": the shard index must be between 1 and 4');
  });

  it('refuses anything else with a clear message and exit 2, before anything runs', async () => {
    for (const bad of ['0/3', '4/3', '3', 'a/b', '1/0', '-1/2', '1.5/3']) {
      const r = await cli(['run', '--shard', bad, '--no-html', '--reports-dir', join(tmp, 'never')]);
      expect({ code: r.code, err: r.err }, bad).toMatchObject({ code: 2, err: expect.stringContaining(`--shard: "${bad}"`) as unknown });
    }
    expect(existsSync(join(tmp, 'never'))).toBe(false);
  });

  it('puts a check in the same shard whatever else is selected, and spreads the checks over the shards', () => {
    const ids = Array.from({ length: 300 }, (_, i) => `ledger.some-check-${i}`);
    for (const n of [2, 3, 5]) {
      const sizes = new Map<number, number>();
      for (const id of ids) {
        const s = shardOf(id, n);
        expect(s).toBe(shardOf(id, n));
        sizes.set(s, (sizes.get(s) ?? 0) + 1);
      }
      expect([...sizes.keys()].sort()).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      for (const size of sizes.values()) expect(size).toBeGreaterThan(300 / n / 2);
    }
  });
});
