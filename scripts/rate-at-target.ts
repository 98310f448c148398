/**
 * run.maxRequestsPerSecond measured at the target, on a loaded machine: starts the embedded reference in a process of
 * its own (`serve`), a counting proxy in another (test/load/counting-proxy.ts) in front of all four interfaces, busy
 * processes that spin on the machine's cores (test/load/busy.ts), then a whole `run --max-requests-per-second N`
 * through the proxy. Prints the requests counted at the target, the busiest one-second window (sliding, all four
 * interfaces together), the run's exit code, duration and outcome line.
 *
 *   npx tsx scripts/rate-at-target.ts [--rate N] [--busy N] [--max-s S] [--keep] [-- extra run arguments]
 *
 * Exit 0 when the busiest window carried at most N + 1 requests and the run ended exit 0; 1 when either did not; 2 on
 * bad usage or when the reference or the proxy could not be started; 130 / 143 when stopped by SIGINT / SIGTERM. Every
 * process it starts is stopped at the end and on those signals, and each is bounded in time on its own as well (the
 * busy processes and the proxy stop by themselves, the reference and the run are started under `timeout` where the
 * system has it). Everything listens and talks on 127.0.0.1 only.
 */
import { spawn, spawnSync, fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBusy, type Busy } from '../test/load/busy.js';
import { busiestWindow } from '../test/load/arrivals.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'bin', 'canton-conformance.mjs');
const USAGE = `usage: npx tsx scripts/rate-at-target.ts [--rate N] [--busy N] [--max-s S] [--keep] [-- extra run arguments]
  --rate N    run.maxRequestsPerSecond of the run (default 10)
  --busy N    busy processes spinning beside the run (default 4; 0 for none)
  --max-s S   the most seconds the run may take before it is stopped (default 1800)
  --keep      keep the temporary folder (configuration, reports, arrivals.json) and print its path
arguments after -- go to "canton-conformance run" (e.g. -- --only ledger --seed 7)`;

interface Options {
  rate: number;
  busy: number;
  maxS: number;
  keep: boolean;
  extra: string[];
}

function parseArgs(argv: string[]): Options {
  const o: Options = { rate: 10, busy: 4, maxS: 1800, keep: false, extra: [] };
  const number = (flag: string, v: string | undefined, ok: (n: number) => boolean, what: string): number => {
    const n = Number(v);
    if (v === undefined || v.trim() === '' || !Number.isFinite(n) || !ok(n)) throw new UsageError(`${flag}: "${v ?? ''}" is not ${what}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      o.extra = argv.slice(i + 1);
      break;
    } else if (a === '--rate') o.rate = number(a, argv[++i], (n) => n > 0 && n <= 100_000, 'a positive number of requests a second');
    else if (a === '--busy') o.busy = number(a, argv[++i], (n) => Number.isInteger(n) && n >= 0 && n <= 64, 'a whole number from 0 to 64');
    else if (a === '--max-s') o.maxS = number(a, argv[++i], (n) => n >= 10 && n <= 86_400, 'a number of seconds from 10 to 86400');
    else if (a === '--keep') o.keep = true;
    else if (a === '-h' || a === '--help') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else throw new UsageError(`unknown argument "${a}"`);
  }
  return o;
}

class UsageError extends Error {}

/** Processes this script started, stopped at the end and on signals. */
const started = new Set<ChildProcess>();
let busy: Busy | undefined;
let workDir: string | undefined;
let keep = false;
let stopping: Promise<void> | undefined;

/** `timeout` of coreutils, which bounds a child that would outlive this script if it were killed outright. */
const HAS_TIMEOUT = spawnSync('timeout', ['--version'], { stdio: 'ignore' }).status === 0;

function startBounded(args: string[], maxS: number): ChildProcess {
  const [cmd, argv] = HAS_TIMEOUT ? ['timeout', ['--kill-after=15', String(Math.ceil(maxS)), process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  child.on('exit', () => started.delete(child));
  child.on('error', () => started.delete(child));
  return child;
}

/** Stops every process this script started: SIGTERM, then SIGKILL after `graceMs`. */
function stopAll(graceMs = 5000): Promise<void> {
  stopping ??= (async () => {
    busy?.stop();
    const alive = [...started].filter((c) => c.exitCode === null && c.signalCode === null);
    for (const c of alive) {
      if (c.connected) c.send('stop');
      c.kill('SIGTERM');
    }
    await Promise.race([Promise.all(alive.map((c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(undefined) : c.once('exit', r))))), sleep(graceMs)]);
    for (const c of alive) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    if (workDir !== undefined && !keep) rmSync(workDir, { recursive: true, force: true });
  })();
  return stopping;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.on(signal, () => {
    process.stderr.write(`rate-at-target: ${signal}, stopping everything it started\n`);
    void stopAll(3000).then(() => process.exit(code));
  });
}

/** Resolves with the first match of `pattern` in the child's stdout, or rejects when it ends or `ms` pass first. */
function waitForLine(child: ChildProcess, pattern: RegExp, ms: number, what: string): Promise<RegExpMatchArray> {
  return new Promise((resolveLine, reject) => {
    let seen = '';
    const timer = setTimeout(() => done(new Error(`${what}: nothing within ${ms / 1000} s; it printed:\n${seen.slice(-2000)}`)), ms);
    const onData = (d: Buffer) => {
      seen += d.toString('utf8');
      const m = seen.match(pattern);
      if (m !== null) done(undefined, m);
    };
    const onExit = (code: number | null) => done(new Error(`${what}: ended (exit ${code}) before it was ready; it printed:\n${seen.slice(-2000)}`));
    const done = (e: Error | undefined, m?: RegExpMatchArray) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      if (e !== undefined) reject(e);
      else resolveLine(m!);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** The counting proxy in its own process: resolves with it and its URL once it listens. */
async function startProxy(upstream: string, maxMs: number): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(join(ROOT, 'test', 'load', 'counting-proxy.ts'), [upstream, String(maxMs)], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  started.add(child);
  child.on('exit', () => started.delete(child));
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error('counting proxy: not listening within 60 s')), 60_000);
    child.once('message', (m) => {
      clearTimeout(timer);
      const u = (m as { url?: unknown }).url;
      if (typeof u === 'string') res(u);
      else rej(new Error(`counting proxy: unexpected message ${JSON.stringify(m)}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`counting proxy: ended (exit ${code}) before it listened`));
    });
  });
  return { child, url };
}

