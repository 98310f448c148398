/**
 * The benchmark (npm run bench): prints figures, asserts nothing. Every run of the suite is a whole `canton-conformance
 * run` process, timed from its spawn to its exit, its peak RSS read by a probe preloaded into it.
 *
 * - the default run (embedded reference) with and without the HTML report: wall time, peak RSS, the time from the
 *   process's start to its first request;
 * - the suite against a reference served by this process (as a vendor's node is reached, through `--config`): its
 *   request rate while sending, against the raw rate autocannon gets from the same server right after;
 * - the same run through a loopback proxy that delays every response by 20 ms: wall time as a ratio to the undelayed;
 * - a walk of 100 000 ANS entries and 10 000 validator licenses (the scan suite against a served reference of that size):
 *   the suite process's peak RSS;
 * - spec loading and schema compilation, and the reference server at that scale.
 * Goals (2-core machine): 5 s with every report, 300 ms to the first request, suite rate >= 0.5x autocannon's, 300 MB
 * peak RSS, delayed/undelayed <= 1.3; through the latency profile, wall <= 1.25 x critical path <= 30 s.
 *
 * Flags: --runs N (passed to every suite run, e.g. 500 for nightly depth: conformance.json size and RSS), --quick (the
 * default runs only), --repeat N (N pairs of default runs in turn, with HTML and without: medians and ranges of wall
 * and CPU time), --delay-only (only the undelayed and delayed runs against a served reference, --repeat N pairs of
 * them in turn: medians, the paired ratios, and the delayed run's critical path: its longest checks, their requests
 * and how long each waited before its first request), --delay-ms N (their delay instead of 20 ms), --concurrency N
 * (passed to every suite run), --observe-only (only what observe costs: latency added at p50 and p99 against the
 * direct path, and its memory over --exchanges N exchanges, default 100 000; scripts/bench-observe.ts).
 * --profile-only: only the run through the latency profile (scripts/latency-profile.ts: each operation delayed by its
 * class), --repeat N times: wall time, critical path and their ratio; --profile read=20,upload=800,... overrides its
 * delays; --nightly adds a run at --runs 500 through the profile (wall time, peak RSS; minutes, so never by default).
 * --workers N: passed to every suite run (run.workers).
 * --keep: the work folder, with every run's reports, is left in place and its path printed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { describeCriticalPath, LATENCY_PROFILE, profileBench, profileProxy, type ProfileProxy } from './latency-profile.js';
import { setFlagsFromString } from 'node:v8';
import { V8_FLAGS } from '../bin/v8-flags.mjs';

// the references this process serves (and its proxies' threads) run as `canton-conformance serve` runs them
setFlagsFromString(V8_FLAGS);

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'bin', 'canton-conformance.mjs');
const argv = process.argv.slice(2);
const runsArg = argv.includes('--runs') ? argv[argv.indexOf('--runs') + 1] : undefined;
const quick = argv.includes('--quick');
const delayOnly = argv.includes('--delay-only');
const repeat = argv.includes('--repeat') ? Number(argv[argv.indexOf('--repeat') + 1]) : 1;
/** --delay-only: the proxy's delay (a larger one shows the chains of dependent requests on a loaded machine) */
const delayMs = argv.includes('--delay-ms') ? Number(argv[argv.indexOf('--delay-ms') + 1]) : 20;
const concurrencyArg = argv.includes('--concurrency') ? argv[argv.indexOf('--concurrency') + 1] : undefined;
const workersArg = argv.includes('--workers') ? argv[argv.indexOf('--workers') + 1] : undefined;
/** --observe-only: only the observe figures (scripts/bench-observe.ts), over --exchanges N (default 100 000) */
const observeOnly = argv.includes('--observe-only');
const observeExchanges = argv.includes('--exchanges') ? Number(argv[argv.indexOf('--exchanges') + 1]) : 100_000;
/** the latency profile (scripts/latency-profile.ts): --profile-only, --profile name=ms,..., --nightly */
const profileOnly = argv.includes('--profile-only');
const profileOverride = argv.includes('--profile') ? argv[argv.indexOf('--profile') + 1] : undefined;
const nightly = argv.includes('--nightly');
/** --keep: leave the work folder (each run's reports, conformance.json with every check's times) for a closer look */
const keep = argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'cc-bench-'));
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

