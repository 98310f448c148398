/**
 * One verdict per requirement in every report. A derived check judges several requirements (one
 * per mutation kind, and the form of the rejections); the planted fault `ledger-derived-wrong-type-accepted` breaks one
 * of them only. conformance.json, junit.xml, summary.md, the Allure results and the single-file HTML rendered from them
 * must then agree requirement by requirement: the wrong-type rule failed, the other rules of the same failed checks
 * passed, a rule no check observed skipped, a rule no check covers untested. summary.md's properties table gives each
 * property its own row and verdict, named by what it generates; the response times per operation add up to the
 * requests the checks sent.
 *
 * One run of the CLI (its bundle, as users run it) against the embedded reference: the ledger's derived checks of the
 * selected requirements (about 20 checks), default depth, with the HTML report; about 5 s.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import type { RunReport } from '../../harness/reporting/model.js';
import type { RequirementVerdict } from '../../harness/types.js';

const FAULT = 'ledger-derived-wrong-type-accepted';
const BROKEN = 'ledger.derived.wrong-type-rejected';
/** judged by the same derived checks as BROKEN, and kept by the reference */
const KEPT = ['ledger.derived.non-integer-rejected', 'ledger.derived.out-of-range-rejected', 'ledger.derived.rejection-400'];
/** a status no response of such a run carries: skipped, not observed */
const NOT_OBSERVED = 'ledger.errors.status-429';
/** no check covers it */
const UNTESTED = 'ledger.rights.primary-party-default';
const SELECTED = [BROKEN, ...KEPT, NOT_OBSERVED, UNTESTED];

