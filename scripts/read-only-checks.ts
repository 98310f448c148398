/**
 * Runs the whole suite in read-only mode against the embedded reference and writes the list of the checks that still
 * run into docs/observe-and-judge.md (between its read-only markers). `--check` only says whether that page is current
 * (exit 1 if not).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_RUN, type Config } from '../harness/config.js';
import { PACKAGE_ROOT } from '../harness/paths.js';
import { READ_ONLY_DOC, readOnlyChecksBlock, withReadOnlyBlock } from '../harness/reporting/read-only.js';
import { runConformance } from '../harness/run/runner.js';

const reports = mkdtempSync(join(tmpdir(), 'cc-read-only-'));
try {
  const config: Config = { run: { ...DEFAULT_RUN, readOnly: true, html: false, compare: false, reportsDir: reports }, targets: {}, reference: { faults: [] }, useReference: true, sources: ['scripts/read-only-checks.ts'] };
  const { report } = await runConformance(config, { write: () => undefined });
  const file = join(PACKAGE_ROOT, READ_ONLY_DOC);
  const readme = readFileSync(file, 'utf8');
  const updated = withReadOnlyBlock(readme, readOnlyChecksBlock(report));
  if (updated === undefined) throw new Error(`${READ_ONLY_DOC} has no read-only markers`);
  if (process.argv.includes('--check')) {
    process.stdout.write(updated === readme ? `${READ_ONLY_DOC} lists the read-only checks as they run\n` : `${READ_ONLY_DOC} is out of date: npm run read-only-checks\n`);
    process.exitCode = updated === readme ? 0 : 1;
  } else {
    writeFileSync(file, updated);
    process.stdout.write(`${READ_ONLY_DOC}: ${report.checks.length} checks, read-only block written\n`);
  }
} finally {
  rmSync(reports, { recursive: true, force: true });
}
