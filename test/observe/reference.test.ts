/**
 * observe in front of the embedded reference, driven by the suite's own run pointed at the proxy (its
 * targets block with the proxy's URL, as `serve --write-config` writes one) and by plain HTTP calls. A clean reference
 * gives no observed failure; planted faults show up as observed failures on their requirements, each with its
 * recorded, redacted exchange. The same run, recorded with run --record and judged by judge, gives the same passive
 * verdicts as the run on every requirement the passive rules cover, and the same counts as the proxy saw.
 *
 * The clean run is the whole suite (every passive requirement of the four interfaces); the faulty one the scan suite
 * only, with two planted faults on passive requirements, and a ledger fault the plain calls meet.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenProvider } from '../../harness/transport/auth.js';
import { loadCatalogue } from '../../harness/judging/catalogue.js';
import { genericCoverage } from '../../harness/judging/checks.js';
import { DEFAULT_RUN, targetsFromBlock, type Config } from '../../harness/config.js';
import { judgeHar } from '../../harness/observe/commands.js';
import { PassiveJudge } from '../../harness/observe/passive.js';
import { startObserver, type Observer } from '../../harness/observe/proxy.js';
import { observedReport, type ObservedReport } from '../../harness/observe/report.js';
import { runConformance, type RunResult } from '../../harness/run/runner.js';
import { schemaRegistry } from '../../harness/judging/schemas.js';
import { APIS, type Api } from '../../harness/types.js';
import { startReference, type ReferenceServer } from '../../reference/index.js';

const SCHEMA_FAULT = 'scan-licenses-created-event-blob-missing';
const CONTENT_TYPE_FAULT = 'scan-http-text-error-on-bad-after';
const LEDGER_FAULT = 'ledger-get-version-version-missing';

const schemas = schemaRegistry();
const catalogue = loadCatalogue();
/** the requirements the passive rules cover */
const passiveIds = [...genericCoverage(schemas).keys()];

interface Observed {
  reference: ReferenceServer;
  observer: Observer;
  judge: PassiveJudge;
  /** the reference's targets block with the proxy's URL: what `run --config` would read */
  targets: Config['targets'];
  proxyUrl: string;
  close(): Promise<void>;
}

async function observedReference(faults: string[]): Promise<Observed> {
  const reference = await startReference({ faults });
  const direct = targetsFromBlock(reference.targetConfig(), 'the reference');
  const judge = new PassiveJudge({ schemas, catalogue, targets: direct, maxResponseBytes: DEFAULT_RUN.maxResponseBytes, maxJsonDepth: DEFAULT_RUN.maxJsonDepth });
  const observer = await startObserver({
    targets: direct,
    listeners: [{ host: '127.0.0.1', port: 0 }],
    maxBodyBytes: DEFAULT_RUN.maxResponseBytes,
    onExchange: (x) => judge.judge(x),
    onNotJudged: (r) => judge.notJudged(r),
  });
  const proxyUrl = observer.listening[0]!.url;
  const targets = targetsFromBlock(JSON.parse(JSON.stringify(reference.targetConfig()).split(reference.urls.ledger).join(proxyUrl)), 'the reference behind observe');
  return {
    reference,
    observer,
    judge,
    targets,
    proxyUrl,
    close: async () => {
      await observer.close(500);
      await reference.close();
    },
  };
}

function runConfig(targets: Config['targets'], reportsDir: string, only: Api[]): Config {
  return {
    run: { ...DEFAULT_RUN, only, html: false, compare: false, reportsDir, timeoutMs: 20_000 },
    targets,
    reference: { faults: [] },
    useReference: false,
    sources: ['test'],
  };
}

type Passive = 'observed pass' | 'observed fail' | 'not observed';

/** The run's own verdict on a passive requirement, from the generic checks' evidence alone. */
function passiveOfRun(r: RunResult['report'], id: string): Passive {
  if (r.checks.some((c) => (c.failures ?? []).some((f) => f.requirement === id && f.check !== undefined))) return 'observed fail';
  return r.checks.some((c) => c.judged?.includes(id) === true && !(c.failures ?? []).some((f) => f.requirement === id)) ? 'observed pass' : 'not observed';
}

const verdictOf = (o: ObservedReport, id: string): Passive => o.observed.requirements.find((q) => q.id === id)!.verdict;

function reportOf(o: Observed, config: Config, apis: Api[], tally = o.judge.tally): ObservedReport {
  return observedReport({ tally, catalogue, schemas, config, apis, mode: 'observe', source: o.proxyUrl, runId: 'test', startedAt: new Date(), finishedAt: new Date(), maxKeptFailures: 20 });
}

async function get(url: string, token?: string): Promise<{ status: number; text: string; contentType: string | null }> {
  const r = await fetch(url, { headers: token !== undefined ? { authorization: `Bearer ${token}` } : {} });
  return { status: r.status, text: await r.text(), contentType: r.headers.get('content-type') };
}

