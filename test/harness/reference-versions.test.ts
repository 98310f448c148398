/**
 * `run --scan-version` and `run --registry-version`: the embedded reference claims (and behaves as) that release, so the
 * checks of endpoints only older releases serve run against it; a malformed version, or either flag beside a target
 * URL, is refused with exit 2 before anything runs.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../harness/paths.js';

const bin = join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'cc-ref-versions-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 120_000, cwd: tmp, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, err: r.stderr, all: r.stdout + r.stderr };
}

interface Report {
  targets: Record<string, { version?: string }>;
  requirements: { id: string; verdict: string }[];
}

/** One run of a requirement against the embedded reference; its conformance.json. */
function runOne(name: string, args: string[]): { code: number | null; report: Report } {
  const dir = join(tmp, name);
  const r = cli(['run', '--no-html', '--no-compare', '--reports-dir', dir, ...args]);
  const run = readdirSync(dir).find((f) => f !== 'latest');
  expect(run, r.all).toBeDefined();
  return { code: r.code, report: JSON.parse(readFileSync(join(dir, run!, 'conformance.json'), 'utf8')) as Report };
}

const verdict = (r: Report, id: string) => r.requirements.find((q) => q.id === id)?.verdict;

describe('run --scan-version / --registry-version (embedded reference)', () => {
  it('serves POST /v0/activities at scan 0.6.7 (only scans before 0.6.8 do), and not by default', () => {
    const req = 'scan.list-activities.response-schema';
    const old = runOne('scan-old', ['--only', 'scan', '--requirement', req, '--scan-version', '0.6.7']);
    expect(old.code).toBe(0);
    expect(old.report.targets.scan?.version).toBe('0.6.7');
    expect(verdict(old.report, req)).toBe('pass');
    const now = runOne('scan-now', ['--only', 'scan', '--requirement', req]);
    expect(verdict(now.report, req)).toBe('skipped');
  });

  it('leaves the allocation-instruction endpoints out at registry 0.6.10', () => {
    const req = 'registry.versioning.allocation-endpoints-absent-before';
    const old = runOne('registry-old', ['--only', 'registry', '--requirement', req, '--registry-version', '0.6.10']);
    expect(old.code).toBe(0);
    expect(old.report.targets.registry?.version).toBe('0.6.10');
    expect(verdict(old.report, req)).toBe('pass');
  });

  it('refuses a malformed version, and either flag beside a target URL, with exit 2 and no stack trace', () => {
    for (const flag of ['--scan-version', '--registry-version']) {
      const bad = cli(['run', '--no-html', flag, '0.x']);
      expect(bad.code, bad.all).toBe(2);
      expect(bad.err).toContain(`${flag}: "0.x" is not a version like 0.8.0`);
      const url = cli(['run', '--no-html', '--scan-url', 'http://127.0.0.1:9/api/scan', flag, '0.6.7']);
      expect(url.code, url.all).toBe(2);
      expect(url.err).toContain(`${flag} applies only to the embedded reference server`);
      expect(bad.all + url.all).not.toMatch(/\n\s+at /);
    }
  });
});
