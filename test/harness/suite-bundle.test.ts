/**
 * The CLI's suite workers load the suite files from the CLI's bundle (bin/build.mjs, harness/run-groups.ts): one copy
 * of the harness in each worker, loaded natively. A run from the bundle must be the run from the sources: the same
 * checks with the same verdicts, each naming its own suite file, and `--record` (whose setup file the workers load from
 * the bundle too) recording every exchange.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import type { RunReport } from '../../harness/reporting/model.js';

const tmp = mkdtempSync(join(tmpdir(), 'cc-suite-bundle-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** the scan's license and ANS checks: several suite files, about 90 requests */
const SELECTED = ['scan.list-validator-licenses.newest-first', 'scan.list-validator-licenses.limit-respected', 'scan.list-ans-entries.response-schema'];

function run(name: string, env: Record<string, string>): { report: RunReport; har: { log: { entries: unknown[] } }; stderr: string } {
  const reports = join(tmp, name);
  const har = join(tmp, `${name}.har`);
  const r = spawnSync(
    process.execPath,
    [join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs'), 'run', '--only', 'scan', '--no-compare', '--no-html', '--reports-dir', reports, '--seed', '5', '--requirement', SELECTED.join(','), '--record', har],
    { cwd: PACKAGE_ROOT, encoding: 'utf8', timeout: 100_000, env: { ...process.env, NO_COLOR: '1', ...env } },
  );
  expect(r.status, r.stderr).toBe(0);
  return { report: JSON.parse(readFileSync(join(reports, 'latest', 'conformance.json'), 'utf8')) as RunReport, har: JSON.parse(readFileSync(har, 'utf8')), stderr: r.stderr };
}

describe('suite files loaded from the CLI bundle', () => {
  it('gives the checks, verdicts, files and recorded exchanges of a run from the sources', () => {
    const bundled = run('bundled', {});
    const sources = run('sources', { CC_NO_BUNDLE: '1' });
    const checks = (r: RunReport) => Object.fromEntries(r.checks.map((c) => [c.id, { verdict: c.verdict, file: c.file }]));
    expect(bundled.report.checks.length).toBeGreaterThanOrEqual(3);
    expect(checks(bundled.report)).toEqual(checks(sources.report));
    for (const c of bundled.report.checks) expect(c.file, c.id).toMatch(/^suites\/scan\/.+\.test\.ts$/);
    // every exchange of the run is in the HAR, from the bundle's recording setup as from the source's: the checks'
    // (counted in traffic) and the preflight's one read of the scan's GET /version before them (not a check's)
    const checksOf = (h: { log: { entries: unknown[] } }) => (h.log.entries as Array<{ request: { url: string } }>).filter((e) => !e.request.url.endsWith('/api/scan/version'));
    expect(bundled.har.log.entries.length - checksOf(bundled.har).length).toBe(1);
    expect(checksOf(bundled.har).length).toBe(bundled.report.traffic?.requests);
    expect(checksOf(bundled.har).length).toBeGreaterThan(20);
    expect(checksOf(sources.har).length).toBe(sources.report.traffic?.requests);
  }, 200_000);
});
