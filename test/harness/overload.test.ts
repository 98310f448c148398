import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/run/runner.js';
import { cleanup, json, miniConfig, runQuietly, startStub, tempDir } from '../robustness/harness.js';

const tmp = tempDir('overload');
afterAll(cleanup);

/**
 * A target that refuses every request under load: 503 and 429 in turn, with JSON or HTML bodies as gateways send; or,
 * with `redirect`, one that redirects every request elsewhere (a misrouted URL).
 */
function startRefusingServer(redirect = false) {
  let n = 0;
  return startStub((req, res) => {
    n++;
    if (redirect) {
      res.writeHead(302, { location: `http://127.0.0.1:9/elsewhere${req.url ?? ''}` });
      res.end();
    } else if (n % 2 === 0) {
      json(res, 429, { error: 'too many requests' }, { 'retry-after': '0' });
    } else {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<html><body>Service Unavailable</body></html>');
    }
  });
}

const configFor = (url: string, reports: string, include: string[]) =>
  miniConfig(url, include, { reportsDir: join(tmp, reports), timeoutMs: 1500, checkTimeoutMs: 4000, runs: 5, seed: 7 }, { auth: { kind: 'static', tokens: { reader: 'unused-token' } } });

describe('a run against a target that answers 429 or 503 to everything', () => {
  let result: RunResult;

  beforeAll(async () => {
    const server = await startRefusingServer();
    result = await runQuietly(configFor(server.url, 'refused', ['test/fixtures/mini/overload/*.check.ts', 'test/fixtures/mini/suite/verdicts.check.ts']));
  }, 60_000);

  const requirement = (id: string) => result.report.requirements.find((r) => r.id === id);

  it('gives the generic status rules no pass: no response they could judge was seen', () => {
    for (const id of ['scan.http.no-server-error', 'scan.http.documented-status', 'scan.http.documented-content-type']) {
      expect(requirement(id)?.verdict, id).not.toBe('pass');
    }
    expect(requirement('scan.http.no-server-error')?.reason).toMatch(/no response this rule could judge|could not be|overload/i);
    // an answer that decides nothing ends the check in error, naming what came instead (DESIGN.md principle 15)
    const generic = result.report.checks.find((c) => c.id === 'v.generic');
    expect(generic?.verdict).toBe('error');
    expect(generic?.error).toMatch(/answered (429|503).*nothing judged/);
    expect(generic?.judged ?? []).toEqual([]);
  });

  it('passes no requirement and fails none for the refusals', () => {
    // the mini suite fails rules on purpose, whatever the target answers (t.fail, and checks on local values), where no
    // request comes first: a check whose first request was refused ends there, in error (judged-broken's check)
    expect(result.report.requirements.filter((r) => r.verdict === 'fail').map((r) => r.id).sort()).toEqual(['scan.list-items.rare-but-broken', 'scan.list-items.small-ids']);
    expect(requirement('scan.list-items.judged-broken')?.verdict).toBe('error');
    const passed = result.report.requirements.filter((r) => r.verdict === 'pass').map((r) => r.id);
    // the only rules that may pass here are those the checks judge without a response (judge() blocks on local values)
    expect(passed.filter((id) => id.startsWith('scan.http.') || id === 'scan.list-items.response-schema')).toEqual([]);
    for (const r of result.report.requirements) {
      for (const f of r.failures) expect(f.message, r.id).not.toMatch(/answered (429|503)/);
    }
  });

  it('says at the top of summary.md that the target was overloaded, and carries the counts in conformance.json', () => {
    const json = JSON.parse(readFileSync(join(result.dir, 'conformance.json'), 'utf8')) as { traffic?: Record<string, unknown> };
    expect(json.traffic).toMatchObject({ mostlyRefused: true });
    const t = json.traffic as { requests: number; overloaded: number; responses: number };
    expect(t.overloaded).toBeGreaterThan(0);
    expect(t.overloaded).toBe(t.responses);
    const summary = readFileSync(join(result.dir, 'summary.md'), 'utf8');
    const head = summary.split('\n').slice(0, 6).join('\n');
    expect(head).toContain(`the target was overloaded: ${t.overloaded} of ${t.responses} responses were 429/503`);
  });
});

describe('a run against a target that redirects everything', () => {
  let result: RunResult;

  beforeAll(async () => {
    const server = await startRefusingServer(true);
    result = await runQuietly(configFor(server.url, 'redirected', ['test/fixtures/mini/overload/*.check.ts']));
  }, 60_000);

  it('judges none of the generic status rules, fails none, and says so at the top of summary.md', () => {
    for (const r of result.report.requirements.filter((q) => q.id.startsWith('scan.http.'))) {
      expect(r.verdict, r.id).not.toBe('pass');
      expect(r.verdict, r.id).not.toBe('fail');
    }
    // a redirect is never followed: the client reports it as an error, and the check stops at the first one
    expect(result.report.traffic).toMatchObject({ requests: 1, redirected: 1, mostlyRefused: true });
    expect(result.report.checks.find((c) => c.id === 'v.generic')?.verdict).toBe('error');
    const summary = readFileSync(join(result.dir, 'summary.md'), 'utf8');
    expect(summary.split('\n').slice(0, 6).join('\n')).toContain('the target redirected the requests (a misrouted URL or a gateway in front of it): 1 of 1 responses were redirects');
  });
});
