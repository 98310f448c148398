/**
 * A whole run over TLS: the reference served by `serve`, behind a TLS front on loopback that requires a client
 * certificate of the test's private CA (mTLS) and passes the bytes through. `run --only scan` with the scan target's
 * tls settings runs clean; without the client certificate the preflight stops it before any check (exit 2), naming
 * the settings to set.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import { makePki, type Pki } from './tls-fixtures.js';

const bin = join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'cc-tls-run-'));
let pki: Pki;
let serve: ChildProcess | undefined;
let front: TlsServer;
let frontPort: number;
/** TLS connections the front accepted (the client certificate checked) */
let accepted = 0;
let served: { targets: Record<string, Record<string, unknown>> };

/** Runs the CLI without blocking this process's loop (the TLS front answers from it), bounded in time. */
function cli(args: string[], timeoutMs: number): Promise<{ code: number | null; all: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: tmp, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let all = '';
    child.stdout.on('data', (d: Buffer) => (all += d.toString()));
    child.stderr.on('data', (d: Buffer) => (all += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, all });
    });
  });
}

beforeAll(async () => {
  pki = makePki();
  serve = spawn(process.execPath, [bin, 'serve', '--port', '0', '--write-config', 'served.yaml'], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve wrote no configuration in time: ${out}`)), 30_000);
    serve!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('validator user token') && out.includes('target configuration written to served.yaml')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  served = parse(readFileSync(join(tmp, 'served.yaml'), 'utf8')) as typeof served;
  const upstream = new URL(served.targets.scan!.url as string);
  front = createTlsServer({ cert: pki.read('server'), key: pki.read('serverKey'), ca: pki.read('ca'), requestCert: true, rejectUnauthorized: true }, (socket) => {
    accepted++;
    const up = connect(Number(upstream.port), upstream.hostname);
    socket.pipe(up).pipe(socket);
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  front.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', () => resolve()));
  frontPort = (front.address() as { port: number }).port;
}, 60_000);

afterAll(async () => {
  serve?.kill('SIGTERM');
  await new Promise<void>((resolve) => (front ? front.close(() => resolve()) : resolve()));
  pki?.remove();
  rmSync(tmp, { recursive: true, force: true });
});

/** A configuration of the served scan target, reached through the TLS front with these tls settings. */
function config(name: string, tls: Record<string, string>): string {
  const scan = { ...served.targets.scan, url: `https://127.0.0.1:${frontPort}${new URL(served.targets.scan!.url as string).pathname}`, tls };
  writeFileSync(join(tmp, name), stringify({ targets: { scan } }));
  return name;
}

describe('a run against a target served over mTLS', () => {
  it('runs clean with tls.ca, tls.cert and tls.key', async () => {
    const file = config('mtls.yaml', { ca: pki.files.ca, cert: pki.files.client, key: pki.files.clientKeyEncrypted, passphrase: pki.passphrase });
    const before = accepted;
    const r = await cli(['run', '--config', file, '--only', 'scan', '--no-html', '--no-compare', '--reports-dir', 'mtls-reports'], 180_000);
    expect(r.code, r.all).toBe(0);
    expect(r.all).toMatch(/preflight: scan ok/);
    expect(r.all).toMatch(/\b0 fail, 0 error\b/);
    expect(accepted).toBeGreaterThan(before);
    const report = JSON.parse(readFileSync(join(tmp, 'mtls-reports', 'latest', 'conformance.json'), 'utf8')) as { summary?: { counts?: Record<string, number> } };
    expect(JSON.stringify(report)).not.toContain(pki.passphrase);
    expect(JSON.stringify(report)).not.toContain('PRIVATE KEY');
  }, 200_000);

  it('without the client certificate: exit 2 before any check, naming tls.cert and tls.key', async () => {
    const file = config('no-cert.yaml', { ca: pki.files.ca });
    const r = await cli(['run', '--config', file, '--only', 'scan', '--no-html', '--no-compare', '--reports-dir', 'no-cert-reports'], 120_000);
    expect(r.code, r.all).toBe(2);
    expect(r.all).toMatch(/targets\.scan\.tls\.cert and targets\.scan\.tls\.key/);
  }, 150_000);

  it('without the CA: exit 2 before any check, naming tls.ca', async () => {
    const file = config('no-ca.yaml', { cert: pki.files.client, key: pki.files.clientKey });
    const r = await cli(['run', '--config', file, '--only', 'scan', '--no-html', '--no-compare', '--reports-dir', 'no-ca-reports'], 120_000);
    expect(r.code, r.all).toBe(2);
    expect(r.all).toMatch(/not signed by a CA you configured.*set targets\.scan\.tls\.ca/);
  }, 150_000);
});
