/**
 * What a run prints at its end (harness/reporting/console.ts): on a failing run the failed requirements, grouped by
 * interface, each with its level, a one-line reason and a curl line, capped with "and N more in summary.md"; against a
 * closed port the commonest cause of the errors; the seed of each property only with --verbose.
 *
 * Two runs of the CLI against the embedded reference with three planted faults (ledger and scan, about 4 s) and one
 * against a closed port (ledger only, about 2 s).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import { consoleLines, LISTED_FAILURES } from '../../harness/reporting/console.js';
import type { RunReport } from '../../harness/reporting/model.js';
import { exchangeKey } from '../../harness/reporting/reproduce.js';
import type { ExchangeRecord } from '../../harness/types.js';
import { freePort } from '../robustness/harness.js';

/** three planted faults, each breaking one MUST requirement; one of them is a binary upload */
const FAULTS: Record<string, string> = {
  'ledger-users-id-129-accepted': 'ledger.users.id-too-long-rejected',
  'scan-list-ans-entries-prefix-ignored': 'scan.list-ans-entries.name-prefix-match',
  'ledger-upload-package-non-archive-accepted': 'ledger.upload-package.invalid-archive-rejected',
};

/** a fault every call of an operation shows (GET /v2/version without its version): the same failing exchange, again and again */
const REPEATED_FAULT = 'ledger-get-version-version-missing';
const REPEATED = 'ledger.get-version.response-schema';

const tmp = mkdtempSync(join(tmpdir(), 'cc-console-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs'), ...args], { cwd: tmp, encoding: 'utf8', timeout: 100_000, env: { ...process.env, NO_COLOR: '1' } });
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return { code: r.status, out: r.stdout, err: r.stderr };
}


let faulty: ReturnType<typeof cli>;
let report: RunReport;
let runDir: string;

beforeAll(() => {
  const reports = join(tmp, 'faulty');
  faulty = cli(['run', '--only', 'ledger,scan', '--no-html', '--no-compare', '--reports-dir', reports, ...[...Object.keys(FAULTS), REPEATED_FAULT].flatMap((f) => ['--fault', f])]);
  runDir = join(reports, 'latest');
  report = JSON.parse(readFileSync(join(runDir, 'conformance.json'), 'utf8')) as RunReport;
}, 120_000);

