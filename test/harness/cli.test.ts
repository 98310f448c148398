import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import { checkReportsDir } from '../../harness/reporting/write.js';
import { freePort } from '../robustness/harness.js';

const bin = join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'cc-cli-'));

function cli(args: string[], timeout = 60_000) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout, cwd: tmp, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr, all: r.stdout + r.stderr };
}


describe('canton-conformance CLI', () => {
  it('prints help with the commands and exit codes, exit 0', () => {
    const r = cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/run .*\n/);
    expect(r.out).toContain('Exit codes');
    expect(cli(['run', '--help']).out).toContain('--requirement <id>');
  });

  it('exits 2 with a message for an unknown flag, a bad value or a bad config file', () => {
    expect(cli(['run', '--bogus']).code).toBe(2);
    const bad = cli(['run', '--seed', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--seed');
    writeFileSync(join(tmp, 'bad.yaml'), 'targets: { ledger: { url: "nope" } }\n');
    const cfg = cli(['run', '--config', 'bad.yaml']);
    expect(cfg.code).toBe(2);
    expect(cfg.err).toContain('targets.ledger.url');
    expect(cfg.all).not.toMatch(/\n\s+at /);
  });

  it('refuses to switch off a MUST requirement for a target', () => {
    writeFileSync(join(tmp, 'must.yaml'), 'targets: { scan: { url: "http://127.0.0.1:9", disabledRequirements: [scan.get-event-by-id.response-schema] } }\n');
    const r = cli(['run', '--config', 'must.yaml', '--no-html']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('is a MUST requirement');
  });

  it('names an unknown requirement id or fault and exits 2', () => {
    const r = cli(['run', '--requirement', 'ledger.update-user.nope', '--no-html']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown requirement id ledger.update-user.nope');
    const f = cli(['run', '--fault', 'no-such-fault', '--no-html']);
    expect(f.code).toBe(2);
    expect(f.err).toContain('unknown fault no-such-fault');
  });

  it('serves the reference server on loopback with URLs, a working admin token and a target configuration for run --config', async () => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--write-config', 'served.yaml'], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve printed no token in time: ${out}`)), 20_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('validator user token')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      const ledger = /ledger\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      const token = /admin token[^\n]*\n\s+(\S+)/.exec(out)?.[1];
      expect(ledger).toBeDefined();
      const res = await fetch(`${ledger}/v2/version`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      // the written configuration reads as any configuration file: the four targets of this server, with fixtures
      expect(out).toContain('target configuration written to served.yaml');
      const { loadConfig } = await import('../../harness/config.js');
      const config = loadConfig({ flags: { config: join(tmp, 'served.yaml') }, env: {} });
      expect(config.useReference).toBe(false);
      expect(config.targets.ledger?.url).toBe(ledger);
      expect(config.targets.scan?.url).toBe(`${ledger}/api/scan`);
      expect(config.targets.ledger?.fixtures.darFile).toEqual(expect.any(String));
      expect(existsSync(config.targets.ledger?.fixtures.darFile as string)).toBe(true);
      expect((config.targets.registry?.fixtures.allocationInstructionIds as string[]).length).toBeGreaterThan(0);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('lists every planted fault with the requirement it breaks', () => {
    const r = cli(['faults', '--json']);
    expect(r.code).toBe(0);
    const { faults } = JSON.parse(r.out) as { faults: Array<{ name: string; requirement: string; description: string }> };
    expect(faults.length).toBeGreaterThan(5);
    for (const f of faults) expect(f.requirement).toMatch(/^(ledger|scan|validator|registry)\./);
  });

  it('exits 2 naming the setting when the reports directory cannot be created', () => {
    writeFileSync(join(tmp, 'a-file'), '');
    const r = cli(['run', '--reports-dir', 'a-file/reports', '--no-html']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('run.reportsDir');
  });

  // checked before the run starts (and before the CLI takes the signals): Node's recursive mkdir loops forever under
  // /proc, where a run would hang deaf to SIGTERM. As root, chmod does not stop writes: the unwritable cases
  // are a path under a file and the kernel's pseudo-filesystems (and a read-only directory when not root).
  describe('a reports directory that cannot take the reports: exit 2 at once, naming it', () => {
    writeFileSync(join(tmp, 'in-the-way'), '');
    // the CLI runs in tmp: it names the directory from its working directory, symbolic links resolved
    const here = realpathSync(tmp);
    const cases: Array<[string, string, RegExp]> = [
      ['under /proc', '/proc/cc-conformance-reports', /reports directory \/proc\/cc-conformance-reports .*under \/proc/],
      ['/proc itself', '/proc/self', /reports directory \/proc\/self .*under \/proc/],
      ['under /sys', '/sys/cc-conformance-reports', /reports directory \/sys\/cc-conformance-reports .*under \/sys/],
      ['a symbolic link into /proc', '/dev/fd/cc-reports', /reports directory \/dev\/fd\/cc-reports .*under \/proc/],
      ['a regular file', 'in-the-way', new RegExp(`reports directory ${join(here, 'in-the-way')} .*not a directory \\(a file is in the way\\)`)],
      ['a path under a regular file', 'in-the-way/reports', new RegExp(`reports directory ${join(here, 'in-the-way', 'reports')} .*${join(here, 'in-the-way')} is not a directory`)],
    ];
    for (const [name, dir, message] of cases) {
      it(name, () => {
        const started = Date.now();
        const r = cli(['run', '--only', 'scan', '--no-html', '--reports-dir', dir], 30_000);
        expect(r.code, r.err).toBe(2);
        expect(Date.now() - started).toBeLessThan(15_000);
        expect(r.err).toMatch(message);
        expect(r.err).toContain('--reports-dir');
        // before the run: nothing ran
        expect(r.err).not.toContain('canton-conformance: running');
        expect(r.all).not.toMatch(/\n\s+at /);
      });
    }

    // as root (where chmod stops no write) the CLI runs without the capability that overrides file permissions
    // (CAP_DAC_OVERRIDE, dropped with setpriv): still root, it reads the project wherever it lies (a checkout in a
    // folder only root may enter), and a directory's mode bits now bind it
    const asRoot = process.getuid?.() === 0;
    const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
    it.skipIf(asRoot && setpriv === undefined)('a directory that is not writable (as root: without CAP_DAC_OVERRIDE)', () => {
      const home = mkdtempSync(join(tmpdir(), 'cc-read-only-'));
      chmodSync(home, 0o755);
      const ro = join(home, 'read-only-reports');
      mkdirSync(ro, { recursive: true });
      chmodSync(ro, 0o555);
      try {
        const args = ['run', '--only', 'scan', '--no-html', '--reports-dir', ro];
        const dropped = asRoot ? spawnSync(setpriv!, ['--inh-caps=-dac_override', '--bounding-set=-dac_override', process.execPath, bin, ...args], { encoding: 'utf8', timeout: 30_000, cwd: home, env: { ...process.env, NO_COLOR: '1' } }) : undefined;
        const r = dropped !== undefined ? { code: dropped.status, err: dropped.stderr } : cli(args, 30_000);
        expect(r.code, r.err).toBe(2);
        expect(r.err).toContain(`reports directory ${ro}`);
        expect(r.err).toMatch(/not writable \(EACCES\)/);
      } finally {
        chmodSync(ro, 0o755);
        rmSync(home, { recursive: true, force: true });
      }
    });

    it('merge checks its --reports-dir the same way', () => {
      const r = cli(['merge', '--reports-dir', '/proc/cc-merged', 'nowhere'], 30_000);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(/reports directory \/proc\/cc-merged .*under \/proc/);
    });

    it('a missing directory can be created (its parents too), and the check leaves nothing behind', () => {
      const dir = join(tmp, 'new-parent', 'new-reports');
      expect(checkReportsDir(dir)).toBe(dir);
      // made to try a write, then taken away: a run refused after the check (bad shards) leaves no directory
      expect(existsSync(join(tmp, 'new-parent'))).toBe(false);
      const kept = join(tmp, 'kept');
      mkdirSync(kept);
      expect(checkReportsDir(kept)).toBe(kept);
      expect(readdirSync(kept)).toEqual([]);
    });
  });

  it('on Ctrl-C stops the run, writes the reports of what ran and exits 3', async () => {
    const child = spawn(process.execPath, [bin, 'run', '--no-html', '--reports-dir', 'interrupted'], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the run did not end after the interrupt')), 60_000);
      let sent = false;
      child.stderr.on('data', (d: Buffer) => {
        if (!sent && d.toString().includes('running')) {
          sent = true;
          setTimeout(() => child.kill('SIGINT'), 300);
        }
      });
      child.on('close', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code).toBe(3);
    expect(out).toContain('INTERRUPTED');
    expect(existsSync(join(tmp, 'interrupted', 'latest', 'conformance.json'))).toBe(true);
  });

  it('doctor: names each target that answers, and the one whose credentials are refused (a set-up problem: exit 2)', async () => {
    const { startReference } = await import('../../reference/index.js');
    const server = await startReference();
    try {
      writeFileSync(
        join(tmp, 'doctor.yaml'),
        [
          'targets:',
          `  ledger: { url: "${server.urls.ledger}", auth: { kind: hs256, secret: "${server.auth.hs256Secret}", users: { admin: ${server.auth.adminUser} } } }`,
          `  scan: { url: "${server.urls.scan}" }`,
          `  validator: { url: "${server.urls.validator}", version: "0.8.0", auth: { kind: hs256, secret: "not-the-secret", users: { user: ${server.auth.validatorUser} } } }`,
          '',
        ].join('\n'),
      );
      const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [bin, 'doctor', '--config', 'doctor.yaml'], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', (code) => resolve({ code, out }));
      });
      expect(r.code).toBe(2);
      expect(r.out).toMatch(/^ok {6}ledger/m);
      expect(r.out).toMatch(/^ok {6}scan/m);
      expect(r.out).toMatch(/^PROBLEM validator .*\n {4}problem: the user token was refused on GET \/v0\/entry\/all \(401\): check targets\.validator\.auth/m);
    } finally {
      await server.close();
    }
  });

  it('refuses to serve on a non-loopback address', () => {
    const r = cli(['serve', '--host', '0.0.0.0']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('loopback');
  });

  it('lists every catalogue requirement with the checks that cover it', () => {
    const r = cli(['list', '--json']);
    expect(r.code).toBe(0);
    const data = JSON.parse(r.out) as { requirements: Array<{ id: string; checks: unknown[] }>; checks: Array<{ id: string; requirements: string[] }> };
    expect(data.requirements.length).toBeGreaterThan(100);
    expect(data.checks.length).toBeGreaterThan(0);
    const ids = new Set(data.requirements.map((q) => q.id));
    for (const c of data.checks) for (const q of c.requirements) expect(ids.has(q), `${c.id} cites ${q}`).toBe(true);
    expect(new Set(data.checks.map((c) => c.id)).size).toBe(data.checks.length);
  });

  it('exits 2 naming TMPDIR when the temporary directory the embedded reference needs cannot be used', () => {
    for (const args of [['run', '--only', 'registry', '--no-html', '--reports-dir', 'tmpdir-reports'], ['serve', '--port', '0']]) {
      const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000, cwd: tmp, env: { ...process.env, NO_COLOR: '1', TMPDIR: join(tmp, 'no-such-dir') } });
      expect(r.status, args[0]).toBe(2);
      expect(r.stderr).toContain(`the temporary directory ${join(tmp, 'no-such-dir')} (TMPDIR) cannot be used: it does not exist`);
      expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
    }
  });

  it('ends quietly with its own exit code when the reader of its output goes away (list | head)', async () => {
    const child = spawn(process.execPath, [bin, 'list'], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // the first line read, the pipe closed: what the command writes next meets a closed pipe (EPIPE)
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(err).not.toMatch(/\n\s+at |EPIPE/);
    expect(code).toBe(0);
  });

  it('against a port where nothing listens: the preflight names it at once, exit 2, no check and no report', async () => {
    const port = await freePort();
    const started = Date.now();
    const r = cli(['run', '--ledger-url', `http://127.0.0.1:${port}`, '--only', 'ledger', '--timeout-ms', '500', '--no-html', '--reports-dir', 'out'], 90_000);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`ledger: GET /v2/version: no answer from http://127.0.0.1:${port}: connection refused`);
    // the missing admin token is named with it, every problem at once
    expect(r.err).toContain('ledger: targets.ledger.auth is "none": no credential for role "admin"');
    expect(r.err).not.toContain('canton-conformance: running');
    expect(existsSync(join(tmp, 'out'))).toBe(false);
    expect(r.all).not.toMatch(/\n\s+at /);
  });
});
