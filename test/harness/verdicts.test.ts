import { mkdtempSync, readFileSync, readdirSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, type Config } from '../../harness/config.js';
import { runConformance, type RunResult } from '../../harness/run/runner.js';
import { startMiniServer } from './mini-server.js';

const SECRET = 'static-token-that-must-never-be-written';
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'mini');

describe('a run over one check of each verdict kind', () => {
  let server: Awaited<ReturnType<typeof startMiniServer>>;
  let result: RunResult;
  let reports: string;

  beforeAll(async () => {
    server = await startMiniServer();
    reports = mkdtempSync(join(tmpdir(), 'cc-verdicts-'));
    const config: Config = {
      // 15 s per check: a timed-out read is tried once more when this machine starved the check's thread (four busy
      // processes beside npm test), which with the time given back takes up to four times run.timeoutMs
      run: { ...DEFAULT_RUN, only: ['scan'], reportsDir: reports, html: false, timeoutMs: 1500, checkTimeoutMs: 15_000, runs: 50, seed: 7 },
      targets: {
        scan: { url: server.url, version: '1.0', auth: { kind: 'static', tokens: { reader: SECRET } }, features: { items: false }, fixtures: {}, disabledRequirements: [], headers: {} },
      },
      reference: { faults: [] },
      useReference: false,
      sources: ['test'],
      internal: { specsDir: fixtures, catalogueDir: join(fixtures, 'requirements'), include: ['test/fixtures/mini/suite/*.check.ts'] },
    };
    result = await runConformance(config, { write: () => undefined });
  }, 60_000);

  afterAll(async () => {
    await server.close();
    rmSync(reports, { recursive: true, force: true });
  });

  const verdictOf = (id: string) => result.report.checks.find((c) => c.id === id);

  it('gives pass, fail, error, skipped and unsupported, each where it belongs', () => {
    expect(verdictOf('v.pass')?.verdict).toBe('pass');
    expect(verdictOf('v.fail-schema')?.verdict).toBe('fail');
    expect(verdictOf('v.fail-status')?.verdict).toBe('fail');
    expect(verdictOf('v.error')?.verdict).toBe('error');
    expect(verdictOf('v.skipped')).toMatchObject({ verdict: 'skipped', reason: 'no fixture "itemId" configured' });
    expect(verdictOf('v.unsupported')).toMatchObject({ verdict: 'unsupported', reason: 'the target does not offer item kinds' });
    expect(verdictOf('v.feature-off')).toMatchObject({ verdict: 'skipped', reason: 'feature items is switched off for this target' });
    expect(verdictOf('v.version')?.verdict).toBe('skipped');
    expect(verdictOf('v.version')?.reason).toContain('applies from version 2.0');
  });

  it('reports the forms a check noted, once each, in conformance.json and summary.md', () => {
    expect(verdictOf('v.pass')?.notes).toEqual(['expires_at is sent as null']);
    const summary = readFileSync(join(result.dir, 'summary.md'), 'utf8');
    expect(summary).toContain('## Forms the target chose (1 checks)');
    expect(summary).toContain('- `v.pass`: expires_at is sent as null');
  });

  it('takes a 503 where another status was expected for an error (overload), not a failure', () => {
    expect(verdictOf('v.overloaded')).toMatchObject({ verdict: 'error' });
    expect(verdictOf('v.overloaded')?.error).toContain('TargetOverloaded');
    expect(verdictOf('v.overloaded')?.failures).toBeUndefined();
  });

  it('judges each requirement of a check on its own: one failure leaves the others judged', () => {
    const byId = new Map(result.report.requirements.map((r) => [r.id, r]));
    expect(verdictOf('v.judge-each')?.verdict).toBe('fail');
    expect(verdictOf('v.judge-each')?.failures?.map((f) => f.requirement)).toEqual(['scan.list-items.judged-broken']);
    expect(byId.get('scan.list-items.judged-broken')?.verdict).toBe('fail');
    expect(byId.get('scan.list-items.judged-kept')?.verdict).toBe('pass');
    expect(byId.get('scan.list-items.judged-unseen')).toMatchObject({ verdict: 'skipped', reason: 'nothing to judge it on' });
  });

  it('reports a check that saw nothing of its requirement as skipped, and a broken one as failed all the same', () => {
    expect(verdictOf('v.not-observed')).toMatchObject({ verdict: 'skipped' });
    expect(verdictOf('v.not-observed')?.reason).toContain('no response carried the rare status');
    const byId = new Map(result.report.requirements.map((r) => [r.id, r]));
    expect(byId.get('scan.list-items.rare-status')).toMatchObject({ verdict: 'skipped', reason: 'no response carried the rare status' });
    expect(verdictOf('v.not-observed-then-broken')?.verdict).toBe('fail');
    expect(byId.get('scan.list-items.rare-but-broken')?.verdict).toBe('fail');
  });

  it('cuts a check off at its time limit as an error, and still runs its clean-up', () => {
    const c = verdictOf('v.overrun');
    expect(c?.verdict).toBe('error');
    expect(c?.error).toContain('did not finish within 15000 ms');
    expect(c?.exchanges?.some((x) => x.request.url.includes('cleanup=yes'))).toBe(true);
  });

  it('attributes a schema failure to the response-schema requirement, naming the field', () => {
    const f = verdictOf('v.fail-schema')?.failures?.[0];
    expect(f?.requirement).toBe('scan.list-items.response-schema');
    expect(f?.check).toBe('body_matches_schema');
    expect(f?.message).toContain('body.items.0');
    expect(f?.exchange?.response?.status).toBe(200);
  });

  it('attributes an undocumented status to the documented-status requirement', () => {
    expect(verdictOf('v.fail-status')?.failures?.map((f) => f.requirement)).toContain('scan.http.documented-status');
  });

  it('reports a timeout as an error naming the time limit, with the exchange kept', () => {
    const c = verdictOf('v.error');
    expect(c?.error).toContain('within 1500 ms');
    expect(c?.exchanges?.at(-1)?.transportError).toBeDefined();
  });

  it('shrinks a failing property and records its seed, path and counterexample', () => {
    const c = verdictOf('v.property');
    expect(c?.verdict).toBe('fail');
    expect(c?.properties?.[0]?.counterexample).toBe('[11]');
    expect(c?.properties?.[0]?.path).toMatch(/^\d+(:\d+)*$/);
    expect(c?.failures?.[0]?.message).toContain('seed');
  });

  it('aggregates requirements: fail wins, untested is listed, MUST failure sets exit code 1', () => {
    const byId = new Map(result.report.requirements.map((r) => [r.id, r]));
    expect(byId.get('scan.list-items.response-schema')?.verdict).toBe('fail');
    expect(byId.get('scan.list-items.untested-rule')?.verdict).toBe('untested');
    expect(byId.get('scan.list-items.new-thing')?.verdict).toBe('skipped');
    expect(result.report.exitCode).toBe(1);
  });

  it('writes no secret into any report file, although the target echoed the token', () => {
    expect(verdictOf('v.secret')?.verdict).toBe('fail');
    const files = readdirSync(result.dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      const text = readFileSync(join(f.parentPath, f.name), 'utf8');
      expect(text.includes(SECRET), `${f.name} holds the secret`).toBe(false);
    }
    expect(readFileSync(join(result.dir, 'summary.md'), 'utf8')).toContain('<redacted>');
  });

  it('gives each Allure result the status of its verdict: fail "failed", error "broken", skipped "skipped" with the reason', () => {
    // the checks' own results, kept aside from the per-requirement results the HTML is rendered from
    const dir = join(result.dir, 'allure-results', 'checks');
    const results = readdirSync(dir)
      .filter((f) => f.endsWith('-result.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { status: string; statusDetails?: { message?: string }; labels: Array<{ name: string; value: string }> });
    const of = (id: string) => results.find((r) => r.labels.some((l) => l.name === 'conformanceCheck' && l.value === id));
    // a rule the target broke, found by a generic check and by the check itself
    expect(of('v.fail-schema')?.status).toBe('failed');
    expect(of('v.fail-status')?.status).toBe('failed');
    expect(of('v.judge-each')?.status).toBe('failed');
    // a transport error (timeout), an overload refusal, a check cut off at its time limit: harness-side, not the target's rule
    expect(of('v.error')?.status).toBe('broken');
    expect(of('v.overloaded')?.status).toBe('broken');
    expect(of('v.overrun')?.status).toBe('broken');
    expect(of('v.pass')?.status).toBe('passed');
    expect(of('v.skipped')).toMatchObject({ status: 'skipped', statusDetails: { message: 'skipped: no fixture "itemId" configured' } });
    expect(of('v.unsupported')).toMatchObject({ status: 'skipped', statusDetails: { message: 'unsupported: the target does not offer item kinds' } });
    expect(of('v.feature-off')).toMatchObject({ status: 'skipped', statusDetails: { message: 'skipped: feature items is switched off for this target' } });
  });

  it('renders the HTML from one Allure result per requirement, with the requirement\'s own verdict', () => {
    const dir = join(result.dir, 'allure-results');
    const results = readdirSync(dir)
      .filter((f) => f.endsWith('-result.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { status: string; labels: Array<{ name: string; value: string }> });
    const status = { pass: 'passed', fail: 'failed', error: 'broken', skipped: 'skipped', unsupported: 'skipped', untested: 'unknown' } as const;
    const byRequirement = new Map(results.map((r) => [r.labels.find((l) => l.name === 'conformanceRequirement')?.value, r.status]));
    expect(byRequirement).toEqual(new Map(result.report.requirements.map((q) => [q.id, status[q.verdict]])));
    // v.judge-each failed one of its requirements: the others keep their own verdicts
    expect(byRequirement.get('scan.list-items.judged-broken')).toBe('failed');
    expect(byRequirement.get('scan.list-items.judged-kept')).toBe('passed');
    expect(byRequirement.get('scan.list-items.judged-unseen')).toBe('skipped');
  });

  it('writes conformance.json, junit.xml and summary.md, and points latest at the run', () => {
    for (const f of ['conformance.json', 'junit.xml', 'summary.md']) expect(existsSync(join(result.dir, f))).toBe(true);
    expect(existsSync(join(reports, 'latest', 'summary.md'))).toBe(true);
    const junit = readFileSync(join(result.dir, 'junit.xml'), 'utf8');
    expect(junit).toContain('<failure');
    // one testcase per requirement: a check in error where other checks decided the requirement is said, not judged
    expect(junit).toContain('<system-err>checks in error');
    expect(junit).toContain('<skipped');
    const summary = readFileSync(join(result.dir, 'summary.md'), 'utf8');
    expect(summary).toContain('### scan.list-items.response-schema (MUST)');
    expect(summary).toContain('curl -sS -X GET');
    expect(summary).toContain('## Untested requirements');
  });
});
