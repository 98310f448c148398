/**
 * The benchmark: prints figures, asserts nothing. A full default run against the embedded reference (wall time, peak
 * memory, requests, requests per second, start to first request), the cost of loading specs and compiling schemas,
 * and the raw rate autocannon gets from the same reference server on the endpoints the suite calls most.
 * Targets (2-core machine): full run <= 20 s with reports; suite rate >= half the raw rate; first request < 300 ms.
 * Also the reference server at the test suite's scale (start, license walk, ANS prefix queries), which the tests
 * check for correctness only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const benchStart = performance.now();
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function schemaCost(): Promise<{ loadMs: number; compileMs: number; schemas: number }> {
  const { SchemaRegistry } = await import('../harness/schemas.js');
  const t0 = performance.now();
  const reg = new SchemaRegistry();
  const ops = reg.operations();
  const t1 = performance.now();
  let schemas = 0;
  for (const op of ops) {
    for (const r of Object.values(op.responses)) {
      for (const m of Object.values(r.content)) {
        if (m.pointer === undefined) continue;
        reg.validatorAt(op.api, m.pointer);
        schemas++;
      }
    }
  }
  return { loadMs: t1 - t0, compileMs: performance.now() - t1, schemas };
}

async function fullRun(): Promise<void> {
  const { loadConfig } = await import('../harness/config.js');
  const { runConformance } = await import('../harness/runner.js');
  const dir = mkdtempSync(join(tmpdir(), 'cc-bench-'));
  const config = loadConfig({ env: {}, flags: { reportsDir: dir } });
  const t0 = performance.now();
  const result = await runConformance(config, { write: () => undefined });
  const wall = performance.now() - t0;
  const rss = process.resourceUsage().maxRSS / 1024;
  const { requests, firstRequestMs, requestWindowMs } = result.timings;
  console.log('full default run (embedded reference, reports with HTML):');
  console.log(`  wall time              ${fmt(wall / 1000, 2)} s   (target <= 20 s)`);
  console.log(`  peak memory (RSS)      ${fmt(rss)} MiB`);
  console.log(`  checks                 ${result.report.checks.length} (${result.report.outcome})`);
  console.log(`  requests sent          ${fmt(requests)}`);
  const window = (requestWindowMs ?? wall) / 1000;
  console.log(`  suite requests/s       ${fmt(requests / window)} while sending (first request to last response, ${fmt(window, 2)} s); ${fmt(requests / (wall / 1000))} over the whole run`);
  if (firstRequestMs !== undefined) {
    console.log(`  start to first request ${fmt(firstRequestMs)} ms from the start of the run: reference server, vitest and workers, suite transform, spec loading (target < 300 ms)`);
  }
  console.log(`  (bench process start to run start: ${fmt(t0 - benchStart)} ms)`);
  rmSync(dir, { recursive: true, force: true });
  suiteRate = requests / window;
}

let suiteRate = 0;

async function rawRate(): Promise<void> {
  const { startReference } = await import('../reference/index.js');
  const { TokenProvider } = await import('../harness/auth.js');
  const autocannon = (await import('autocannon')).default;
  const server = await startReference();
  const tokens = new TokenProvider({ kind: 'hs256', secret: server.auth.hs256Secret, users: { admin: server.auth.adminUser, user: server.auth.validatorUser } });
  const admin = await tokens.tokenFor('admin');
  const user = await tokens.tokenFor('user');
  const targets = [
    { name: 'ledger GET /v2/version', url: `${server.urls.ledger}/v2/version`, headers: { authorization: `Bearer ${admin}` } },
    { name: 'scan GET /v0/ans-entries', url: `${server.urls.scan}/v0/ans-entries?page_size=20`, headers: {} },
    { name: 'validator GET /v0/entry/all', url: `${server.urls.validator}/v0/entry/all`, headers: { authorization: `Bearer ${user}` } },
    { name: 'registry POST withdraw (404)', url: `${server.urls.registry}/registry/transfer-instruction/v1/unknown/choice-contexts/withdraw`, method: 'POST' as const, body: '{}', headers: { 'content-type': 'application/json' } },
  ];
  console.log('raw rate (autocannon, 10 connections, 2 s per endpoint, same process as the server):');
  let sum = 0;
  for (const t of targets) {
    const r = await autocannon({ url: t.url, method: t.method ?? 'GET', headers: t.headers, body: t.body, connections: 10, duration: 2 });
    sum += r.requests.average;
    console.log(`  ${t.name.padEnd(32)} ${fmt(r.requests.average)} req/s (p99 latency ${r.latency.p99} ms, non-2xx ${r.non2xx})`);
  }
  const raw = sum / targets.length;
  console.log(`  mean raw rate          ${fmt(raw)} req/s`);
  if (suiteRate > 0) console.log(`suite rate / raw rate    ${fmt(suiteRate / raw, 2)} (target >= 0.5)`);
  await server.close();
}

/** The reference server at the scale the test suite uses: start-up, a full license walk, prefix queries over ANS. */
async function largeReference(): Promise<void> {
  const { startReference } = await import('../reference/index.js');
  let t0 = performance.now();
  const server = await startReference({ size: { ansEntries: 100_000, validatorLicenses: 10_000 } });
  const startMs = performance.now() - t0;
  t0 = performance.now();
  let after: number | undefined;
  let pages = 0;
  for (; pages < 100; pages++) {
    const body = (await (await fetch(`${server.urls.scan}/v0/admin/validator/licenses?limit=1000${after === undefined ? '' : `&after=${after}`}`)).json()) as { next_page_token?: number | null };
    if (body.next_page_token === undefined || body.next_page_token === null) break;
    after = body.next_page_token;
  }
  const walkMs = performance.now() - t0;
  t0 = performance.now();
  const prefixes = ['alice-0999', 'a', '', 'bob-01', 'judy-9999', 'zz'];
  for (const prefix of prefixes) await (await fetch(`${server.urls.scan}/v0/ans-entries?page_size=1000&name_prefix=${prefix}`)).text();
  const prefixMs = performance.now() - t0;
  await server.close();
  console.log('reference server at scale (100 000 ANS entries, 10 000 licenses):');
  console.log(`  start                  ${fmt(startMs)} ms`);
  console.log(`  license walk           ${fmt(walkMs)} ms for ${pages + 1} pages of 1000`);
  console.log(`  ANS prefix queries     ${fmt(prefixMs)} ms for ${prefixes.length} queries of up to 1000 entries`);
}

const s = await schemaCost();
await fullRun();
console.log(`spec loading             ${fmt(s.loadMs, 1)} ms; compiling all ${s.schemas} response schemas ${fmt(s.compileMs, 1)} ms (compiled lazily during a run)`);
await rawRate();
await largeReference();
process.exit(0);
