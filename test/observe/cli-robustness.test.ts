/**
 * `canton-conformance observe` as a user leaves it running: stopped by two SIGTERMs in a row (coreutils `timeout` sends
 * one to the command and one to its process group) while an exchange is still in flight, it writes its reports and
 * exits with their code; the credentials of other people's traffic that nobody configured (X-Auth-Token,
 * X-Access-Token, an ?access_token= query, a form's client_secret, a JWT in a body) appear in none of its reports.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliStarter, until as waitUntil } from './cli-process.js';
import type { ObservedReport } from '../../harness/observe/report.js';

const tmp = mkdtempSync(join(tmpdir(), 'cc-observe-robust-'));
const children: ChildProcess[] = [];

/** what nobody configured, sent by the clients of the observed node */
const SECRETS = {
  authToken: 'xauth-7Hq2mZ9vLw4pR1sT',
  accessToken: 'xaccess-3Kd8fJ2nB6yQ0wE',
  queryToken: 'qtok-9Vb1Xc5Zm7Ln3Pk',
  clientSecret: 'csec-4Gh6Jk8Lq2Wr0Ty',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXBhcnQtb2YtdGhlLWp3dA',
};

const start = cliStarter(tmp, children);
const until = <T>(what: string, f: () => T | undefined, ms = 40_000): Promise<T> => waitUntil(what, f, ms, 50);

/** A scan target that fails every request with a 500 (so every exchange is kept as a failure, with its request), or never answers /slow. */
let target: Server;
let targetUrl: string;
/** how many requests for /slow reached the target (the exchange in flight at the stop) */
let slowSeen = 0;

beforeAll(async () => {
  target = createServer((req, res) => {
    req.resume();
    if (req.url?.includes('/slow') === true) {
      slowSeen++;
      return;
    }
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'application/json' });
      // the target echoes a credential back, as a broken one may
      res.end(JSON.stringify({ error: 'broken', token: SECRETS.accessToken, detail: `session=${SECRETS.authToken}` }));
    });
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/api/scan`;
});

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  target?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('observe, stopped twice, among other people\'s credentials', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('writes its reports on two %ss in a row with an exchange in flight, and none of them holds a credential nobody configured', async (signal) => {
    // a long grace: without the second signal cutting it short, the stop would wait 60 s
    const reports = `observed-${signal}`;
    writeFileSync(join(tmp, 'observe.yaml'), `run:\n  observe:\n    stopGraceMs: 60000\ntargets:\n  scan:\n    url: ${targetUrl}\n`);
    const observe = start(['observe', '--config', 'observe.yaml', '--listen', '127.0.0.1:0', '--reports-dir', reports]);
    const proxy = await until('the proxy', () => /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(observe.out())?.[1]);
    const got = await fetch(`${proxy}/api/scan/v0/ans-entries?page_size=2&access_token=${SECRETS.queryToken}`, {
      headers: { 'X-Auth-Token': SECRETS.authToken, 'X-Access-Token': SECRETS.accessToken },
    });
    expect(got.status).toBe(500);
    await got.text();
    const posted = await fetch(`${proxy}/api/scan/v0/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=app&client_secret=${SECRETS.clientSecret}`,
    });
    await posted.text();
    const json = await fetch(`${proxy}/api/scan/v0/activities`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ page_size: 1, note: `Bearer ${SECRETS.jwt}` }) });
    await json.text();
    // an exchange in flight that the target never answers: the stop waits for it
    const before = slowSeen;
    const slow = fetch(`${proxy}/api/scan/v0/events/slow`).catch(() => undefined);
    await until('the slow exchange in flight', () => (slowSeen > before ? true : undefined));
    observe.child.kill(signal);
    await until('the stop', () => (observe.out().includes(`observe: stopping (${signal})`) ? true : undefined));
    observe.child.kill(signal);
    const code = await observe.exited;
    await slow;
    expect(observe.out()).toContain(`${signal} again: the exchanges in flight are cut off now`);
    const runs = readdirSync(join(tmp, reports)).filter((d) => d !== 'latest');
    expect(runs.length).toBe(1);
    const dir = join(tmp, reports, runs[0]!);
    for (const f of ['conformance.json', 'summary.md', 'junit.xml']) expect(existsSync(join(dir, f)), f).toBe(true);
    const report = JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as ObservedReport;
    expect(code).toBe(report.exitCode);
    expect(report.observed.exchanges).toBeGreaterThanOrEqual(3);
    expect(report.notes.some((n) => /cut off by a further signal/.test(n))).toBe(true);
    // the kept failures carry the requests, redacted
    const kept = JSON.stringify(report.requirements.flatMap((q) => q.failures));
    expect(kept).toContain('x-auth-token');
    expect(kept).toContain('access_token=<redacted>');
    expect(kept).toContain('client_secret=<redacted>');
    for (const f of ['conformance.json', 'summary.md', 'junit.xml']) {
      const text = readFileSync(join(dir, f), 'utf8');
      for (const [name, value] of Object.entries(SECRETS)) expect(text.includes(value), `${name} in ${f}`).toBe(false);
    }
    expect(observe.out()).not.toContain(SECRETS.authToken);
  }, 90_000);
});
