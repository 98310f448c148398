/**
 * The observe and judge commands as a user runs them: `serve --write-config` gives the reference's targets,
 * `observe --config` stands in front of them, plain HTTP calls go through it, reports come every --report-every
 * seconds and on SIGTERM, with the exit code of what was observed. `judge` reads any HAR (pretty-printed, as a
 * browser exports one); a file that is not a HAR is exit 2.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import { cliStarter, until as waitUntil } from './cli-process.js';
import type { ObservedReport } from '../../harness/observe/report.js';

const bin = join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'cc-observe-cli-'));
const children: ChildProcess[] = [];

const start = cliStarter(tmp, children);
const until = <T>(what: string, f: () => T | undefined, ms = 30_000): Promise<T> => waitUntil(what, f, ms, 100);

const cli = (args: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: tmp, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, all: r.stdout + r.stderr };
};

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

describe('canton-conformance observe and judge', () => {
  it('observes plain calls to a served reference, reports periodically and on SIGTERM, exits 1 on an observed MUST failure', async () => {
    const serve = start(['serve', '--port', '0', '--fault', 'scan-list-ans-entries-user-missing', '--write-config', 'served.yaml']);
    const scanUrl = await until('the served reference', () => /scan\s+(http:\/\/\S+)/.exec(serve.out())?.[1]);
    await until('the served configuration', () => (existsSync(join(tmp, 'served.yaml')) ? true : undefined));
    const observe = start(['observe', '--config', 'served.yaml', '--listen', '127.0.0.1:0', '--report-every', '1', '--duration', '60', '--reports-dir', 'observed']);
    const proxy = await until('the proxy', () => /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(observe.out())?.[1]);
    const direct = await fetch(`${scanUrl}/v0/ans-entries?page_size=2`);
    const through = await fetch(`${proxy}/api/scan/v0/ans-entries?page_size=2`);
    expect(through.status).toBe(direct.status);
    expect(await through.text()).toBe(await direct.text());
    // a periodic report says so before the end
    const latest = join(tmp, 'observed', 'latest', 'conformance.json');
    const periodic = await until('a periodic report with the failure', () => {
      try {
        const r = JSON.parse(readFileSync(latest, 'utf8')) as ObservedReport;
        return r.observed.requirements.find((q) => q.id === 'scan.list-ans-entries.response-schema')?.verdict === 'observed fail' ? r : undefined;
      } catch {
        return undefined;
      }
    });
    expect(periodic.notes.some((n) => n.startsWith('periodic report'))).toBe(true);
    observe.child.kill('SIGTERM');
    expect(await observe.exited).toBe(1);
    expect(observe.out()).toMatch(/OBSERVED FAIL: 1 MUST requirement/);
    const final = JSON.parse(readFileSync(latest, 'utf8')) as ObservedReport;
    expect(final.notes).toContain('observation ended by SIGTERM');
    expect(final.observed.exchanges).toBe(1);
    const q = final.requirements.find((x) => x.id === 'scan.list-ans-entries.response-schema')!;
    expect(q.verdict).toBe('fail');
    expect(q.failures[0]?.exchange?.request.url).toBe(`${scanUrl}/v0/ans-entries?page_size=2`);
    expect(q.failures[0]?.message).toMatch(/missing required field "user"/);
    expect(readFileSync(join(tmp, 'observed', 'latest', 'summary.md'), 'utf8')).toMatch(/`scan.list-ans-entries.response-schema` \| MUST \| observed fail \| 1 \| 1 \|/);
    const junit = readFileSync(join(tmp, 'observed', 'latest', 'junit.xml'), 'utf8');
    expect(junit).toContain('scan.list-ans-entries.response-schema');
    expect(junit).toMatch(/<failure /);
    serve.child.kill('SIGINT');
    await serve.exited;
  }, 90_000);

  it('judges a HAR as a browser exports it, matched by path; a file that is not a HAR is exit 2', () => {
    const entry = (url: string, status: number, body: unknown) => ({
      startedDateTime: '2026-11-26T10:00:00.000Z',
      time: 3,
      request: { method: 'GET', url, httpVersion: 'HTTP/2', cookies: [], headers: [{ name: ':path', value: '/x' }, { name: 'Authorization', value: 'Bearer not-a-jwt-but-secret' }], queryString: [], headersSize: -1, bodySize: 0 },
      response: { status, statusText: '', httpVersion: 'HTTP/2', cookies: [], headers: [{ name: 'content-type', value: 'application/json' }], content: { size: 0, mimeType: 'application/json', text: Buffer.from(JSON.stringify(body)).toString('base64'), encoding: 'base64' }, redirectURL: '', headersSize: -1, bodySize: -1 },
      cache: {},
      timings: { send: 0, wait: 3, receive: 0 },
    });
    const har = { log: { version: '1.2', creator: { name: 'a browser', version: '1' }, pages: [], entries: [entry('https://scan.example/api/scan/v0/ans-entries?page_size=1', 200, { entries: [{ name: 'x' }] }), entry('https://scan.example/api/scan/v9/nothing', 200, {}), entry('https://ledger.example/v2/version', 500, { code: 'X' })] } };
    writeFileSync(join(tmp, 'browser.har'), JSON.stringify(har, null, 2));
    const r = cli(['judge', 'browser.har', '--reports-dir', 'judged']);
    expect(r.all).toMatch(/OBSERVED FAIL/);
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(join(tmp, 'judged', 'latest', 'conformance.json'), 'utf8')) as ObservedReport;
    expect(report.observed.exchanges).toBe(3);
    expect(report.observed.notInSpecification.total).toBe(1);
    const verdicts = Object.fromEntries(report.observed.requirements.filter((q) => q.verdict !== 'not observed').map((q) => [q.id, q.verdict]));
    expect(verdicts).toMatchObject({ 'scan.list-ans-entries.response-schema': 'observed fail', 'ledger.http.no-server-error': 'observed fail' });
    expect(readFileSync(join(tmp, 'judged', 'latest', 'conformance.json'), 'utf8')).not.toContain('not-a-jwt-but-secret');
    writeFileSync(join(tmp, 'not.har'), '{"hello": []}');
    const bad = cli(['judge', 'not.har', '--reports-dir', 'judged']);
    expect(bad.code).toBe(2);
    expect(bad.all).toContain('not a HAR file');
    expect(cli(['judge', 'missing.har']).code).toBe(2);
  }, 60_000);

  it('refuses to observe without a listener or a target (exit 2)', () => {
    const none = cli(['observe', '--listen', '127.0.0.1:0']);
    expect(none.code).toBe(2);
    expect(none.all).toContain('observe needs a target');
    const noListener = cli(['observe', '--scan-url', 'http://127.0.0.1:9/api/scan']);
    expect(noListener.code).toBe(2);
    expect(noListener.all).toContain('observe needs a listener');
    expect(cli(['observe', '--scan-url', 'http://127.0.0.1:9', '--ledger-listen', '127.0.0.1:0']).all).toContain('no ledger target is configured');
  }, 60_000);
});
