/**
 * The one set-up of the run-through tests: a temporary directory, a small run configuration, the CLI
 * spawner, loopback stub servers, the embedded reference behind fault-injecting proxies, and the report reader. Every
 * bound is here: each spawned run is killed at its time limit, each stub listens on 127.0.0.1 only, and every server,
 * proxy and directory a test makes is closed or removed by `cleanup()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { DEFAULT_RUN, type Config, type TargetConfig } from '../../harness/config.js';
import { PACKAGE_ROOT } from '../../harness/paths.js';
import { runConformance, type RunResult } from '../../harness/run/runner.js';
import type { Api } from '../../harness/types.js';
import { startReference, type ReferenceOptions, type ReferenceServer } from '../../reference/index.js';
import { startFaultProxy, type FaultClass, type FaultOptions, type FaultProxy } from './fault-proxy.js';

export const BIN = join(PACKAGE_ROOT, 'bin', 'canton-conformance.mjs');
export const APIS: Api[] = ['ledger', 'scan', 'validator', 'registry'];
/** the mini suite's documents, catalogue and checks (test/fixtures/mini): a tiny scan-like target for harness tests */
export const MINI = join(PACKAGE_ROOT, 'test', 'fixtures', 'mini');

/** What every run through the CLI needs and a test rarely changes: no HTML, no comparison, few generated cases. */
export const SMALL_RUN = { timeoutMs: 5000, checkTimeoutMs: 30_000, retries: 1, retryMaxWaitMs: 1500, html: false, compare: false, runs: 3 } as const;

/** Things to close at the end of a test file, last made first closed. */
const closers: Array<() => Promise<void> | void> = [];

/** Closes every server, proxy and reference and removes every directory made through this module so far. */
export async function cleanup(): Promise<void> {
  while (closers.length > 0) {
    try {
      await closers.pop()!();
    } catch {
      // closing what is closed already
    }
  }
}

/** A temporary directory, removed by cleanup() (kept, and named on stderr, with CC_ROBUST_KEEP=1). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `cc-${prefix}-`));
  closers.push(() => {
    if (process.env.CC_ROBUST_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
    else process.stderr.write(`reports kept in ${dir}\n`);
  });
  return dir;
}

/**
 * Writes a run configuration file (JSON, which the config loader reads as YAML) and returns its path: `run` over
 * `base` (SMALL_RUN unless given).
 */
export function writeConfig(path: string, config: { run?: Record<string, unknown>; targets: unknown }, base: Record<string, unknown> = SMALL_RUN): string {
  writeFileSync(path, JSON.stringify({ run: { ...base, ...config.run }, targets: config.targets }, null, 2));
  return path;
}

export interface CliRun {
  code: number | null;
  /** how long the process lived */
  ms: number;
  out: string;
  err: string;
  /** the peak resident set (all threads) seen while it ran, MB; undefined where /proc is not there */
  peakRssMb?: number;
  /** true when the time limit killed it */
  killed: boolean;
}

/** The peak resident set of a process so far (VmHWM: all its threads, the check workers included), in MB. */
function peakRssMb(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? undefined : Number(m[1]) / 1024;
  } catch {
    return undefined;
  }
}

export interface SpawnOptions {
  cwd: string;
  /** the run is killed (SIGKILL) after this long: a hang detector, far above what the run needs */
  limitMs: number;
  /** called with all of stderr so far whenever more comes (e.g. to send a signal once a line appeared) */
  onStderr?: (err: string, child: ChildProcess) => void;
  /** called once with the child process as soon as it is spawned (e.g. to signal it from elsewhere) */
  onSpawn?: (child: ChildProcess) => void;
  /** poll the peak RSS every 100 ms */
  measureMemory?: boolean;
}

/** Runs the CLI (`canton-conformance ...args`) as a child process, NO_COLOR, bounded by `limitMs`. */
export async function spawnCli(args: string[], o: SpawnOptions): Promise<CliRun> {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], { cwd: o.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  let err = '';
  let peak: number | undefined;
  let killed = false;
  o.onSpawn?.(child);
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    o.onStderr?.(err, child);
  });
  const poll = o.measureMemory === true ? setInterval(() => {
    const now = child.pid !== undefined ? peakRssMb(child.pid) : undefined;
    if (now !== undefined) peak = Math.max(peak ?? 0, now);
  }, 100) : undefined;
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, o.limitMs);
    child.on('close', (c) => {
      clearTimeout(timer);
      if (poll !== undefined) clearInterval(poll);
      resolve(c);
    });
  });
  return { code, ms: Date.now() - started, out, err, ...(peak !== undefined ? { peakRssMb: peak } : {}), killed };
}

export interface Stub {
  url: string;
  port: number;
  /** requests it received */
  hits: () => number;
  close(): Promise<void>;
}

/**
 * A loopback HTTP stub: `handle` answers each request (its body read first); closed by cleanup() or close(), which
 * destroys every connection, held requests included.
 */
export async function startStub(handle: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<Stub> {
  let hits = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits++;
      handle(req, res, Buffer.concat(chunks));
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  };
  closers.push(close);
  return { url: `http://127.0.0.1:${port}`, port, hits: () => hits, close };
}