/** The arrivals the proxy counted, asked over its IPC channel (bounded). */
function arrivalsOf(proxy: ChildProcess): Promise<number[]> {
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error('counting proxy: no arrivals within 30 s')), 30_000);
    proxy.once('message', (m) => {
      clearTimeout(timer);
      res((m as { arrivals: number[] }).arrivals);
    });
    proxy.send('arrivals');
  });
}

/** The start (ms from the first arrival) and count of the busiest one-second window. */
function busiestAt(arrivals: number[]): { at: number; count: number } {
  const a = [...arrivals].sort((x, y) => x - y);
  let best = { at: 0, count: 0 };
  for (let i = 0, j = 0; i < a.length; i++) {
    while (a[i]! - a[j]! >= 1000) j++;
    if (i - j + 1 > best.count) best = { at: a[j]! - a[0]!, count: i - j + 1 };
  }
  return best;
}

/** The run's conformance.json under the reports folder, if it wrote one. */
function readReport(reportsDir: string): { requests?: number; ownStalls?: number; durationMs?: number } | undefined {
  if (!existsSync(reportsDir)) return undefined;
  for (const name of readdirSync(reportsDir)) {
    const file = join(reportsDir, name, 'conformance.json');
    if (name === 'latest' || !existsSync(file) || !statSync(file).isFile()) continue;
    const r = JSON.parse(readFileSync(file, 'utf8')) as { durationMs?: number; traffic?: { requests?: number; ownStalls?: number } };
    return { requests: r.traffic?.requests, ownStalls: r.traffic?.ownStalls, durationMs: r.durationMs };
  }
  return undefined;
}