const tmp = mkdtempSync(join(tmpdir(), 'cc-requirement-reports-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** the Allure status of each requirement verdict (reporting/allure-status.ts) */
const ALLURE: Record<RequirementVerdict, string> = { pass: 'passed', fail: 'failed', error: 'broken', skipped: 'skipped', unsupported: 'skipped', untested: 'unknown' };

interface AllureResult {
  status: string;
  statusDetails?: { message?: string };
  labels: Array<{ name: string; value: string }>;
  steps?: Array<{ name: string; status: string }>;
}
const label = (r: AllureResult, name: string) => r.labels.find((l) => l.name === name)?.value;

let dir: string;
let report: RunReport;
let verdicts: Map<string, RequirementVerdict>;
let code: number | null;

beforeAll(() => {
  const reports = join(tmp, 'reports');
  const r = spawnSync(
    process.execPath,
    [join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs'), 'run', '--only', 'ledger', '--no-compare', '--reports-dir', reports, '--seed', '21', '--requirement', SELECTED.join(','), '--fault', FAULT],
    { cwd: PACKAGE_ROOT, encoding: 'utf8', timeout: 100_000, env: { ...process.env, NO_COLOR: '1' } },
  );
  expect(r.stderr).not.toMatch(/\n\s+at /);
  code = r.status;
  dir = join(reports, 'latest');
  report = JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as RunReport;
  verdicts = new Map(report.requirements.map((q) => [q.id, q.verdict]));
}, 120_000);

describe('one verdict per requirement in every report', () => {
  it('conformance.json: the broken rule failed; the other rules of the same failed checks kept their own verdicts', () => {
    expect(code).toBe(1);
    expect([...verdicts.keys()].sort()).toEqual([...SELECTED].sort());
    expect(verdicts.get(BROKEN)).toBe('fail');
    for (const id of KEPT) expect(verdicts.get(id), id).toBe('pass');
    expect(verdicts.get(NOT_OBSERVED)).toBe('skipped');
    expect(verdicts.get(UNTESTED)).toBe('untested');
    // the situation of the issue: failed checks that also judged (and passed) other selected requirements
    const failed = report.checks.filter((c) => c.verdict === 'fail');
    expect(failed.length).toBeGreaterThan(1);
    for (const c of failed) expect(new Set((c.failures ?? []).map((f) => f.requirement))).toEqual(new Set([BROKEN]));
    expect(failed.some((c) => c.requirements.filter((id) => KEPT.includes(id)).length >= 2)).toBe(true);
  });

  it('junit.xml: one testcase per requirement, with its own verdict, and counts that are the requirement counts', () => {
    const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
    const cases = [...xml.matchAll(/<testcase classname="[^"]*" name="([^" ]+) \((MUST|SHOULD|MAY)\)"[^>]*>([\s\S]*?)<\/testcase>/g)];
    const junit = new Map(
      cases.map(([, id, , body]) => {
        const b = body!;
        const v = b.includes('<failure ') ? 'fail' : b.includes('<error ') ? 'error' : /<skipped message="(skipped|unsupported|untested):/.exec(b)?.[1] ?? (b.includes('<skipped ') ? 'known' : 'pass');
        return [id!, v];
      }),
    );
    expect(junit).toEqual(verdicts);
    const count = (v: RequirementVerdict[]) => report.requirements.filter((q) => v.includes(q.verdict)).length;
    expect(xml).toMatch(new RegExp(`<testsuites [^>]*tests="${report.requirements.length}" failures="${count(['fail'])}" errors="${count(['error'])}" skipped="${count(['skipped', 'unsupported', 'untested'])}"`));
  });

  it('summary.md: the same failed, skipped, untested and passed requirements', () => {
    const md = readFileSync(join(dir, 'summary.md'), 'utf8');
    const failed = [...md.matchAll(/^### (\S+) \((?:MUST|SHOULD|MAY)\)/gm)].map((m) => m[1]);
    const section = (title: string) => md.split(`\n## ${title}`)[1]?.split('\n## ')[0] ?? '';
    // "- <verdict>: <reason>: `id`, `id`": the ids close the line (the reason may quote ids of its own)
    const skipped = [...section('Skipped and unsupported').matchAll(/^- (skipped|unsupported): .*?((?:`[^`]+`, )*`[^`]+`)$/gm)].flatMap((m) => [...m[2]!.matchAll(/`([^`]+)`/g)].map((x) => [x[1], m[1]]));
    const untested = [...section('Untested requirements').matchAll(/^- `([^`]+)`/gm)].map((m) => m[1]);
    const of = (v: RequirementVerdict) => report.requirements.filter((q) => q.verdict === v).map((q) => q.id).sort();
    expect(failed.sort()).toEqual(of('fail'));
    expect(skipped.filter(([, v]) => v === 'skipped').map(([id]) => id).sort()).toEqual(of('skipped'));
    expect(untested.sort()).toEqual(of('untested'));
    // the table per interface counts requirements: passes are the rest
    const row = /^\| ledger \| \*\*all\*\* \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$/m.exec(md);
    expect(row?.slice(1).map(Number)).toEqual([report.requirements.length, of('pass').length, of('fail').length, 0, of('skipped').length, 0, of('untested').length]);
  });

  it('Allure results: one per requirement with its own status; the checks\' own results kept aside', () => {
    const resultsDir = join(dir, 'allure-results');
    const results = readdirSync(resultsDir)
      .filter((f) => f.endsWith('-result.json'))
      .map((f) => JSON.parse(readFileSync(join(resultsDir, f), 'utf8')) as AllureResult);
    const allure = new Map(results.map((r) => [label(r, 'conformanceRequirement'), r]));
    expect(results.length).toBe(report.requirements.length);
    expect(new Map([...allure].map(([id, r]) => [id, r.status]))).toEqual(new Map(report.requirements.map((q) => [q.id, ALLURE[q.verdict]])));
    // a kept rule of failed checks: passed, and the failed checks' steps under it say so (or that the check saw nothing
    // of it: a check whose every mutated request the fault accepted has no rejection whose form it could judge)
    const failedChecks = report.checks.filter((c) => c.verdict === 'fail').map((c) => c.id);
    const kept = allure.get('ledger.derived.rejection-400')!;
    const underKept = (kept.steps ?? []).filter((s) => failedChecks.some((id) => s.name.startsWith(`${id}: `)));
    expect(underKept.filter((s) => s.status === 'passed').length).toBeGreaterThan(1);
    expect(underKept.every((s) => s.status === 'passed' || s.status === 'skipped')).toBe(true);
    const broken = allure.get(BROKEN)!;
    expect(broken.statusDetails?.message).toContain('expected a 4xx rejection');
    expect(broken.steps?.filter((s) => s.status === 'failed').length).toBe(report.checks.filter((c) => c.verdict === 'fail').length);
    expect(allure.get(NOT_OBSERVED)?.statusDetails?.message).toMatch(/^skipped: /);
    // the checks' results: one per check, out of the renderer's sight, each with its check's verdict
    const checks = readdirSync(join(resultsDir, 'checks')).filter((f) => f.endsWith('-result.json')).map((f) => JSON.parse(readFileSync(join(resultsDir, 'checks', f), 'utf8')) as AllureResult);
    expect(checks.length).toBe(report.checks.length);
    for (const c of checks) expect(c.status).toBe(ALLURE[report.checks.find((x) => x.id === label(c, 'conformanceCheck'))!.verdict!]);
  });

  it('the single-file HTML report: its embedded data gives the same failed requirements as conformance.json', () => {
    const html = readFileSync(join(dir, 'allure-report', 'index.html'), 'utf8');
    // the report's data is embedded as d("<path>", "<base64 JSON>") calls (Allure 3 awesome, singleFile)
    // (the JSON files: an attachment, such as a failed upload's binary body, is embedded the same way)
    const data = new Map([...html.matchAll(/\bd\("([^"]+\.json)","([A-Za-z0-9+/=]*)"\)/g)].map(([, name, b64]) => [name!, JSON.parse(Buffer.from(b64!, 'base64').toString('utf8')) as unknown]));
    const stats = data.get('widgets/statistic.json') as Record<string, number>;
    const count = (v: RequirementVerdict[]) => report.requirements.filter((q) => v.includes(q.verdict)).length;
    expect(stats.total).toBe(report.requirements.length);
    expect(stats.failed).toBe(count(['fail']));
    expect(stats.passed ?? 0).toBe(count(['pass']));
    expect(stats.skipped ?? 0).toBe(count(['skipped', 'unsupported']));
    expect(stats.unknown ?? 0).toBe(count(['untested']));
    const tests = [...data].filter(([name]) => name.startsWith('data/test-results/')).map(([, v]) => v as AllureResult);
    expect(tests.length).toBe(report.requirements.length);
    const failed = tests.filter((t) => t.status === 'failed').map((t) => label(t, 'requirement')).sort();
    expect(failed).toEqual(report.requirements.filter((q) => q.verdict === 'fail').map((q) => q.id).sort());
    expect(new Map(tests.map((t) => [label(t, 'requirement'), t.status]))).toEqual(new Map(report.requirements.map((q) => [q.id, ALLURE[q.verdict]])));
  });
});

describe('summary.md: one row per property, and the response times per operation', () => {
  it('names each derived property by its mutation kind and operation, with its own verdict', () => {
    const md = readFileSync(join(dir, 'summary.md'), 'utf8');
    const rows = [...md.matchAll(/^\| `([^`]+)` \| ([^|]+) \| (\w[\w ]*) \| (\d+) \| (\d+) \| ([^|]*) \|$/gm)].map((m) => ({ check: m[1]!, name: m[2]!.trim(), verdict: m[3]!, path: m[6]!.trim() }));
    const properties = report.checks.flatMap((c) => (c.properties ?? []).map((p) => ({ check: c.id, p })));
    expect(rows.length).toBe(properties.length);
    // a failed check: its wrong-type property failed (with its failing path), its other properties passed
    const check = report.checks.find((c) => c.id === 'ledger.derived.list-package-vetting')!;
    expect(check.verdict).toBe('fail');
    const mine = rows.filter((r) => r.check === check.id);
    expect(mine.map((r) => [r.name, r.verdict])).toEqual([
      ['wrong-type mutations of listPackageVetting', 'fail'],
      ['out-of-range mutations of listPackageVetting', 'pass'],
      ['non-integer mutations of listPackageVetting', 'pass'],
    ]);
    expect(mine[0]!.path).toMatch(/^`[\d:]+`$/);
    expect(mine.slice(1).every((r) => r.path === '')).toBe(true);
    // every failed property is a wrong-type one, every wrong-type property of the run failed or found no site
    for (const r of rows) if (r.verdict === 'fail') expect(r.name).toMatch(/^wrong-type mutations of /);
    // conformance.json carries the same names and verdicts
    expect(check.properties?.map((p) => [p.name, p.verdict, p.requirement])).toEqual([
      ['wrong-type mutations of listPackageVetting', 'fail', BROKEN],
      ['out-of-range mutations of listPackageVetting', 'pass', 'ledger.derived.out-of-range-rejected'],
      ['non-integer mutations of listPackageVetting', 'pass', 'ledger.derived.non-integer-rejected'],
    ]);
  });

  it('gives requests, p50, p95 and max per operation, adding up to the requests the checks sent', () => {
    const rows = report.latency ?? [];
    expect(rows.length).toBeGreaterThan(3);
    const requests = report.checks.reduce((a, c) => a + (c.requests ?? 0), 0);
    expect(rows.reduce((a, l) => a + l.requests, 0)).toBe(requests);
    for (const l of rows) {
      expect(l.api).toBe('ledger');
      expect(l.p50Ms!).toBeLessThanOrEqual(l.p95Ms!);
      expect(l.p95Ms!).toBeLessThanOrEqual(l.maxMs!);
    }
    expect(rows.map((l) => l.operation)).toContain('listPackageVetting');
    const md = readFileSync(join(dir, 'summary.md'), 'utf8');
    expect(md).toContain(`## Response times per operation (${rows.length} operations, information only)`);
    const lv = rows.find((l) => l.operation === 'listPackageVetting')!;
    expect(md).toContain(`| ledger | listPackageVetting | ${lv.requests} | ${lv.noResponse} | ${lv.p50Ms} | ${lv.p95Ms} | ${lv.maxMs} |`);
    // the checks carry bounded histograms, not exchanges: a passing check keeps none
    const passed = report.checks.find((c) => c.verdict === 'pass' && c.requests! > 0)!;
    expect(passed.exchanges).toBeUndefined();
    expect(Object.values(passed.latency ?? {}).reduce((a, t) => a + t.requests, 0)).toBe(passed.requests);
    expect(existsSync(join(dir, 'allure-report', 'index.html'))).toBe(true);
  });
});
