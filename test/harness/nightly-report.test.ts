/**
 * Report size at nightly depth: a run with --runs 200 keeps conformance.json bounded. A passing check keeps
 * no recorded exchange in the report however many requests its properties sent; a failing one keeps the exchange of its
 * failure in full (request and response, in conformance.json and as an Allure attachment) and its last few exchanges.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import type { ExchangeRecord, FailureRecord } from '../../harness/types.js';

const tmp = mkdtempSync(join(tmpdir(), 'cc-nightly-report-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const FAILING = 'scan.list-validator-licenses.limit-below-min-rejected';
const PASSING = 'scan.list-validator-licenses.limit-above-max-rejected';

interface ReportedCheck {
  id: string;
  verdict: string;
  requests?: number;
  failures?: FailureRecord[];
  exchanges?: ExchangeRecord[];
  properties?: Array<{ numRuns: number }>;
}

describe('conformance.json at nightly depth (--runs 200)', () => {
  it('keeps no exchange of a passing check, the failing exchange in full, and stays small', { timeout: 120_000 }, () => {
    const reports = join(tmp, 'reports');
    const r = spawnSync(
      process.execPath,
      [join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs'), 'run', '--no-html', '--no-compare', '--reports-dir', reports, '--runs', '200', '--requirement', `${FAILING},${PASSING}`, '--fault', 'scan-licenses-limit-zero-accepted'],
      { cwd: PACKAGE_ROOT, encoding: 'utf8', timeout: 110_000, env: { ...process.env, NO_COLOR: '1' } },
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const file = join(reports, 'latest', 'conformance.json');
    const report = JSON.parse(readFileSync(file, 'utf8')) as { checks: ReportedCheck[]; reference?: { faults: string[] } };
    // the CLI runs from its bundle, where the embedded reference serves from a worker thread: the planted fault reached
    // it, and the report names the faults the thread's server ran with
    expect(report.reference?.faults).toEqual(['scan-licenses-limit-zero-accepted']);

    const passed = report.checks.find((c) => c.id === 'scan.list-validator-licenses.limit-above-max')!;
    expect(passed.verdict).toBe('pass');
    // 200 runs per property, scaled from the check's 10 at the default 25: 80 requests, none of them kept
    expect(passed.requests).toBeGreaterThanOrEqual(80);
    expect(passed.exchanges).toBeUndefined();
    expect(passed.failures).toBeUndefined();

    const failed = report.checks.find((c) => c.id === 'scan.list-validator-licenses.limit-below-min')!;
    expect(failed.verdict).toBe('fail');
    const failure = failed.failures!.find((f) => f.requirement === FAILING)!;
    const x = failure.exchange!;
    expect(x.request.method).toBe('GET');
    expect(x.request.url).toMatch(/\/v0\/admin\/validator\/licenses\?limit=0$/);
    expect(x.response!.status).toBe(200);
    // the whole body, not a cut: it parses, and it is what the planted fault answers
    expect(JSON.parse(x.response!.body!)).toHaveProperty('validator_licenses');
    expect(x.response!.bodyTruncated).toBeUndefined();
    expect(x.response!.headers['content-type']).toContain('application/json');
    // the last exchanges before the failure, a bounded number
    expect(failed.exchanges!.length).toBeGreaterThan(0);
    expect(failed.exchanges!.length).toBeLessThanOrEqual(12);

    // the Allure attachment of the failure carries the same exchange
    const results = join(reports, 'latest', 'allure-results');
    const attachments = readdirSync(results).filter((f) => f.endsWith('-attachment.json')).map((f) => JSON.parse(readFileSync(join(results, f), 'utf8')) as ExchangeRecord);
    expect(attachments).toContainEqual(x);

    // two checks at 200 runs: the report is the run's metadata and the selection's catalogue, not the traffic
    expect(statSync(file).size).toBeLessThan(64 * 1024);
  });
});
