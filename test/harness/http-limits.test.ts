/**
 * run.maxRequestsPerSecond and run.maxHeaderBytes: a loopback target counts the requests
 * that arrive in every one-second window of a run whose checks burst in two worker threads; another sends a header
 * larger than the bound.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_RUN, loadConfig, type Config } from '../../harness/config.js';
import { HttpClient, TransportError } from '../../harness/transport/http.js';
import { RequestPace } from '../../harness/transport/pace.js';
import { runConformance } from '../../harness/run/runner.js';
import { miniConfig } from '../robustness/harness.js';
import { arrivalCounter, busiestWindow, type ArrivalCounter } from '../load/arrivals.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'mini');

describe('run.maxRequestsPerSecond', () => {
  let counter: ArrivalCounter;
  let arrivals: number[] = [];
  let url = '';

  beforeAll(async () => {
    counter = await arrivalCounter();
    ({ arrivals, url } = counter);
  });

  afterAll(async () => counter?.close());

  it('keeps a run whose checks burst in two worker threads to the limit in every one-second window', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'cc-pace-'));
    try {
      const config = miniConfig(url, ['test/fixtures/mini/pace/*.check.ts'], { reportsDir: reports, timeoutMs: 2000, checkTimeoutMs: 20_000, maxRequestsPerSecond: 10 });
      const { report } = await runConformance(config, { write: () => undefined });
      expect(report.checks.map((c) => c.verdict)).toEqual(['pass', 'pass']);
      expect(arrivals).toHaveLength(24);
      // unlimited, the 24 requests arrive within a few milliseconds, and one limit per thread would let 20 through
      // and end within 1.2 s. The threads share the send times (harness/transport/pace.ts): one more than the limit is the most
      // a request sent a little late can add at the target (test/harness/pace-busy.test.ts holds it on a busy machine).
      expect(busiestWindow(arrivals, 1000)).toBeLessThanOrEqual(11);
      expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeGreaterThanOrEqual(2000);
    } finally {
      rmSync(reports, { recursive: true, force: true });
    }
  }, 60_000);

  it('deals the slots out in turn between threads, one request a slot', async () => {
    const now = 1_000_000;
    const clock = () => now;
    const lanes = [new RequestPace(20, 2, 0, clock), new RequestPace(20, 2, 1, clock)];
    const slots: number[] = [];
    for (const pace of lanes) for (let i = 0; i < 3; i++) slots.push(await pace.take());
    // 20 a second: slots 50 ms apart, lane 0 the even ones (from now on), lane 1 the odd ones
    const rel = slots.map((s) => Math.round((s - now) / 50));
    expect(rel.slice(0, 3)).toEqual([0, 2, 4]);
    expect(rel.slice(3)).toEqual([1, 3, 5]);
    expect(() => new RequestPace(0)).toThrow(/positive/);
  }, 10_000);

  it('is a setting and a flag, checked like any other', () => {
    expect(loadConfig({ env: {}, flags: { maxRequestsPerSecond: '2.5' } }).run.maxRequestsPerSecond).toBe(2.5);
    expect(() => loadConfig({ env: {}, flags: { maxRequestsPerSecond: 'fast' } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: {}, flags: { maxRequestsPerSecond: '0' } })).toThrow(/maxRequestsPerSecond/);
  });
});

describe('run.maxHeaderBytes', () => {
  let target: TcpServer;
  let url = '';

  beforeAll(async () => {
    // a raw target: 100 KiB of response headers, which no HTTP server library would send
    target = createTcpServer((socket) => {
      socket.once('data', () => {
        socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-filler: ${'a'.repeat(100 * 1024)}\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`);
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((r) => target.close(() => r()));
  });

  const client = (maxHeaderBytes?: number) =>
    new HttpClient({ api: 'scan', baseUrl: url, timeoutMs: 2000, maxResponseBytes: 1024 * 1024, retries: 0, ...(maxHeaderBytes !== undefined ? { maxHeaderBytes } : {}) });

  it('ends a request whose response headers exceed the bound (64 KiB by default) in a transport error naming it', async () => {
    const err = await client().send({ method: 'GET', path: '/v0/items' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as Error).message).toMatch(/response headers from http:\/\/127\.0\.0\.1:\d+\/v0\/items exceed the 65536-byte cap \(run\.maxHeaderBytes\)/);
    expect(DEFAULT_RUN.maxHeaderBytes).toBe(64 * 1024);
  });

  it('accepts the same headers under a larger bound', async () => {
    const x = await client(256 * 1024).send({ method: 'GET', path: '/v0/items' });
    expect(x.status).toBe(200);
    expect(x.headers['x-filler']).toHaveLength(100 * 1024);
  });
});