/** A loopback port that was free a moment ago: nothing listens there, so every connection to it is refused. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Answers a JSON body. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** A reference server (faults planted as given), closed by cleanup(). */
export async function reference(o: ReferenceOptions = {}): Promise<ReferenceServer> {
  const r = await startReference(o);
  closers.push(() => r.close());
  return r;
}

export type ReferenceTargetsJson = Record<Api, { url: string } & Record<string, unknown>>;

/** The reference's `targets` block, as a configuration file writes it (a fresh copy each time). */
export const targetsOf = (r: ReferenceServer): ReferenceTargetsJson => structuredClone(r.targetConfig()) as unknown as ReferenceTargetsJson;

/**
 * Puts a fault-injecting proxy in front of one interface of a `targets` block (changed in place: its URL then points
 * at the proxy, the base path kept); the proxy is closed by cleanup().
 */
export async function behindProxy(targets: ReferenceTargetsJson, api: Api, fault: FaultClass, o: FaultOptions = {}): Promise<FaultProxy> {
  const upstream = new URL(targets[api].url);
  const proxy = await startFaultProxy(upstream.origin, fault, o);
  closers.push(() => proxy.close());
  targets[api].url = `${proxy.url}${upstream.pathname.replace(/\/$/, '')}`;
  return proxy;
}

/** `--requirement` arguments for a list of requirement ids. */
export const requirementArgs = (ids: readonly string[]): string[] => ids.flatMap((r) => ['--requirement', r]);

/** The parts of conformance.json the run-through tests read. */
export interface ReportJson {
  outcome: string;
  exitCode: number;
  interrupted?: { by?: string; atOnce: boolean };
  requirements: Array<{ id: string; level: string; verdict: string; reason?: string }>;
  checks: Array<{ id: string; api: string; verdict: string; error?: string; reason?: string; requirements: string[]; failures?: Array<{ requirement: string; message: string }>; footprint?: unknown }>;
  footprint?: {
    parties: number;
    packageUploads: number;
    usersLeft: string[];
    possiblyLeft?: Array<{ check: string; kind: string; id: string; why: string }>;
    notCleanedUp: Array<{ check: string; what: string }>;
  };
}

/** The conformance.json of the latest run under a reports directory (`<dir>/latest/`), or of a run directory. */
export function readReport(dir: string): ReportJson {
  const latest = join(dir, 'latest', 'conformance.json');
  return JSON.parse(readFileSync(existsSync(latest) ? latest : join(dir, 'conformance.json'), 'utf8')) as ReportJson;
}

/** The run ended by itself within its bound, with `exit`, wrote its reports and printed no stack trace. */
export function expectEndedWithReports(run: CliRun, reportsDir: string, exit: number | number[], context = ''): ReportJson {
  const why = `${context}\n${run.err.slice(-3000)}`;
  expect(run.killed, `killed at the time limit after ${run.ms} ms${why}`).toBe(false);
  expect([exit].flat(), `exit ${run.code}${why}`).toContain(run.code);
  for (const f of ['conformance.json', 'summary.md', 'junit.xml']) expect(existsSync(join(reportsDir, 'latest', f)), `${f}${why}`).toBe(true);
  expect(run.out + run.err, why).not.toMatch(/\n\s+at /);
  expect(run.out + run.err, why).not.toMatch(/Unhandled|uncaught/i);
  const rep = readReport(reportsDir);
  expect(rep.exitCode, why).toBe(run.code);
  return rep;
}

const verdictLine = (r: { id: string; verdict: string; reason?: string }) => `${r.id}: ${r.verdict}${r.reason !== undefined ? ` (${r.reason})` : ''}`;

/** None of the requirements `which` selects passed (a planted fault, or an answer that judged nothing). */
export function expectNonePass(rep: ReportJson, which: (id: string) => boolean, what: string): void {
  const mine = rep.requirements.filter((r) => which(r.id));
  expect(mine.length, `${what}: no requirement selected`).toBeGreaterThan(0);
  expect(mine.filter((r) => r.verdict === 'pass').map(verdictLine), what).toEqual([]);
}

/** None of the requirements `which` selects failed (a clean target). */
export function expectNoneFail(rep: ReportJson, which: (id: string) => boolean, what: string): void {
  const mine = rep.requirements.filter((r) => which(r.id));
  expect(mine.length, `${what}: no requirement selected`).toBeGreaterThan(0);
  expect(mine.filter((r) => r.verdict === 'fail').map(verdictLine), what).toEqual([]);
}

/** A configuration for an in-process run (runConformance) of the mini suite's checks against a loopback target. */
export function miniConfig(url: string, include: string[], run: Partial<Config['run']> & { reportsDir: string }, target: Partial<TargetConfig> = {}): Config {
  return {
    run: { ...DEFAULT_RUN, only: ['scan'], html: false, compare: false, ...run },
    targets: { scan: { url, version: '1.0', auth: { kind: 'none' }, features: {}, fixtures: {}, disabledRequirements: [], headers: {}, ...target } },
    reference: { faults: [] },
    useReference: false,
    sources: ['test'],
    internal: { specsDir: MINI, catalogueDir: join(MINI, 'requirements'), include },
  };
}

/** Runs a configuration in this process, quietly. */
export function runQuietly(config: Config, o: Omit<Parameters<typeof runConformance>[1], 'write'> = {}): Promise<RunResult> {
  return runConformance(config, { write: () => undefined, ...o });
}