// preloaded into each suite process: writes its peak RSS (every thread of the process) when it exits
const PROBE = join(work, 'rss-probe.cjs');
// at exit: the process's peak RSS (KiB) and the CPU time of all its threads (microseconds; the Allure child not counted)
writeFileSync(PROBE, `process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeFileSync(process.env.BENCH_RSS_FILE, u.maxRSS + ' ' + (u.userCPUTime + u.systemCPUTime)); });\n`);

interface Reported {
  startedAt: string;
  durationMs: number;
  outcome: string;
  checks: Array<{ id: string; file?: string; verdict?: string; error?: string; shares?: string[]; reads?: string[]; durationMs?: number; requests?: number; firstRequestAt?: string; lastResponseAt?: string }>;
}

interface SuiteRun {
  wallMs: number;
  rssMiB: number;
  /** CPU time of the suite's process, every thread (the Allure child not counted) */
  cpuS: number;
  exitCode: number | null;
  /** from the process's spawn to its first request */
  firstRequestMs?: number;
  /** from the run's own start (after the CLI loaded) to its first request */
  firstRequestInRunMs?: number;
  requests: number;
  /** first request to last response */
  windowMs?: number;
  outcome: string;
  jsonBytes: number;
  /** the checks of the run's report */
  checks: Reported['checks'];
  /** through delay proxies: how long their threads were busy (CPU of this machine that a far target would not use) */
  proxyBusyMs?: number;
}