describe('the console at the end of a failing run', () => {
  it('names every failed requirement with its level, a one-line reason and a curl line, grouped by interface', () => {
    expect(faulty.code).toBe(1);
    const lines = faulty.out.split('\n');
    const list = lines.indexOf(lines.find((l) => l.startsWith('failed requirements ('))!);
    const outcome = lines.findIndex((l) => l.startsWith('FAILED: '));
    expect(list).toBeGreaterThanOrEqual(0);
    // the verdict stays last but for the counts and the reports' place
    expect(outcome).toBeGreaterThan(list);
    for (const requirement of Object.values(FAULTS)) {
      const at = lines.findIndex((l) => l.startsWith(`    ${requirement} (MUST): `));
      expect(at, `${requirement} named`).toBeGreaterThan(list);
      expect(at).toBeLessThan(outcome);
      expect(lines[at]!.length).toBeLessThan(260);
      expect(lines[at + 1], `a curl line under ${requirement}`).toMatch(/^\s+curl -sS -X (GET|POST) '/);
    }
    // grouped: the interface's line comes before its requirements
    const ledger = lines.indexOf('  ledger');
    const scan = lines.indexOf('  scan');
    expect(ledger).toBeGreaterThan(list);
    expect(scan).toBeGreaterThan(ledger);
    expect(lines.findIndex((l) => l.includes('scan.list-ans-entries.name-prefix-match (MUST)'))).toBeGreaterThan(scan);
    // a binary upload is sent from a file, not as the recorder's text description of it
    const upload = lines[lines.findIndex((l) => l.includes('ledger.upload-package.invalid-archive-rejected (MUST)')) + 1]!;
    const file = /--data-binary @(\S+\.bin)$/.exec(upload)?.[1];
    expect(file, upload).toBeDefined();
    // the file the run saved, relative to where the command ran
    expect(existsSync(join(tmp, file!))).toBe(true);
    expect(upload).not.toContain('bytes of binary data');
    expect(faulty.out).toMatch(/^rerun one: canton-conformance run --seed 42 --requirement \S+ --only (ledger|scan)( --fault \S+){4}$/m);
  });

  it('prints the seed of each property only with --verbose', () => {
    expect(faulty.out).toMatch(/^properties: \d+ in \d+ checks ran with seeds derived from --seed 42 \(--verbose lists them/m);
    expect(faulty.out).not.toMatch(/^ {2}\S+ seed \d+ \(/m);
    const verbose = consoleLines({ report, dir: runDir, files: [] }, { verbose: true });
    const seeds = verbose.filter((l) => /^ {2}\S+ seed \d+ \(/.test(l));
    expect(seeds.length).toBeGreaterThan(20);
    expect(seeds.length).toBe(new Set(report.checks.filter((c) => (c.properties ?? []).length > 0).map((c) => c.id)).size);
  });

  it('caps the list with "and N more in summary.md"', () => {
    const failed = report.requirements.find((q) => q.verdict === 'fail')!;
    const many = Array.from({ length: LISTED_FAILURES + 3 }, (_, i) => ({ ...failed, id: `${failed.id}-${i}` }));
    const big: RunReport = { ...report, requirements: [...report.requirements.filter((q) => q.verdict !== 'fail'), ...many] };
    const lines = consoleLines({ report: big, dir: runDir, files: [] });
    expect(lines.filter((l) => /^ {4}\S+ \((MUST|SHOULD|MAY)\): /.test(l))).toHaveLength(LISTED_FAILURES);
    expect(lines).toContain('  and 3 more in summary.md');
    expect(lines.at(-1)).toMatch(/^reports: /);
  });
});

describe('the console at the end of a run against a closed port', () => {
  it('names the commonest cause of the errors with the interface, its URL and how many checks it broke', async () => {
    const port = await freePort();
    // past the preflight, which stops at a closed port before any check (exit 2): the run's own errors are the subject
    writeFileSync(join(tmp, 'closed.yaml'), `targets: { ledger: { url: "http://127.0.0.1:${port}", version: "3.5" } }\n`);
    const r = cli(['run', '--config', 'closed.yaml', '--no-preflight', '--only', 'ledger', '--no-html', '--no-compare', '--reports-dir', join(tmp, 'closed')]);
    expect(r.code).toBe(3);
    const cause = new RegExp(`^ {2}connection refused by ledger at http://127\\.0\\.0\\.1:${port}\\b[^\\n]*: (\\d+) checks$`, 'm').exec(r.out);
    expect(cause, r.out).not.toBeNull();
    const closed = JSON.parse(readFileSync(join(tmp, 'closed', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    const errored = closed.checks.filter((c) => c.verdict === 'error').length;
    expect(Number(cause![1])).toBeGreaterThan(errored / 2);
    expect(r.out).toMatch(/^errors: \d+ checks could not decide their requirements/m);
    expect(r.out.trimEnd().split('\n').find((l) => l.startsWith('INCOMPLETE: '))).toBeDefined();
  }, 100_000);
});

describe('the same failing exchange, found again and again', () => {
  it('is attached once per check and requirement, and told once in summary.md', () => {
    const q = report.requirements.find((x) => x.id === REPEATED)!;
    expect(q.verdict).toBe('fail');
    const checksDir = join(runDir, 'allure-results', 'checks');
    let attachments = 0;
    for (const name of readdirSync(checksDir).filter((n) => n.endsWith('-result.json'))) {
      const result = JSON.parse(readFileSync(join(checksDir, name), 'utf8')) as { attachments?: Array<{ name: string; source: string }>; steps?: Array<{ attachments?: Array<{ name: string; source: string }> }> };
      const all = [...(result.attachments ?? []), ...(result.steps ?? []).flatMap((s) => s.attachments ?? [])].filter((a) => a.name === `${REPEATED} exchange`);
      const keys = all.map((a) => {
        const x = JSON.parse(readFileSync(join(runDir, 'allure-results', a.source), 'utf8')) as ExchangeRecord;
        return exchangeKey(x);
      });
      attachments += keys.length;
      expect(new Set(keys).size, name).toBe(keys.length);
    }
    expect(attachments).toBeGreaterThan(0);
    expect(attachments).toBeLessThan(q.failures.length);
    const section = readFileSync(join(runDir, 'summary.md'), 'utf8').split(`\n### ${REPEATED} (`)[1]!.split('\n### ')[0]!;
    expect(section).toMatch(new RegExp(`^${q.failures.length} failures, \\d+ distinct`, 'm'));
  });
});