describe('observe in front of the embedded reference', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-observe-'));
  let clean: Observed;
  let faulty: Observed;
  let cleanRun: RunResult;
  let faultyRun: RunResult;
  /** what the proxy had judged when the faulty run ended (the plain calls below add to the live tally) */
  let faultyTally: PassiveJudge['tally'];
  const har = join(dir, 'faulty.har');
  const cleanHar = join(dir, 'clean.har');
  let cleanTally: PassiveJudge['tally'];

  beforeAll(async () => {
    clean = await observedReference([]);
    cleanRun = await runConformance(runConfig(clean.targets, join(dir, 'clean'), [...APIS]), { write: () => undefined, record: cleanHar });
    await new Promise((r) => setTimeout(r, 50));
    cleanTally = structuredClone(clean.judge.tally);
    faulty = await observedReference([SCHEMA_FAULT, CONTENT_TYPE_FAULT, LEDGER_FAULT]);
    faultyRun = await runConformance(runConfig(faulty.targets, join(dir, 'faulty'), ['scan']), { write: () => undefined, record: har });
    // exchanges end on the proxy's side a turn after the client has them
    await new Promise((r) => setTimeout(r, 50));
    faultyTally = structuredClone(faulty.judge.tally);
  }, 240_000);

  afterAll(async () => {
    await clean?.close();
    await faulty?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sees every exchange of the suite\'s own run, and no observed failure on a clean reference', () => {
    const t = cleanTally;
    const sent = cleanRun.report.checks.reduce((n, c) => n + (c.requests ?? 0), 0);
    expect(cleanRun.report.exitCode).toBe(0);
    expect(t.exchanges).toBe(sent);
    expect(t.judged).toBeGreaterThan(sent / 2);
    const failed = [...t.requirements].filter(([, r]) => r.failed > 0).map(([id, r]) => `${id}: ${r.kept[0]?.message}`);
    expect(failed).toEqual([]);
    const report = reportOf(clean, runConfig(clean.targets, dir, [...APIS]), [...APIS], t);
    expect(report.exitCode).toBe(0);
    expect(report.outcome).toMatch(/^OBSERVED PASS/);
    for (const id of ['scan.http.documented-status', 'scan.http.documented-content-type', 'scan.http.no-server-error', 'scan.list-ans-entries.response-schema', 'scan.list-validator-licenses.response-schema']) {
      expect(verdictOf(report, id), id).toBe('observed pass');
    }
    // a rule that needs the suite's own requests is not observed, with the reason
    expect(report.observed.requirements.find((q) => q.id === 'scan.list-ans-entries.at-most-page-size')).toMatchObject({ verdict: 'not observed', reason: expect.stringMatching(/needs requests of the suite's own/) });
    expect(report.requirements.find((q) => q.id === 'scan.list-ans-entries.at-most-page-size')?.verdict).toBe('skipped');
  });

  it('gives the same passive verdicts from the HAR of a whole run (judge) as the run and the proxy, on every requirement the passive rules cover', async () => {
    const config = runConfig(clean.targets, join(dir, 'clean-judged'), [...APIS]);
    const { report: judged } = await judgeHar(cleanHar, config, 20);
    const proxy = reportOf(clean, config, [...APIS], cleanTally);
    expect(passiveIds.length).toBeGreaterThan(50);
    const rows = passiveIds.map((id) => ({ id, run: passiveOfRun(cleanRun.report, id), judge: verdictOf(judged, id), observe: verdictOf(proxy, id) }));
    expect(rows.filter((r) => r.run !== r.judge || r.judge !== r.observe)).toEqual([]);
    expect(rows.filter((r) => r.judge === 'observed pass').length).toBeGreaterThan(50);
    expect(judged.observed.exchanges).toBe(cleanTally.exchanges);
    for (const id of passiveIds) {
      const o = proxy.observed.requirements.find((q) => q.id === id)!;
      const j = judged.observed.requirements.find((q) => q.id === id)!;
      expect({ id, exchanges: j.exchanges, failures: j.failures }).toEqual({ id, exchanges: o.exchanges, failures: o.failures });
    }
  });

  it('judges plain HTTP calls: the same answers as the target gives directly, a planted fault an observed failure', async () => {
    const tokens = new TokenProvider({ kind: 'hs256', secret: faulty.reference.auth.hs256Secret, users: { admin: faulty.reference.auth.adminUser } });
    const token = await tokens.tokenFor('admin');
    const before = faulty.judge.tally.requirements.get('ledger.get-version.response-schema')?.failed ?? 0;
    const direct = await get(`${faulty.reference.urls.ledger}/v2/version`, token);
    const proxied = await get(`${faulty.proxyUrl}/v2/version`, token);
    expect(proxied).toEqual(direct);
    const scanDirect = await get(`${faulty.reference.urls.scan}/v0/ans-entries?page_size=3`);
    expect(await get(`${faulty.proxyUrl}/api/scan/v0/ans-entries?page_size=3`)).toEqual(scanDirect);
    await new Promise((r) => setTimeout(r, 50));
    const r = faulty.judge.tally.requirements.get('ledger.get-version.response-schema')!;
    expect(r.failed).toBe(before + 1);
    const f = r.kept.at(-1)!;
    expect(f.message).toMatch(/missing required field "version"/);
    expect(f.exchange?.request).toMatchObject({ method: 'GET', url: `${faulty.reference.urls.ledger}/v2/version` });
    // recorded and redacted: the bearer token never appears
    expect(f.exchange?.request.headers.authorization).toBe('Bearer <redacted>');
    expect(JSON.stringify(f)).not.toContain(token);
    expect(f.exchange?.response?.status).toBe(200);
  });

  it('shows each planted fault of the run as an observed failure on its requirement, and no other', () => {
    const report = reportOf(faulty, runConfig(faulty.targets, dir, ['scan']), ['scan'], faultyTally);
    expect(verdictOf(report, 'scan.list-validator-licenses.response-schema')).toBe('observed fail');
    expect(verdictOf(report, 'scan.http.documented-content-type')).toBe('observed fail');
    const failed = report.observed.requirements.filter((q) => q.verdict === 'observed fail').map((q) => q.id);
    expect(failed.sort()).toEqual(['scan.http.documented-content-type', 'scan.list-validator-licenses.response-schema']);
    const q = report.requirements.find((x) => x.id === 'scan.list-validator-licenses.response-schema')!;
    expect(q.verdict).toBe('fail');
    expect(q.failures[0]?.exchange?.response?.status).toBe(200);
    expect(q.failures[0]?.message).toMatch(/created_event_blob/);
    expect(q.failures.length).toBeLessThanOrEqual(21);
    const ct = report.requirements.find((x) => x.id === 'scan.http.documented-content-type')!;
    expect(ct.failures[0]?.exchange?.response?.headers['content-type']).toMatch(/text\/html/);
    // the run found them too
    expect(faultyRun.report.requirements.filter((x) => x.verdict === 'fail').map((x) => x.id).sort()).toEqual(expect.arrayContaining(failed.sort()));
  });

  it('gives the same passive verdicts from the run\'s HAR (judge) as the run and the proxy, on every requirement the passive rules cover', async () => {
    const config = runConfig(faulty.targets, join(dir, 'judged'), ['scan']);
    const { report: judged } = await judgeHar(har, config, 20);
    const proxy = reportOf(faulty, config, ['scan'], faultyTally);
    const ids = passiveIds.filter((id) => id.startsWith('scan.'));
    expect(ids.length).toBeGreaterThan(5);
    const rows = ids.map((id) => ({ id, run: passiveOfRun(faultyRun.report, id), judge: verdictOf(judged, id), observe: verdictOf(proxy, id) }));
    expect(rows.filter((r) => r.run !== r.judge || r.judge !== r.observe)).toEqual([]);
    expect(rows.filter((r) => r.judge === 'observed fail').length).toBe(2);
    // the HAR holds what went through the proxy during the run: the same exchanges, judged alike
    const sent = faultyRun.report.checks.reduce((n, c) => n + (c.requests ?? 0), 0);
    expect(judged.observed.exchanges).toBe(sent);
    for (const id of ids) {
      const o = proxy.observed.requirements.find((q) => q.id === id)!;
      const j = judged.observed.requirements.find((q) => q.id === id)!;
      expect({ id, exchanges: j.exchanges, failures: j.failures }).toEqual({ id, exchanges: o.exchanges, failures: o.failures });
    }
    // matched by path alone, without the configured URLs, the verdicts are the same
    const { report: byPath } = await judgeHar(har, runConfig({}, join(dir, 'by-path'), ['scan']), 20);
    expect(ids.filter((id) => verdictOf(byPath, id) !== verdictOf(judged, id))).toEqual([]);
    const written = JSON.parse(readFileSync(join(dir, 'judged', 'latest', 'conformance.json'), 'utf8')) as ObservedReport;
    expect(written.observed.mode).toBe('judge');
    expect(readFileSync(join(dir, 'judged', 'latest', 'summary.md'), 'utf8')).toContain('## Observed exchanges');
  });

  it('writes a HAR 1.2 of every exchange, redacted', () => {
    const text = readFileSync(har, 'utf8');
    const doc = JSON.parse(text) as { log: { version: string; entries: Array<{ startedDateTime: string; _api: string; request: { url: string } }> } };
    expect(doc.log.version).toBe('1.2');
    expect(faultyRun.report.notes.some((n) => n.includes(`recorded in ${har}`))).toBe(true);
    const times = doc.log.entries.map((e) => e.startedDateTime);
    expect([...times].sort()).toEqual(times);
    expect(doc.log.entries.every((e) => e.request.url.startsWith(`${faulty.proxyUrl}/api/scan/`))).toBe(true);
    expect(text).not.toContain(faulty.reference.auth.hs256Secret);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\./);
  });
});
