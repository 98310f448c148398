/**
 * run.maxRunMs: a run against a target too slow to finish within the limit is cut at the limit; no further check
 * starts, the reports of what ran are written, say the run was cut at the limit, and the run exits 3 (1 when a MUST
 * failed among what ran).
 *
 * The target cannot let the run end first, whatever the machine's speed (issue 20: a stub answering after a fixed
 * 300 ms let a fast machine finish every check as the limit fired): it holds every request unanswered until the CLI has
 * said the limit was reached, and answers 404 from then on. No check can end before its first answer, and no request
 * times out before the limit (run.timeoutMs and checkTimeoutMs are longer than run.maxRunMs, and both start after the
 * run does).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../harness/paths.js';

const bin = join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'cc-maxrun-'));

const LIMIT_MS = 4000;
const REACHED = `run.maxRunMs (${LIMIT_MS} ms) reached`;

/** Holds every request until `open()`; answers 404 at once after it (the held ones too). */
const held = new Set<ServerResponse>();
let gateOpen = false;
let requestsBeforeGate = 0;
const answer = (res: ServerResponse) => {
  if (res.destroyed) return;
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"error":"not found"}');
};
const open = () => {
  gateOpen = true;
  for (const res of held) answer(res);
  held.clear();
};
const server = createServer((_req, res) => {
  if (gateOpen) return answer(res);
  requestsBeforeGate++;
  held.add(res);
});
let url = '';

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(tmp, { recursive: true, force: true });
});

describe('run.maxRunMs', () => {
  it('cuts the run at the limit, writes the reports of what ran, says so, and exits 3 (or 1)', async () => {
    const config = join(tmp, 'config.yaml');
    // timeoutMs and checkTimeoutMs far beyond the limit: nothing ends a check before the target answers
    writeFileSync(config, `run:\n  maxRunMs: ${LIMIT_MS}\n  timeoutMs: 20000\n  checkTimeoutMs: 30000\n  html: false\n  compare: false\n  only: [scan]\n  reportsDir: ${join(tmp, 'reports')}\ntargets:\n  scan:\n    url: ${url}\n`);
    const started = Date.now();
    const child = spawn(process.execPath, [bin, 'run', '--config', config], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (!gateOpen && err.includes(REACHED)) open();
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the run did not end in time\n${err}`));
      }, 60_000);
      child.on('close', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(err).toContain(REACHED);
    // the target was waited on when the limit came
    expect(requestsBeforeGate).toBeGreaterThan(0);
    const file = join(tmp, 'reports', 'latest', 'conformance.json');
    expect(existsSync(file)).toBe(true);
    const rep = JSON.parse(readFileSync(file, 'utf8')) as {
      outcome: string;
      exitCode: number;
      interrupted?: { by?: string; atOnce: boolean };
      runErrors: string[];
      checks: Array<{ verdict?: string; reason?: string }>;
    };
    expect(rep.outcome).toMatch(new RegExp(`^INTERRUPTED \\(run\\.maxRunMs limit of ${LIMIT_MS} ms\\)`));
    expect(rep.interrupted).toEqual({ by: `run.maxRunMs limit of ${LIMIT_MS} ms`, atOnce: false });
    // 3, or 1 when a MUST requirement failed among the checks that ran (this target answers 404 to everything)
    expect(code).toBe(rep.exitCode);
    expect([1, 3]).toContain(rep.exitCode);
    // no check started after the limit: the ones that had not started are skipped as such (at most run.concurrency
    // checks run at once, and none could end before the limit, so some had not started)
    const notStarted = rep.checks.filter((c) => c.verdict === 'skipped' && /interrupted before this check started/.test(c.reason ?? ''));
    expect(notStarted.length).toBeGreaterThan(0);
    expect(rep.runErrors.join('\n')).toMatch(new RegExp(`cut at the run\\.maxRunMs limit of ${LIMIT_MS} ms`));
    expect(out).toContain('INTERRUPTED');
    expect(out + err).not.toMatch(/\n\s+at /);
  }, 70_000);

  it('a run that ends before the limit says nothing of it', async () => {
    const fast = createServer((_req, res) => answer(res));
    await new Promise<void>((r) => fast.listen(0, '127.0.0.1', r));
    try {
      const config = join(tmp, 'fast.yaml');
      writeFileSync(config, `run:\n  maxRunMs: 600000\n  html: false\n  compare: false\n  only: [scan]\n  reportsDir: ${join(tmp, 'fast-reports')}\ntargets:\n  scan:\n    url: http://127.0.0.1:${(fast.address() as AddressInfo).port}\n`);
      const child = spawn(process.execPath, [bin, 'run', '--config', config], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`the run did not end in time\n${err}`));
        }, 60_000);
        child.on('close', (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      expect(err).not.toContain('run.maxRunMs');
      const rep = JSON.parse(readFileSync(join(tmp, 'fast-reports', 'latest', 'conformance.json'), 'utf8')) as { outcome: string; exitCode: number; interrupted?: unknown; runErrors: string[] };
      expect(rep.interrupted).toBeUndefined();
      expect(rep.outcome).not.toMatch(/INTERRUPTED/);
      expect(rep.runErrors.join('\n')).not.toMatch(/maxRunMs/);
      expect(code).toBe(rep.exitCode);
    } finally {
      fast.closeAllConnections();
      await new Promise<void>((r) => fast.close(() => r()));
    }
  }, 70_000);
});
