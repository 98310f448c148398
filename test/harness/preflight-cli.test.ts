/**
 * Set-up settled before any verdict, and a run that tests nothing never passes, as a user meets them on the command
 * line: exit codes, messages naming the setting to change, and no report where nothing was judged.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadCatalogue } from '../../harness/judging/catalogue.js';
import { loadConfig } from '../../harness/config.js';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import { startReference, type ReferenceServer } from '../../reference/index.js';

const bin = join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'cc-preflight-cli-'));

/** The CLI in a child process; asynchronous, so that the loopback servers of this test keep answering it. */
function cli(args: string[], timeout = 90_000): Promise<{ code: number | null; out: string; err: string; all: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: tmp, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`canton-conformance ${args.join(' ')} did not end within ${timeout} ms: ${out}${err}`));
    }, timeout);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err, all: out + err });
    });
  });
}

let server: ReferenceServer;
let html: Server;
let htmlUrl: string;
beforeAll(async () => {
  server = await startReference();
  html = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body>front page</body></html>');
  });
  await new Promise<void>((r) => html.listen(0, '127.0.0.1', r));
  htmlUrl = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await server.close();
  html.closeAllConnections();
  await new Promise<void>((r) => html.close(() => r()));
});

/** A configuration file of the reference's targets, each changed by `edit`. */
function configFile(name: string, edit: (t: Record<string, Record<string, unknown>>) => void = () => undefined, extra: Record<string, unknown> = {}): string {
  const targets = structuredClone(server.targetConfig()) as unknown as Record<string, Record<string, unknown>>;
  edit(targets);
  writeFileSync(join(tmp, name), stringify({ targets, ...extra }));
  return name;
}

