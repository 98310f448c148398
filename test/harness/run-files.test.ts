/** Settings that name a file that does not exist (--compare, --baseline) are configuration errors: exit 2, named. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import { DEFAULT_RUN, checkRunFiles, loadConfig, type Config } from '../../harness/config.js';
import { errorOf } from './config-error.js';
import { readEarlierReport } from '../../harness/reporting/diff.js';
import { runConformance } from '../../harness/run/runner.js';

const bin = join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'cc-run-files-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000, cwd: tmp, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}


describe('a compare or baseline file that does not exist', () => {
  it('exits 2 naming the file, before anything runs, for the flags and for the config file settings', () => {
    writeFileSync(join(tmp, 'compare.yaml'), 'run: { compare: no-such-earlier.json }\nreference: {}\n');
    writeFileSync(join(tmp, 'baseline.yaml'), 'run: { baseline: no-such-baseline.yaml }\nreference: {}\n');
    const cases: Array<[string[], string, string]> = [
      [['--compare', 'missing-report.json'], '--compare', 'missing-report.json'],
      [['--baseline', 'missing-known.yaml'], '--baseline', 'missing-known.yaml'],
      [['--config', 'compare.yaml'], 'run.compare', 'no-such-earlier.json'],
      [['--config', 'baseline.yaml'], 'run.baseline', 'no-such-baseline.yaml'],
    ];
    for (const [args, setting, name] of cases) {
      const r = cli(['run', '--no-html', '--reports-dir', 'never', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toContain(setting);
      expect(r.err).toContain(`file ${name} does not exist`);
      expect(r.err).not.toContain('running');
      expect(r.err).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(join(tmp, 'never'))).toBe(false);
  });

  it('stays silent for the default comparison against reports/latest when there is no earlier run', () => {
    const config = loadConfig({ flags: { reportsDir: join(tmp, 'empty') }, env: {} });
    expect(config.run.compare).toBe(true);
    expect(() => checkRunFiles(config)).not.toThrow();
    expect(readEarlierReport(join(tmp, 'empty', 'latest', 'conformance.json'))).toBeUndefined();
  });

  it('refuses a named compare file that is not a conformance.json', () => {
    writeFileSync(join(tmp, 'not-a-report.json'), '{"hello": 1}');
    expect(errorOf(() => readEarlierReport(join(tmp, 'not-a-report.json'), true))).toContain('is not a conformance.json');
    expect(readEarlierReport(join(tmp, 'not-a-report.json'))).toBeUndefined();
  });

  it('is refused by runConformance too (its callers need not go through the CLI), before a run directory exists', async () => {
    const reportsDir = join(tmp, 'programmatic');
    const config: Config = { run: { ...DEFAULT_RUN, reportsDir, html: false, compare: join(tmp, 'gone.json') }, targets: {}, reference: { faults: [] }, useReference: true, sources: ['test'] };
    await expect(runConformance(config, { write: () => undefined })).rejects.toThrow(/gone\.json does not exist/);
    await expect(runConformance({ ...config, run: { ...config.run, compare: false, baseline: join(tmp, 'gone.yaml') } }, { write: () => undefined })).rejects.toThrow(/gone\.yaml: file does not exist/);
    expect(existsSync(reportsDir)).toBe(false);
  });
});
