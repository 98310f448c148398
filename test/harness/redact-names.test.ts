/**
 * run.redactNames reaches the worker threads that run the checks: a name it lists is redacted in every report of a
 * plain run (not only in a recorded HAR), where the answer quoting it is attached to a failure.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance, type RunResult } from '../../harness/run/runner.js';
import { cleanup, miniConfig, tempDir } from '../robustness/harness.js';
import { startMiniServer } from './mini-server.js';

const SECRET = 'vendor-nonce-9d2e-must-not-leak';

describe('run.redactNames in a run without --record', () => {
  let server: Awaited<ReturnType<typeof startMiniServer>>;
  let reports: string;
  let result: RunResult;

  beforeAll(async () => {
    server = await startMiniServer();
    reports = tempDir('redact-names');
    const config = miniConfig(server.url, ['test/fixtures/mini/redact-names/*.check.ts'], { reportsDir: reports, redactNames: ['vendor_nonce'] } as never);
    result = await runConformance(config, { write: () => undefined });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await cleanup();
  });

  it('hides the value in conformance.json, summary.md and junit.xml, and keeps the rest of the answer', () => {
    expect(result.report.checks.map((c) => c.verdict)).toEqual(['fail']);
    const files = readdirSync(reports, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
    const texts = files.filter((f) => /\.(json|md|xml)$/.test(f)).map((f) => [f, readFileSync(f, 'utf8')] as const);
    expect(texts.some(([f, t]) => f.endsWith('conformance.json') && t.includes('vendorNonce'))).toBe(true);
    for (const [f, t] of texts) expect(t.includes(SECRET), f).toBe(false);
  });
});