async function main(): Promise<number> {
  let o: Options;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`rate-at-target: ${e.message}\n${USAGE}\n`);
    return 2;
  }
  keep = o.keep;
  const limit = Math.floor(o.rate) + 1;
  const maxMs = o.maxS * 1000;
  workDir = mkdtempSync(join(tmpdir(), 'rate-at-target-'));
  const config = join(workDir, 'reference.yaml');
  const proxied = join(workDir, 'through-proxy.yaml');
  const reportsDir = join(workDir, 'reports');

  // the reference, the proxy and the load outlive the run by a little at most
  const serve = startBounded([CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--write-config', config], o.maxS + 120);
  let upstream: string;
  let proxy: { child: ChildProcess; url: string };
  try {
    const m = await waitForLine(serve, /^\s*ledger\s+(http:\/\/127\.0\.0\.1:\d+)\s*$[\s\S]*target configuration written to/m, 120_000, 'reference server');
    upstream = m[1]!;
    proxy = await startProxy(upstream, maxMs + 120_000);
  } catch (e) {
    // a signal stops everything meanwhile: its handler says so and exits
    if (stopping === undefined) process.stderr.write(`rate-at-target: ${(e as Error).message}\n`);
    return 2;
  }
  serve.stdout?.resume();
  serve.stderr?.resume();
  const text = readFileSync(config, 'utf8');
  if (!text.includes(`${upstream}`)) {
    process.stderr.write(`rate-at-target: the configuration written by serve does not name ${upstream}\n`);
    return 2;
  }
  writeFileSync(proxied, text.split(upstream).join(proxy.url));

  const runArgs = [CLI, 'run', '--config', proxied, '--max-requests-per-second', String(o.rate), '--no-html', '--no-compare', '--reports-dir', reportsDir, ...o.extra];
  process.stdout.write(`rate-at-target: ${o.busy} busy processes on the machine's cores; reference ${upstream} behind the counting proxy ${proxy.url}\n`);
  process.stdout.write(`rate-at-target: canton-conformance ${runArgs.slice(1).join(' ')}\n`);
  if (o.busy > 0) busy = startBusy(o.busy, maxMs + 60_000);
  const t0 = Date.now();
  const run = startBounded(runArgs, o.maxS);
  let outcome = '';
  let tail = '';
  const onOutput = (d: Buffer, to: NodeJS.WriteStream) => {
    to.write(d);
    tail = (tail + d.toString('utf8')).slice(-8000);
    const lines = tail.split('\n').filter((l) => /^(PASSED|FAILED|INCOMPLETE|STOPPED|CUT)\b/.test(l));
    if (lines.length > 0) outcome = lines[lines.length - 1]!;
  };
  run.stdout?.on('data', (d: Buffer) => onOutput(d, process.stdout));
  run.stderr?.on('data', (d: Buffer) => onOutput(d, process.stderr));
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => run.once('exit', (code, signal) => r({ code, signal })));
  const seconds = (Date.now() - t0) / 1000;
  busy?.stop();

  const arrivals = await arrivalsOf(proxy.child);
  const report = readReport(reportsDir);
  const window = busiestWindow(arrivals, 1000);
  const at = busiestAt(arrivals);
  const over = arrivals.length === 0 ? 0 : countWindowsOver(arrivals, limit);
  const span = arrivals.length > 1 ? (arrivals[arrivals.length - 1]! - arrivals[0]!) / 1000 : 0;
  if (o.keep) writeFileSync(join(workDir, 'arrivals.json'), JSON.stringify(arrivals));

  const timedOut = HAS_TIMEOUT && exit.code === 124;
  const runOk = exit.code === 0;
  const windowOk = window <= limit;
  const out = [
    '',
    `rate-at-target: --max-requests-per-second ${o.rate}, ${o.busy} busy processes`,
    `  requests at the target:   ${arrivals.length} in ${span.toFixed(1)} s${report?.requests !== undefined ? ` (the run counted ${report.requests})` : ''}`,
    `  busiest one-second window: ${window} (from ${(at.at / 1000).toFixed(1)} s after the first request; limit ${limit})${over > 0 ? `: ${over} requests ended a window over the limit` : ''}`,
    `  run: exit ${exit.code ?? exit.signal}${timedOut ? ` (stopped after --max-s ${o.maxS})` : ''} in ${seconds.toFixed(1)} s${report?.ownStalls !== undefined ? `; ${report.ownStalls} requests timed out while the run's own thread was stalled` : ''}`,
    `  outcome: ${outcome || '(no outcome line)'}`,
    `  ${windowOk && runOk ? 'OK' : 'NOT OK'}: ${windowOk ? `no window over ${limit}` : `a window of ${window} is over ${limit}`}, ${runOk ? 'run exit 0' : 'the run did not end exit 0'}`,
  ];
  if (o.keep) out.push(`  kept: ${workDir} (reference.yaml, through-proxy.yaml, reports/, arrivals.json)`);
  process.stdout.write(`${out.join('\n')}\n`);
  return windowOk && runOk ? 0 : 1;
}

/** How many arrivals end a one-second window holding more than `limit`. */
function countWindowsOver(arrivals: number[], limit: number): number {
  const a = [...arrivals].sort((x, y) => x - y);
  let n = 0;
  for (let i = 0, j = 0; i < a.length; i++) {
    while (a[i]! - a[j]! >= 1000) j++;
    if (i - j + 1 > limit) n++;
  }
  return n;
}

main()
  .then(async (code) => {
    await stopAll();
    process.exit(code);
  })
  .catch(async (e: unknown) => {
    process.stderr.write(`rate-at-target: ${e instanceof Error ? e.message : String(e)}\n`);
    await stopAll();
    process.exit(2);
  });