/** Runs `canton-conformance run` in a process of its own, with a reports folder of its own. */
async function suiteRun(name: string, args: string[]): Promise<SuiteRun> {
  const reports = join(work, name);
  const rssFile = join(work, `${name}.rss`);
  const all = ['--require', PROBE, CLI, 'run', '--reports-dir', reports, '--no-compare', ...(runsArg !== undefined ? ['--runs', runsArg] : []), ...(concurrencyArg !== undefined ? ['--concurrency', concurrencyArg] : []), ...(workersArg !== undefined ? ['--workers', workersArg] : []), ...args];
  const spawnedAt = Date.now();
  const t0 = performance.now();
  const child = spawn(process.execPath, all, { cwd: ROOT, env: { ...process.env, BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  // CC_DEBUG's lines ([timing] ..., [in-flight] ...) are kept whole, the rest only its last 4000 characters
  const debugLines: string[] = [];
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
    if ((process.env.CC_DEBUG ?? '') !== '') for (const l of d.toString().split('\n')) if (/^\[[a-z-]+\]/.test(l) && debugLines.length < 2000) debugLines.push(l);
  });
  const exitCode = await new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const wallMs = performance.now() - t0;
  // CC_DEBUG (e.g. timing, in-flight): the run's debug lines
  if ((process.env.CC_DEBUG ?? '') !== '') process.stderr.write(`${name}, CC_DEBUG lines:\n${debugLines.join('\n')}\n`);
  let report: Reported | undefined;
  let jsonBytes = 0;
  try {
    const file = join(reports, 'latest', 'conformance.json');
    jsonBytes = statSync(file).size;
    report = JSON.parse(readFileSync(file, 'utf8')) as Reported;
  } catch {
    process.stderr.write(`${name}: no conformance.json (exit ${exitCode}): ${stderr}\n`);
  }
  const [rssKiB, cpuUs] = readFileSync(rssFile, 'utf8').split(' ').map(Number);
  const rssMiB = rssKiB! / 1024;
  const firsts = (report?.checks ?? []).flatMap((c) => (c.firstRequestAt !== undefined ? [Date.parse(c.firstRequestAt)] : []));
  const lasts = (report?.checks ?? []).flatMap((c) => (c.lastResponseAt !== undefined ? [Date.parse(c.lastResponseAt)] : []));
  const first = firsts.length > 0 ? Math.min(...firsts) : undefined;
  return {
    wallMs,
    rssMiB,
    cpuS: cpuUs! / 1e6,
    exitCode,
    ...(first !== undefined ? { firstRequestMs: first - spawnedAt, firstRequestInRunMs: first - Date.parse(report!.startedAt) } : {}),
    requests: (report?.checks ?? []).reduce((a, c) => a + (c.requests ?? 0), 0),
    ...(first !== undefined && lasts.length > 0 ? { windowMs: Math.max(...lasts) - first } : {}),
    outcome: report?.outcome.split(':')[0] ?? `no report (exit ${exitCode})`,
    jsonBytes,
    checks: report?.checks ?? [],
  };
}

const line = (label: string, value: string, goal = '') => console.log(`  ${label.padEnd(30)} ${value}${goal ? `   (goal ${goal})` : ''}`);

function describeRun(r: SuiteRun): void {
  line('wall time', `${fmt(r.wallMs / 1000, 2)} s  (${r.outcome}, exit ${r.exitCode})`);
  line('peak RSS', `${fmt(r.rssMiB)} MiB`);
  line('requests', `${fmt(r.requests)}${r.windowMs !== undefined ? `, ${fmt(r.requests / (r.windowMs / 1000))}/s while sending (${fmt(r.windowMs / 1000, 2)} s)` : ''}`);
  line('conformance.json', `${fmt(r.jsonBytes / 1024)} KiB`);
}

/** A reference server in this process, and the `run --config` file that points at it (as `serve --write-config`). */
async function servedReference(name: string, size?: { ansEntries: number; validatorLicenses: number }) {
  const { startReference } = await import('../reference/index.js');
  const server = await startReference(size !== undefined ? { size } : {});
  const file = join(work, `${name}.yaml`);
  const targets = server.targetConfig() as unknown as Record<string, { url: string }>;
  writeFileSync(file, stringify({ targets }));
  return { server, file, targets };
}

/**
 * A loopback proxy in front of one origin that holds every response for `delayMs` before sending it: a target as far
 * away as a real one, whatever the client's concurrency. It is the latency profile's proxy (scripts/latency-profile.ts,
 * in a worker thread of its own: distance costs a real target no CPU) with every class at `delayMs` and nothing added
 * for vetting, so that an upload that vets is held once, as every other answer.
 */
function delayProxy(upstream: string, delayMs: number): Promise<ProfileProxy> {
  return profileProxy(upstream, LATENCY_PROFILE.map((c) => ({ ...c, ms: c.name === 'vetting' ? 0 : delayMs })));
}

async function rawRate(server: Awaited<ReturnType<typeof servedReference>>['server']): Promise<number> {
  const { TokenProvider } = await import('../harness/transport/auth.js');
  const autocannon = (await import('autocannon')).default;
  const tokens = new TokenProvider({ kind: 'hs256', secret: server.auth.hs256Secret, users: { admin: server.auth.adminUser, user: server.auth.validatorUser } });
  const admin = await tokens.tokenFor('admin');
  const user = await tokens.tokenFor('user');
  const targets = [
    { name: 'ledger GET /v2/version', url: `${server.urls.ledger}/v2/version`, headers: { authorization: `Bearer ${admin}` } },
    { name: 'scan GET /v0/ans-entries', url: `${server.urls.scan}/v0/ans-entries?page_size=20`, headers: {} },
    { name: 'validator GET /v0/entry/all', url: `${server.urls.validator}/v0/entry/all`, headers: { authorization: `Bearer ${user}` } },
    { name: 'registry POST withdraw (404)', url: `${server.urls.registry}/registry/transfer-instruction/v1/unknown/choice-contexts/withdraw`, method: 'POST' as const, body: '{}', headers: { 'content-type': 'application/json' } },
  ];
  let sum = 0;
  for (const t of targets) {
    const r = await autocannon({ url: t.url, method: t.method ?? 'GET', headers: t.headers, body: t.body, connections: 10, duration: 2 });
    sum += r.requests.average;
    line(`autocannon ${t.name}`, `${fmt(r.requests.average)} req/s (p99 ${r.latency.p99} ms, non-2xx ${r.non2xx})`);
  }
  return sum / targets.length;
}

async function schemaCost(): Promise<void> {
  const { SchemaRegistry } = await import('../harness/judging/schemas.js');
  /** the validators of every response schema, from a fresh registry: ms to load the documents, ms to get the validators */
  const cost = (reg: InstanceType<typeof SchemaRegistry>): { load: number; validators: number; schemas: number } => {
    const t0 = performance.now();
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
    return { load: t1 - t0, validators: performance.now() - t1, schemas };
  };
  new SchemaRegistry().precompileResponses();
  const pre = cost(new SchemaRegistry());
  const compiled = cost(new SchemaRegistry(undefined, { precompiled: false }));
  line('spec loading', `${fmt(pre.load, 1)} ms`);
  line(
    'response validators',
    `all ${pre.schemas}: ${fmt(pre.validators, 1)} ms from the precompiled module (what a suite worker does), ${fmt(compiled.validators, 1)} ms compiled with ajv`,
  );
}

/** The suite against a served reference through loopback proxies that hold every response for 20 ms (--delay-ms). */
async function delayedRun(name: string): Promise<SuiteRun> {
  const far = await servedReference(name);
  const origins = [...new Set(Object.values(far.targets).map((t) => new URL(t.url).origin))];
  const proxies = new Map<string, Awaited<ReturnType<typeof delayProxy>>>();
  for (const o of origins) proxies.set(o, await delayProxy(o, delayMs));
  const proxied = Object.fromEntries(Object.entries(far.targets).map(([api, t]) => {
    const u = new URL(t.url);
    return [api, { ...t, url: `${proxies.get(u.origin)!.url}${u.pathname}`.replace(/\/$/, '') }];
  }));
  const farFile = join(work, `${name}-proxied.yaml`);
  writeFileSync(farFile, stringify({ targets: proxied }));
  let run: SuiteRun;
  try {
    run = await suiteRun(name, ['--config', farFile, '--no-html']);
  } finally {
    for (const p of proxies.values()) await p.close();
    await far.server.close();
  }
  return { ...run, proxyBusyMs: [...proxies.values()].reduce((a, p) => a + (p.busyMs ?? 0), 0) };
}

/** The suite against a served reference, no delay. */
async function undelayedRun(name: string): Promise<SuiteRun> {
  const served = await servedReference(name);
  try {
    return await suiteRun(name, ['--config', served.file, '--no-html']);
  } finally {
    await served.server.close();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * The critical path of a run: its longest checks, with their requests, the time from their start to their first
 * request (waiting for a lock, a worker's slot is not counted: a check starts when vitest runs it) and ms per request.
 */
function criticalPath(r: SuiteRun, top = 15): void {
  const rows = r.checks.filter((c) => c.durationMs !== undefined).sort((a, b) => b.durationMs! - a.durationMs!).slice(0, top);
  console.log(`  longest checks (of ${r.checks.length}): duration, requests, ms per request, before the first request`);
  for (const c of rows) {
    const end = c.lastResponseAt !== undefined ? Date.parse(c.lastResponseAt) : undefined;
    const first = c.firstRequestAt !== undefined ? Date.parse(c.firstRequestAt) : undefined;
    const before = end !== undefined && first !== undefined ? c.durationMs! - (end - first) : undefined;
    const n = c.requests ?? 0;
    console.log(`    ${fmt(c.durationMs!).padStart(6)} ms ${String(n).padStart(5)} req ${(n > 0 ? fmt(c.durationMs! / n, 1) : '-').padStart(6)} ms/req ${before !== undefined ? `${fmt(before).padStart(6)} ms before` : ''.padStart(16)}  ${c.id}${c.shares !== undefined && c.shares.length > 0 ? ` [shares ${c.shares.join(', ')}]` : ''} ${c.verdict ?? ''}`);
  }
  for (const c of r.checks.filter((c) => c.verdict === 'error' || c.verdict === 'fail')) console.log(`  ${c.verdict}: ${c.id}${c.error !== undefined ? `: ${c.error.slice(0, 300)}` : ''}`);
  // a worker runs its files one after another, the checks of a file at once: a file lasts at least its longest check
  const files = new Map<string, { first: number; last: number; checks: number; requests: number; busyMs: number }>();
  for (const c of r.checks) {
    if (c.file === undefined || c.firstRequestAt === undefined || c.lastResponseAt === undefined) continue;
    const f = files.get(c.file) ?? { first: Infinity, last: -Infinity, checks: 0, requests: 0, busyMs: 0 };
    f.first = Math.min(f.first, Date.parse(c.firstRequestAt));
    f.last = Math.max(f.last, Date.parse(c.lastResponseAt));
    f.checks++;
    f.requests += c.requests ?? 0;
    f.busyMs += c.durationMs ?? 0;
    files.set(c.file, f);
  }
  const spans = [...files].map(([file, f]) => ({ file, ...f, spanMs: f.last - f.first })).sort((a, b) => b.spanMs - a.spanMs);
  const total = spans.reduce((a, f) => a + f.spanMs, 0);
  console.log(`  longest files (of ${spans.length}; their spans add up to ${fmt(total / 1000, 1)} s, over the workers): first request to last response, checks, requests, summed check time`);
  for (const f of spans.slice(0, top)) console.log(`    ${fmt(f.spanMs).padStart(6)} ms ${String(f.checks).padStart(3)} checks ${String(f.requests).padStart(5)} req ${fmt(f.busyMs).padStart(7)} ms summed  ${f.file}`);
}

/** --delay-only: pairs of undelayed and delayed runs in turn, medians and paired ratios, the delayed critical path. */
async function delayOnlyBench(): Promise<void> {
  const pairs: Array<{ undelayed: SuiteRun; delayed: SuiteRun }> = [];
  for (let i = 0; i < repeat; i++) {
    const undelayed = await undelayedRun(`served-${i}`);
    const delayed = await delayedRun(`far-${i}`);
    pairs.push({ undelayed, delayed });
    line(`pair ${i + 1}`, `undelayed ${fmt(undelayed.wallMs / 1000, 2)} s (${undelayed.outcome}, ${fmt(undelayed.requests)} req), delayed ${fmt(delayed.wallMs / 1000, 2)} s (${delayed.outcome}, ${fmt(delayed.requests)} req), ratio ${fmt(delayed.wallMs / undelayed.wallMs, 2)}; the proxy's thread busy ${fmt((delayed.proxyBusyMs ?? NaN) / 1000, 2)} s`);
  }
  const rate = (r: SuiteRun) => (r.windowMs !== undefined ? r.requests / (r.windowMs / 1000) : NaN);
  line('undelayed wall (median)', `${fmt(median(pairs.map((p) => p.undelayed.wallMs)) / 1000, 2)} s, ${fmt(median(pairs.map((p) => rate(p.undelayed))))} req/s while sending`);
  line('delayed wall (median)', `${fmt(median(pairs.map((p) => p.delayed.wallMs)) / 1000, 2)} s, ${fmt(median(pairs.map((p) => rate(p.delayed))))} req/s while sending`);
  line('delayed / undelayed (median of pairs)', fmt(median(pairs.map((p) => p.delayed.wallMs / p.undelayed.wallMs)), 2), '<= 1.3');
  console.log('critical path of the last delayed run:');
  describeCriticalPath(pairs.at(-1)!.delayed.wallMs, pairs.at(-1)!.delayed.checks, line, fmt);
  criticalPath(pairs.at(-1)!.delayed);
}

const profileDeps = { work, line, fmt, suiteRun, servedReference, writeConfig: (file: string, targets: Record<string, unknown>) => writeFileSync(file, stringify({ targets })) };

try {
  if (profileOnly) {
    console.log('the suite through the latency profile (each operation delayed by its class):');
    await profileBench(profileDeps, { override: profileOverride, repeat, nightly });
    process.exit(0);
  }
  if (delayOnly) {
    await delayOnlyBench();
    process.exit(0);
  }
  if (observeOnly) {
    console.log(`observe in front of a served reference (${fmt(observeExchanges)} exchanges):`);
    await (await import('./bench-observe.js')).observeBench({ cli: CLI, work, exchanges: observeExchanges, line, fmt });
    process.exit(0);
  }
  console.log(`default run (embedded reference, ${runsArg ?? 'default'} runs per property):`);
  // --repeat N: N pairs (with HTML, without) in turn: this machine's speed drifts within minutes, and the CPU time of
  // each run shows how fast the machine was for the same work
  const pairs: Array<{ html: SuiteRun; plain: SuiteRun }> = [];
  for (let i = 0; i < repeat; i++) {
    const html = await suiteRun(`default-html-${i}`, []);
    const plain = await suiteRun(`default-${i}`, ['--no-html']);
    pairs.push({ html, plain });
    if (repeat > 1) line(`pair ${i + 1}`, `with HTML ${fmt(html.wallMs / 1000, 2)} s (${fmt(html.cpuS, 1)} CPU-s), without ${fmt(plain.wallMs / 1000, 2)} s (${fmt(plain.cpuS, 1)} CPU-s)`);
  }
  // one run: its figure; several: their median and range
  const figure = (xs: number[], digits: number, unit: string) =>
    `${fmt(median(xs), digits)} ${unit}${xs.length > 1 ? ` (median of ${xs.length}, ${fmt(Math.min(...xs), digits)} to ${fmt(Math.max(...xs), digits)})` : ''}`;
  const { html, plain } = pairs.at(-1)!;
  line('wall time with HTML', figure(pairs.map((p) => p.html.wallMs / 1000), 2, 's'), '5 s');
  line('CPU time with HTML', `${figure(pairs.map((p) => p.html.cpuS), 1, 's')} (the suite's process, all its threads; the same work takes more CPU time when the machine is busy)`);
  line('wall time without HTML', figure(pairs.map((p) => p.plain.wallMs / 1000), 2, 's'));
  line('start to first request', `${fmt(plain.firstRequestMs ?? NaN)} ms from the process's spawn (${fmt(plain.firstRequestInRunMs ?? NaN)} ms from the run's start)`, '300 ms');
  line('peak RSS', `${fmt(Math.max(...pairs.flatMap((p) => [p.html.rssMiB, p.plain.rssMiB])))} MiB (with HTML ${fmt(html.rssMiB)}, without ${fmt(plain.rssMiB)})`, '300 MB');
  line('requests', `${fmt(plain.requests)} (${plain.outcome})`);
  line('conformance.json', `${fmt(plain.jsonBytes / 1024)} KiB`);
  if (!quick) {
    console.log('suite against a served reference (run --config), then autocannon against the same server:');
    const served = await servedReference('served');
    const undelayed = await suiteRun('served', ['--config', served.file, '--no-html']);
    describeRun(undelayed);
    const raw = await rawRate(served.server);
    await served.server.close();
    const suiteRate = undelayed.windowMs !== undefined ? undelayed.requests / (undelayed.windowMs / 1000) : NaN;
    line('suite rate / autocannon rate', `${fmt(suiteRate)} / ${fmt(raw)} = ${fmt(suiteRate / raw, 2)}x`, '>= 0.5x');

    console.log('the same through a loopback proxy adding 20 ms to every response:');
    const delayed = await delayedRun('far');
    describeRun(delayed);
    line('delayed / undelayed wall time', `${fmt(delayed.wallMs / 1000, 2)} s / ${fmt(undelayed.wallMs / 1000, 2)} s = ${fmt(delayed.wallMs / undelayed.wallMs, 2)}`, '<= 1.3');
    line("the proxy's thread busy", `${fmt((delayed.proxyBusyMs ?? NaN) / 1000, 2)} s (this machine's CPU for the distance; a far target takes none)`);
    describeCriticalPath(delayed.wallMs, delayed.checks, line, fmt);

    console.log('the suite through the latency profile (each operation delayed by its class):');
    await profileBench(profileDeps, { override: profileOverride, repeat: 1, nightly });

    console.log('scan suite against a served reference with 100 000 ANS entries and 10 000 validator licenses:');
    const t0 = performance.now();
    const large = await servedReference('large', { ansEntries: 100_000, validatorLicenses: 10_000 });
    line('reference start at that size', `${fmt(performance.now() - t0)} ms`);
    const walk = await suiteRun('large', ['--config', large.file, '--only', 'scan', '--no-html']);
    await large.server.close();
    describeRun(walk);
    line('suite process peak RSS', `${fmt(walk.rssMiB)} MiB`, '300 MB');

    console.log('specs:');
    await schemaCost();

    console.log(`observe in front of a served reference (${fmt(observeExchanges)} exchanges):`);
    await (await import('./bench-observe.js')).observeBench({ cli: CLI, work, exchanges: observeExchanges, line, fmt });
  }
} finally {
  if (keep) console.log(`kept: ${work} (each run's reports under it)`);
  else rmSync(work, { recursive: true, force: true });
}
process.exit(0);
