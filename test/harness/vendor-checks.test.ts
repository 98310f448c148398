import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import { checksDirProblem, loadVendorRequirements } from '../../harness/run/vendor-checks.js';

const bin = join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs');
// a folder outside the project, as a vendor's own would be
const tmp = mkdtempSync(join(tmpdir(), 'cc-vendor-'));
const checks = join(tmp, 'acme-checks');
cpSync(join(PACKAGE_ROOT, 'examples', 'vendor-checks'), checks, { recursive: true });

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 240_000, cwd: tmp, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr, all: r.stdout + r.stderr };
}

type Report = { checks: Array<{ id: string; verdict: string }>; requirements: Array<{ id: string; verdict: string; level: string }> };
const reportOf = (dir: string) => JSON.parse(readFileSync(join(tmp, dir, 'latest', 'conformance.json'), 'utf8')) as Report;
const ID = 'acme.users.empty-id-400';

describe('a checks folder of a vendor (--checks-dir)', () => {
  it('runs the example beside the built-in checks and passes it against the embedded reference', () => {
    const r = cli(['run', '--no-html', '--no-compare', '--reports-dir', 'clean', '--checks-dir', checks, '--operation', 'createUser', '--only', 'ledger']);
    expect(r.code, r.all).toBe(0);
    const report = reportOf('clean');
    expect(report.checks.find((c) => c.id === 'acme.create-user.empty-id-400')?.verdict).toBe('pass');
    // beside the built-in checks of the same operation
    expect(report.checks.some((c) => c.id.startsWith('ledger.create-user.'))).toBe(true);
    expect(report.requirements.find((x) => x.id === ID)).toMatchObject({ verdict: 'pass', level: 'MUST' });
  });

  it('fails the example on the planted fault that breaks its rule, in every report format, selected by its own id', () => {
    const r = cli(['run', '--no-compare', '--reports-dir', 'fault', '--checks-dir', checks, '--requirement', ID, '--fault', 'ledger-users-id-empty-accepted']);
    expect(r.code, r.all).toBe(1);
    expect(r.out).toContain(`${ID} (MUST)`);
    // the rerun command brings the checks folder along
    expect(r.out).toMatch(new RegExp(`rerun one: .*--requirement ${ID.replace(/\./g, '\\.')} .*--checks-dir `));
    const report = reportOf('fault');
    expect(report.requirements.map((x) => [x.id, x.verdict])).toEqual([[ID, 'fail']]);
    const dir = join(tmp, 'fault', 'latest');
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toContain(`name="${ID} (MUST)"`);
    expect(junit.slice(junit.indexOf(`name="${ID} (MUST)"`))).toMatch(/^[^]*?<failure [^]*?<\/testcase>/);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain(ID);
    // the HTML report embeds each Allure result base64-encoded: the check's result names the requirement and failed
    const html = readFileSync(join(dir, 'allure-report', 'index.html'), 'utf8');
    const results = [...html.matchAll(/\bd\("(data\/test-results\/[^"]+\.json)","([A-Za-z0-9+/=]*)"\)/g)].map(([, , b64]) => JSON.parse(Buffer.from(b64!, 'base64').toString('utf8')) as { status: string; labels: Array<{ name: string; value: string }> });
    const mine = results.filter((x) => x.labels.some((l) => l.name === 'requirement' && l.value === ID));
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((x) => x.status === 'failed')).toBe(true);
  });

  it('lists the folder\'s requirements with their checks, and knows its check ids for --check', () => {
    const list = cli(['list', '--only', 'ledger', '--checks-dir', checks]);
    expect(list.code, list.all).toBe(0);
    expect(list.out).toMatch(new RegExp(`${ID.replace(/\./g, '\\.')} \\[MUST\\]\\n[^]*?check: acme\\.create-user\\.empty-id-400 - `));
    const typo = cli(['run', '--no-html', '--checks-dir', checks, '--check', 'acme.create-user.empty-id-40']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('unknown check id acme.create-user.empty-id-40 (did you mean acme.create-user.empty-id-400');
  });

  it('keeps the folder\'s requirements when shards are merged', () => {
    for (const shard of ['1/2', '2/2']) {
      const r = cli(['run', '--no-html', '--no-compare', '--reports-dir', `shard-${shard[0]}`, '--checks-dir', checks, '--requirement', ID, '--fault', 'ledger-users-id-empty-accepted', '--shard', shard]);
      expect([0, 1, 3], r.all).toContain(r.code);
    }
    const m = cli(['merge', '--no-html', '--no-compare', '--reports-dir', 'merged', 'shard-1', 'shard-2']);
    expect(m.code, m.all).toBe(1);
    expect(reportOf('merged').requirements.map((x) => [x.id, x.verdict])).toEqual([[ID, 'fail']]);
  });

  it('refuses a folder that is missing, has no requirements file, or takes one of the suite\'s prefixes (exit 2)', () => {
    const missing = cli(['run', '--no-html', '--checks-dir', join(tmp, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--checks-dir');
    const bad = join(tmp, 'bad');
    mkdirSync(bad);
    writeFileSync(join(bad, 'a.check.ts'), '');
    expect(checksDirProblem(bad)).toContain('has no requirements.yaml');
    writeFileSync(join(bad, 'requirements.yaml'), 'requirements:\n  - { id: ledger.mine, api: ledger, statement: x }\n  - { id: acme.x, api: nowhere, level: OFTEN }\n');
    expect(() => loadVendorRequirements(bad)).toThrow(/4 problems/);
    const r = cli(['run', '--no-html', '--checks-dir', bad]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("ledger.mine: ids starting with ledger., scan., validator., registry. are the suite's own");
    expect(r.all).not.toMatch(/\n\s+at /);
  });
});
