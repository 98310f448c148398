/**
 * Answers that cannot decide a rule (DESIGN.md principle 15), judged in one place (harness/judging/checks.ts and
 * ApiClient.decides): a gateway's HTML login page answering 401 to every request decides no error-body rule and no
 * 5xx rule; a 400 whose Content-Type is sent twice decides no rule about its body, and a MUST about acceptance that
 * would read its error code ends in error, not in a failure.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { RunResult } from '../../harness/run/runner.js';
import { cleanup, miniConfig, runQuietly, startStub, tempDir } from '../robustness/harness.js';

const tmp = tempDir('undecided');
afterAll(cleanup);

const run = (url: string, name: string): Promise<RunResult> =>
  runQuietly(miniConfig(url, ['test/fixtures/mini/undecided/*.check.ts'], { reportsDir: join(tmp, name), timeoutMs: 5000, checkTimeoutMs: 20_000, retries: 0, seed: 3 }, { auth: { kind: 'static', tokens: { reader: 'a-token' } } }));

const verdicts = (r: RunResult) => Object.fromEntries(r.report.requirements.map((q) => [q.id, q.verdict]));

describe('a gateway answering 401 with an HTML login page to every request', () => {
  it('passes no error-body or 5xx rule and fails none; the check ends in error naming the page', async () => {
    const gateway = await startStub((_req, res) => {
      res.writeHead(401, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><body><h1>Sign in</h1><form action="/login"></form></body></html>');
    });
    const r = await run(gateway.url, 'html-401');
    const v = verdicts(r);
    expect(v['scan.errors.error-body']).not.toBe('pass');
    expect(v['scan.errors.error-body']).not.toBe('fail');
    expect(v['scan.http.no-server-error']).not.toBe('pass');
    const check = r.report.checks.find((c) => c.id === 'u.error-body');
    expect(check?.verdict).toBe('error');
    expect(check?.error).toMatch(/answered 401 with Content-Type text\/html, not in the target's own error form/);
    expect(check?.judged ?? []).toEqual([]);
  }, 60_000);

  it('still judges a 401 in the target own error form (JSON {error}) against the error-body rule', async () => {
    const target = await startStub((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'token expired' }));
    });
    const r = await run(target.url, 'json-401');
    // 401 documents no body here: the rule is not judged on it either way, and nothing fails for it
    expect(verdicts(r)['scan.http.no-server-error']).toBe('pass');
  }, 60_000);
});

describe('a 400 whose Content-Type header is sent twice', () => {
  it('fails no rule on its body and no MUST about acceptance: the check that reads its error code ends in error', async () => {
    const target = await startStub((_req, res) => {
      // a JSON body with the code that excuses the refusal, which the doubled header makes unreadable
      res.setHeader('content-type', ['application/json', 'text/plain']);
      res.writeHead(400);
      res.end(JSON.stringify({ error: 'EXCUSED' }));
    });
    const r = await run(target.url, 'double-ct');
    const v = verdicts(r);
    expect(v['scan.list-items.small-ids']).not.toBe('fail');
    expect(v['scan.http.documented-content-type']).not.toBe('fail');
    expect(v['scan.errors.error-body']).not.toBe('fail');
    const check = r.report.checks.find((c) => c.id === 'u.accepted');
    expect(check?.verdict).toBe('error');
    expect(check?.error).toMatch(/answered 400 with a Content-Type that names several media types/);
  }, 60_000);
});
