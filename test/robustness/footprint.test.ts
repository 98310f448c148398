/**
 * A small, reusable footprint and retried clean-up (issue 12 item 7). Two runs against the same reference server: the
 * parties the rights checks need exist, not fresh, so the second run finds the first run's again and allocates none;
 * the footprint (parties, package uploads, users not removed) is in conformance.json and summary.md. Clean-up steps
 * that fail for a while are retried; one that never succeeds is listed as not cleaned up.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, targetsFromBlock, type Config } from '../../harness/config.js';
import { runConformance, type RunResult } from '../../harness/runner.js';
import { startReference, type ReferenceServer } from '../../reference/index.js';
import { startMiniServer } from '../harness/mini-server.js';

const tmp = mkdtempSync(join(tmpdir(), 'cc-footprint-'));
const quiet = { write: () => undefined };

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the footprint of a run on a ledger', () => {
  let reference: ReferenceServer;
  const runs: RunResult[] = [];

  beforeAll(async () => {
    reference = await startReference();
    for (const name of ['first', 'second']) {
      const config: Config = {
        run: {
          ...DEFAULT_RUN,
          only: ['ledger'],
          reportsDir: join(tmp, name),
          html: false,
          compare: false,
          runs: 3,
          // rights-persisted and the too-many-rights limit (333 parties on the reference) need parties that exist
          requirements: ['ledger.grant-user-rights.rights-persisted', 'ledger.grant-user-rights.too-many-rights-rejected', 'ledger.list-user-rights.response-schema'],
        },
        targets: targetsFromBlock(reference.targetConfig(), 'the reference server'),
        reference: { faults: [] },
        useReference: false,
        sources: ['test'],
      };
      runs.push(await runConformance(config, quiet));
    }
  }, 120_000);

  afterAll(async () => {
    await reference?.close();
  });

  it('reuses the parties of the first run in the second: none allocated again', () => {
    const [first, second] = runs as [RunResult, RunResult];
    for (const r of runs) {
      for (const id of ['ledger.grant-user-rights.rights-persisted', 'ledger.grant-user-rights.too-many-rights-rejected', 'ledger.list-user-rights.response-schema']) {
        expect(r.report.requirements.find((q) => q.id === id)?.verdict, id).toBe('pass');
      }
    }
    expect(first.report.footprint?.parties).toBeGreaterThan(100);
    expect(second.report.footprint).toMatchObject({ parties: 0, packageUploads: 0, usersLeft: [], notCleanedUp: [] });
  });

  it('prints the footprint in conformance.json and summary.md', () => {
    const [first] = runs as [RunResult];
    const json = JSON.parse(readFileSync(join(first.dir, 'conformance.json'), 'utf8')) as { footprint?: { parties: number; usersLeft: string[] } };
    expect(json.footprint?.parties).toBe(first.report.footprint?.parties);
    expect(json.footprint?.usersLeft).toEqual([]);
    const summary = readFileSync(join(first.dir, 'summary.md'), 'utf8');
    expect(summary).toContain('## Footprint on the target');
    expect(summary).toContain(`- parties allocated: ${first.report.footprint?.parties}`);
    expect(summary).toContain('- users created and not removed: 0');
  });
});

describe('clean-up steps that fail', () => {
  /** Runs the mini checks of one fixture folder against a fresh loopback mini server, with these run settings. */
  async function runMini(folder: string, run: Partial<Config['run']>): Promise<RunResult> {
    const server = await startMiniServer();
    const fixtures = join(import.meta.dirname, '..', 'fixtures', 'mini');
    try {
      return await runConformance(
        {
          run: { ...DEFAULT_RUN, only: ['scan'], reportsDir: join(tmp, folder), html: false, compare: false, ...run },
          targets: { scan: { url: server.url, version: '1.0', auth: { kind: 'none' }, features: {}, fixtures: {}, disabledRequirements: [], headers: {} } },
          reference: { faults: [] },
          useReference: false,
          sources: ['test'],
          internal: { specsDir: fixtures, catalogueDir: join(fixtures, 'requirements'), include: [`test/fixtures/mini/${folder}/*.check.ts`] },
        },
        quiet,
      );
    } finally {
      await server.close();
    }
  }

  it('are retried, and what never succeeds is listed as not cleaned up', async () => {
    // retries 0: the HTTP client does not retry the 503 itself, so the clean-up's own retry is what is tested
    const r = await runMini('cleanup', { retries: 0, timeoutMs: 2000, checkTimeoutMs: 10_000 });
    const check = r.report.checks.find((c) => c.id === 'v.cleanup');
    // a clean-up failure never changes the verdict
    expect(check?.verdict).toBe('pass');
    expect(check?.notCleanedUp).toEqual(['deleting the teapot: answered 418 (3 attempts)']);
    expect(r.report.footprint?.notCleanedUp).toEqual([{ check: 'v.cleanup', what: 'deleting the teapot: answered 418 (3 attempts)' }]);
    const summary = readFileSync(join(r.dir, 'summary.md'), 'utf8');
    expect(summary).toContain('Could not be cleaned up (1, after retries)');
    expect(summary).toContain('- `v.cleanup`: deleting the teapot: answered 418 (3 attempts)');
  }, 60_000);

  it('share one deadline with their retries and the HTTP client\'s own, within the check\'s time limit', async () => {
    // a step answered 503 with Retry-After: 1 takes the HTTP client 2 s (two retries) an attempt, 6.75 s for three
    // attempts: more than the test's limit (checkTimeoutMs + 5 s), which the clean-up stays within
    const r = await runMini('cleanup-deadline', { retries: 2, retryMaxWaitMs: 5000, timeoutMs: 2000, checkTimeoutMs: 1000 });
    const check = r.report.checks.find((c) => c.id === 'v.cleanup-deadline');
    expect(check?.verdict, check?.error).toBe('pass');
    expect(check?.durationMs).toBeLessThan(1000 + 5000);
    expect(check?.notCleanedUp?.[0]).toMatch(/^the stubborn step: .*\(\d attempts?, then the clean-up time ran out\)$/);
    // the step after it is not tried once the time is out; when the stubborn step stopped because its next wait would
    // not fit (on a slow machine), the step after it may still run in the time left, and succeed
    expect(check?.notCleanedUp?.slice(1)).toSatisfy((rest: string[]) => rest.length === 0 || (rest.length === 1 && rest[0] === 'the step after it: not tried, the clean-up time ran out'));
  }, 60_000);
});