describe('nothing tested is never a pass', () => {
  it('exits 2 for a configuration naming no target, --only of an interface without one, and a requirement of an interface left out', async () => {
    writeFileSync(join(tmp, 'empty.yaml'), '');
    const empty = await cli(['run', '--config', 'empty.yaml', '--no-html']);
    expect(empty.code).toBe(2);
    expect(empty.err).toContain('the configuration names no target: empty.yaml is empty');
    expect(empty.err).not.toContain('running');

    writeFileSync(join(tmp, 'run-only.yaml'), 'run: { seed: 3 }\n');
    expect((await cli(['run', '--config', 'run-only.yaml', '--no-html'])).err).toContain('the configuration names no target: run-only.yaml names none');

    configFile('scan-only.yaml', (t) => {
      for (const api of ['ledger', 'validator', 'registry']) delete t[api];
    });
    const only = await cli(['run', '--config', 'scan-only.yaml', '--only', 'ledger', '--no-html']);
    expect(only.code).toBe(2);
    expect(only.err).toContain('names ledger, but no ledger target is configured (configured: scan)');

    const other = await cli(['run', '--only', 'scan', '--requirement', 'ledger.get-version.response-schema', '--no-html']);
    expect(other.code).toBe(2);
    expect(other.err).toContain('--requirement ledger.get-version.response-schema is a requirement of ledger, but the run selects only scan');
  });

  it('selects only the configured interfaces when none is named', () => {
    configFile('two.yaml', (t) => {
      delete t.ledger;
      delete t.registry;
    });
    expect(loadConfig({ flags: { config: join(tmp, 'two.yaml') }, env: {} }).run.only).toEqual(['scan', 'validator']);
  });

  it('exits 2 and writes no report for a selection that declares no check', async () => {
    const r = loadCatalogue().requirements.find((q) => !q.observable && q.api === 'scan') ?? loadCatalogue().requirements.find((q) => !q.observable)!;
    const res = await cli(['run', '--only', r.api, '--requirement', r.id, '--no-html', '--reports-dir', 'no-check']);
    expect(res.code, res.all).toBe(2);
    expect(res.err).toContain(`the selection runs no check: --requirement ${r.id}`);
    expect(existsSync(join(tmp, 'no-check', 'latest'))).toBe(false);
  });

  it('an interface whose MUST requirements were all skipped is INCOMPLETE (exit 3), in every report', async () => {
    const name = configFile('validator-no-token.yaml', (t) => {
      t.validator!.auth = { kind: 'none' };
    });
    const r = await cli(['run', '--config', name, '--only', 'validator', '--requirement', 'validator.list-owned-ans-entries.response-schema', '--no-html', '--reports-dir', 'skipped']);
    expect(r.code, r.all).toBe(3);
    expect(r.out).toMatch(/INCOMPLETE: no MUST requirement failed, but the selected MUST requirement of validator was not decided \(1 skipped, e\.g\. .*needs the validator user's bearer token/);
    const report = JSON.parse(readFileSync(join(tmp, 'skipped', 'latest', 'conformance.json'), 'utf8')) as { outcome: string; exitCode: number };
    expect(report.exitCode).toBe(3);
    expect(report.outcome).toMatch(/^INCOMPLETE/);
    expect(readFileSync(join(tmp, 'skipped', 'latest', 'junit.xml'), 'utf8')).toMatch(/name="outcome \(exit code 3\)"><error message="INCOMPLETE/);
    expect(readFileSync(join(tmp, 'skipped', 'latest', 'summary.md'), 'utf8')).toContain('(exit code 3)');
  });

  it('--min-decided PERCENT: fewer decided MUST requirements is exit 3; run.minDecided in the file too', async () => {
    const name = configFile('min-decided.yaml', (t) => void (t.validator!.auth = { kind: 'none' }), { run: { minDecided: 90 } });
    const r = await cli(['run', '--config', name, '--only', 'validator', '--no-html', '--reports-dir', 'min-decided']);
    expect(r.code, r.all).toBe(3);
    expect(r.out).toMatch(/fewer than run\.minDecided \(--min-decided\) asks: 90%/);
    expect((await cli(['run', '--min-decided', 'most', '--no-html'])).err).toContain('--min-decided: "most" is not a percentage');
  });

  it('--fail-on should: a SHOULD failure exits 1 (0 without it)', async () => {
    const args = ['run', '--only', 'scan', '--fault', 'scan-get-event-unknown-id-400', '--requirement', 'scan.get-event-by-id.unknown-id-404', '--no-html', '--reports-dir', 'should'];
    const plain = await cli(args);
    expect(plain.code, plain.all).toBe(0);
    const gated = await cli([...args, '--fail-on', 'should']);
    expect(gated.code, gated.all).toBe(1);
    expect(gated.out).toContain('FAILED: 1 SHOULD requirement failed');
    expect((await cli(['run', '--fail-on', 'may', '--no-html'])).code).toBe(2);
  });
});

describe('set-up settled before any verdict', () => {
  it('names every set-up problem at once, exits 2, judges nothing and writes no report', async () => {
    const name = configFile('wrong.yaml', (t) => {
      t.ledger!.auth = { kind: 'hs256', secret: 'not-the-secret', users: { admin: server.auth.adminUser } };
      (t.ledger!.fixtures as Record<string, unknown>).darFile = 'gone/conformance-test.dar';
      t.scan!.url = htmlUrl;
      delete t.registry!.version;
    });
    const r = await cli(['run', '--config', name, '--no-html', '--reports-dir', 'wrong']);
    expect(r.code, r.all).toBe(2);
    expect(r.err).toContain('preflight: 4 set-up problems; no check ran and no report was written');
    expect(r.err).toContain('ledger: the admin token was refused on GET /v2/version (401): check targets.ledger.auth');
    expect(r.err).toContain('ledger: targets.ledger.fixtures.darFile: the file gone/conformance-test.dar');
    expect(r.err).toMatch(/scan: GET \/version answered 200 with text\/html, not the API's JSON: is http:\/\/127\.0\.0\.1:\d+ the Scan API's base URL/);
    expect(r.err).toContain('registry: targets.registry.version is not set');
    expect(r.all).not.toMatch(/FAIL|PASSED|running/);
    expect(existsSync(join(tmp, 'wrong'))).toBe(false);
  });

  it('doctor prints what the preflight found per target and exits as it does', async () => {
    const ok = await cli(['doctor', '--config', configFile('doctor-ok.yaml', (t) => void delete t.scan!.version)]);
    expect(ok.code, ok.all).toBe(0);
    expect(ok.out).toMatch(/^ok {6}scan .*\n {4}GET \/version: 200.*\n {4}version \d+\.\d+\.\d+, read from GET \/version/m);
    const bad = await cli(['doctor', '--config', configFile('doctor-bad.yaml', (t) => void (t.ledger!.auth = { kind: 'none' }))]);
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/^PROBLEM ledger .*\n {4}problem: targets\.ledger\.auth is "none": no credential for role "admin"/m);
  });
});

describe('gates across shards, and without the preflight', () => {
  it('merge judges the shards with their --fail-on should', async () => {
    const base = ['run', '--only', 'scan', '--fault', 'scan-get-event-unknown-id-400', '--requirement', 'scan.get-event-by-id.unknown-id-404', '--fail-on', 'should', '--no-html', '--no-compare'];
    const codes: Array<number | null> = [];
    for (const i of [1, 2]) codes.push((await cli([...base, '--shard', `${i}/2`, '--reports-dir', `gate-shard-${i}`])).code);
    // the shard holding the failed SHOULD exits 1 itself; the other has nothing of it
    expect(codes).toContain(1);
    const merged = await cli(['merge', 'gate-shard-1', 'gate-shard-2', '--no-html', '--no-compare', '--reports-dir', 'gate-merged']);
    expect(merged.code, merged.all).toBe(1);
    expect(merged.out).toContain('FAILED: 1 SHOULD requirement failed (run.failOn: should');
  });

  it('--no-preflight sends no read, but asks for every version (none is read, none assumed)', async () => {
    const name = configFile('no-preflight.yaml', (t) => {
      for (const api of ['ledger', 'validator', 'registry']) delete t[api];
      delete t.scan!.version;
      t.scan!.url = htmlUrl;
    });
    const r = await cli(['run', '--config', name, '--no-preflight', '--no-html', '--reports-dir', 'no-preflight']);
    expect(r.code, r.all).toBe(2);
    expect(r.err).toContain('scan: targets.scan.version is not set, and without the preflight (--no-preflight, run.preflight: false) it is not read from the target');
    // the HTML page was not read: no preflight problem names it
    expect(r.err).not.toContain('text/html');
  });
});

describe('serve --write-config', () => {
  it('writes DAR files that outlive serve, and says how long the targets answer', async () => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--write-config', 'kept.yaml'], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve wrote no configuration in time: ${out}`)), 30_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('target configuration written')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
    } finally {
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      child.kill('SIGTERM');
      await closed;
    }
    const text = readFileSync(join(tmp, 'kept.yaml'), 'utf8');
    expect(text).toMatch(/^# written by "canton-conformance serve": its targets answer while that serve runs/);
    const config = loadConfig({ flags: { config: join(tmp, 'kept.yaml') }, env: {} });
    for (const key of ['darFile', 'darFile2']) {
      const file = config.targets.ledger!.fixtures[key] as string;
      expect(file.startsWith(join(tmp, 'kept.dars'))).toBe(true);
      // serve has stopped: its temporary folder is gone, the copies are not
      expect(existsSync(file), file).toBe(true);
    }
    expect(readdirSync(join(tmp, 'kept.dars')).sort()).toEqual(['conformance-test-other.dar', 'conformance-test.dar']);
    rmSync(join(tmp, 'kept.dars'), { recursive: true });
  });
});
