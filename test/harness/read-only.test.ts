/**
 * Read-only mode: the whole suite runs against the embedded reference behind a loopback proxy that records every
 * request that arrives; only GETs and operations marked x-read-only may arrive, and the run writes reports whose
 * checks that needed a write are skipped, never failed nor errored. The list of what read-only mode still checks in
 * docs/observe-and-judge.md is the one this run gives.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUN, loadConfig, targetsFromBlock, type Config } from '../../harness/config.js';
import { HttpClient, ReadOnlyRefused } from '../../harness/transport/http.js';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import { READ_ONLY_DOC, readOnlyChecksBlock, withReadOnlyBlock } from '../../harness/reporting/read-only.js';
import { runConformance, type RunResult } from '../../harness/run/runner.js';
import { schemaRegistry } from '../../harness/judging/schemas.js';
import { APIS, type Api } from '../../harness/types.js';
import { startReference, type ReferenceServer } from '../../reference/index.js';
import { forwardTo } from './mini-server.js';

/** The operations SPEC.md describes as reads although they are not GETs; nothing else may carry the marker. */
const READ_ONLY_POSTS = [
  'ledger:listPackageVetting',
  'ledger:generateExternalPartyTopology',
  'ledger:getTransactionByOffset',
  'ledger:getUpdateByOffset',
  'scan:listEvents',
  'scan:listActivities',
  'registry:getAllocationInstructionWithdrawContext',
  'registry:getAllocationFactory',
  'registry:getTransferInstructionWithdrawContext',
];

/** A loopback proxy in front of `upstream` that records the method and path of every request that reaches it. */
async function recordingProxy(upstream: string): Promise<{ url: string; seen: Array<{ method: string; path: string }>; close: () => Promise<void> }> {
  const seen: Array<{ method: string; path: string }> = [];
  const to = new URL(upstream);
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '' });
    forwardTo(to, req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('read-only mode', () => {
  let reference: ReferenceServer;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let result: RunResult;
  let reports: string;
  const bases: Array<{ api: Api; path: string }> = [];

  beforeAll(async () => {
    reference = await startReference();
    proxy = await recordingProxy(reference.urls.ledger);
    reports = mkdtempSync(join(tmpdir(), 'cc-read-only-'));
    const block = JSON.parse(JSON.stringify(reference.targetConfig()).split(reference.urls.ledger).join(proxy.url)) as unknown;
    const targets = targetsFromBlock(block, 'the reference behind a recording proxy');
    for (const api of APIS) bases.push({ api, path: new URL(targets[api]!.url).pathname.replace(/\/+$/, '') });
    // the longest base first: the ledger's is the root
    bases.sort((a, b) => b.path.length - a.path.length);
    const config: Config = {
      // the reference and the proxy serve from this test's own thread: on a loaded CI machine (the self-test beside it) a
      // large page queued behind the workers' requests can wait past the default 5 s, which is not what this tests
      run: { ...DEFAULT_RUN, readOnly: true, html: false, compare: false, reportsDir: reports, timeoutMs: 20_000 },
      targets,
      reference: { faults: [] },
      useReference: false,
      sources: ['test'],
    };
    result = await runConformance(config, { write: () => undefined });
  }, 240_000);

  afterAll(async () => {
    await proxy?.close();
    await reference?.close();
    rmSync(reports, { recursive: true, force: true });
  });

  it('marks exactly the operations that only read', () => {
    const marked = schemaRegistry().operations().filter((o) => o.readOnly).map((o) => `${o.api}:${o.operationId}`);
    expect(marked.sort()).toEqual([...READ_ONLY_POSTS].sort());
  });

  it('lets only GETs and x-read-only operations reach the target', () => {
    expect(proxy.seen.length).toBeGreaterThan(200);
    const schemas = schemaRegistry();
    const writes = proxy.seen.filter(({ method, path }) => {
      if (method === 'GET' || method === 'HEAD') return false;
      const pathname = new URL(path, 'http://x').pathname;
      const base = bases.find((b) => b.path === '' || pathname.startsWith(`${b.path}/`))!;
      const rel = pathname.slice(base.path.length);
      const op = schemas.operations(base.api).find((o) => o.readOnly && o.method === method && new RegExp(`^${o.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(rel));
      return op === undefined;
    });
    expect(writes).toEqual([]);
    // the marked operations were exercised, malformed probes of them included
    expect(proxy.seen.some((x) => x.method === 'POST' && x.path.startsWith('/api/scan/v0/events'))).toBe(true);
    expect(proxy.seen.some((x) => x.method === 'POST' && x.path.includes('/choice-contexts/withdraw'))).toBe(true);
  });

  it('writes reports that say so, with skips for the checks that needed a write, and no failure nor error', () => {
    const r = result.report;
    // named with their reasons, so a failure here explains itself
    expect(r.checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error').map((c) => `${c.id}: ${c.verdict}: ${c.reason ?? ''}`)).toEqual([]);
    expect(r.exitCode).toBe(0);
    expect(r.readOnly?.skippedChecks).toBeGreaterThan(50);
    const refused = r.checks.filter((c) => c.reason?.startsWith('read-only mode: ') === true);
    expect(refused.length).toBe(r.readOnly?.skippedChecks);
    for (const c of refused) {
      expect(c.verdict).toBe('skipped');
      expect(c.reason).toMatch(/^read-only mode: (POST|PATCH|PUT|DELETE) \/\S+ changes state/);
    }
    expect(r.checkCounts.pass).toBeGreaterThan(50);
    const json = JSON.parse(readFileSync(join(result.dir, 'conformance.json'), 'utf8')) as { readOnly?: unknown; config: { run: { readOnly: boolean } } };
    expect(json.readOnly).toEqual(r.readOnly);
    expect(json.config.run.readOnly).toBe(true);
    expect(readFileSync(join(result.dir, 'summary.md'), 'utf8')).toContain('**Read-only run:**');
  });

  it(`${READ_ONLY_DOC} lists what read-only mode still checks, as this run gives it (npm run read-only-checks)`, () => {
    const page = readFileSync(join(PACKAGE_ROOT, READ_ONLY_DOC), 'utf8');
    expect(withReadOnlyBlock(page, readOnlyChecksBlock(result.report)), `${READ_ONLY_DOC} is out of date: run npm run read-only-checks`).toBe(page);
  });
});

describe('the read-only setting', () => {
  it('is off by default, on with --read-only or run.readOnly', () => {
    expect(loadConfig({ env: {} }).run.readOnly).toBe(false);
    expect(loadConfig({ env: {}, flags: { readOnly: true } }).run.readOnly).toBe(true);
  });
});

describe('the HTTP client in read-only mode', () => {
  const client = (onRefused?: (e: ReadOnlyRefused) => void) =>
    new HttpClient({
      api: 'registry',
      baseUrl: 'http://127.0.0.1:9/api/registry',
      timeoutMs: 300,
      maxResponseBytes: 1024,
      retries: 0,
      readOnly: schemaRegistry().readOnlyPolicy('registry'),
      ...(onRefused !== undefined ? { onRefused } : {}),
    });

  it('builds the policy once per interface, not for every check', () => {
    expect(schemaRegistry().readOnlyPolicy('registry')).toBe(schemaRegistry().readOnlyPolicy('registry'));
    expect(schemaRegistry().readOnlyPolicy('ledger')).not.toBe(schemaRegistry().readOnlyPolicy('registry'));
  });

  it('refuses a request that may change state before it is sent, raw ones and escapes from a marked path included', async () => {
    const told: string[] = [];
    const c = client((e) => told.push(e.message));
    for (const [method, path] of [
      ['POST', '/registry/allocation-instruction/v2/abc/choice-contexts/accept'],
      ['DELETE', '/registry/allocation-instruction/v2/allocation-factory'],
      ['POST', '/registry/allocation-instruction/v2/a%2Fb/choice-contexts/withdraw'],
      ['POST', '/registry/transfer-instruction/v1/x/choice-contexts/withdraw/../../../../../../v2/parties'],
    ] as const) {
      await expect(c.send({ method, path, json: {} })).rejects.toBeInstanceOf(ReadOnlyRefused);
    }
    expect(told[0]).toBe('read-only mode: POST /registry/allocation-instruction/v2/abc/choice-contexts/accept changes state');
    expect(told).toHaveLength(4);
  });

  it('lets GETs and marked operations through, whatever their body (they then meet the closed port)', async () => {
    const c = client();
    for (const [method, path] of [
      ['GET', '/anything/at/all'],
      ['POST', '/registry/allocation-instruction/v2/abc/choice-contexts/withdraw?x=1'],
      ['POST', '/registry/allocation-instruction/v2/allocation-factory'],
    ] as const) {
      const err = await c.send({ method, path, body: '{not json' }).catch((e: unknown) => e);
      expect(err).not.toBeInstanceOf(ReadOnlyRefused);
      expect((err as Error).name).toBe('TransportError');
    }
  });
});
