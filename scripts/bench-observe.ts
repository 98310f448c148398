/**
 * The observe benchmark (npm run bench, or alone: npm run bench -- --observe-only [--exchanges N]): what standing in
 * front of a node costs. Three processes on loopback: a served reference (`serve`, with a planted fault so that a
 * quarter of the exchanges fail their schema and the kept-failure cap is exercised), `observe` in front of it, and this
 * process as the client. Prints, asserting nothing:
 * - the latency a request gains through observe: sequential requests on one keep-alive connection each, direct and
 *   proxied in turn (so drift of the machine falls on both), p50 and p99 of each and their differences;
 * - observe's resident memory over N exchanges (default 100 000) sent 16 at a time across the four interfaces and a
 *   path outside the specification: after warm-up and at each tenth, then its peak. Goals: at most 1 ms added at p50,
 *   memory flat after warm-up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';

type Line = (label: string, value: string, goal?: string) => void;

interface Proc {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

function start(cli: string, args: string[], cwd: string): Proc {
  const child = spawn(process.execPath, [cli, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, out: () => out, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
}

async function until<T>(what: string, f: () => T | undefined, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** resident and peak resident memory of a process, MiB (Linux /proc) */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

interface Request {
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

export async function observeBench(o: { cli: string; work: string; exchanges: number; line: Line; fmt: (n: number, digits?: number) => number | string }): Promise<void> {
  const { line, fmt } = o;
  const serve = start(o.cli, ['serve', '--port', '0', '--fault', 'scan-list-ans-entries-user-missing', '--write-config', 'observe-served.yaml'], o.work);
  let observe: Proc | undefined;
  const pools: Pool[] = [];
  try {
    const ledger = await until('the served reference', () => /ledger\s+(http:\/\/\S+)/.exec(serve.out())?.[1]);
    const admin = await until('its admin token', () => /admin token[^\n]*\n\s+(\S+)/.exec(serve.out())?.[1]);
    const user = await until('its validator token', () => /validator user token[^\n]*\n\s+(\S+)/.exec(serve.out())?.[1]);
    await until('its configuration', () => (/target configuration written/.test(serve.out()) ? true : undefined));
    observe = start(o.cli, ['observe', '--config', 'observe-served.yaml', '--listen', '127.0.0.1:0', '--reports-dir', 'observe-reports'], o.work);
    const proxy = await until('observe', () => /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(observe!.out())?.[1]);
    const pid = observe.child.pid!;
    const mix: Request[] = [
      { path: '/v2/version', method: 'GET', headers: { authorization: `Bearer ${admin}` } },
      { path: '/api/scan/v0/ans-entries?page_size=20', method: 'GET', headers: {} },
      { path: '/api/validator/v0/entry/all', method: 'GET', headers: { authorization: `Bearer ${user}` } },
      { path: '/api/registry/registry/transfer-instruction/v1/unknown/choice-contexts/withdraw', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      { path: '/v2/not-in-the-specification', method: 'GET', headers: { authorization: `Bearer ${admin}` } },
    ];
    const send = async (pool: Pool, r: Request): Promise<number> => {
      const t0 = performance.now();
      const res = await pool.request({ path: r.path, method: r.method, headers: r.headers, ...(r.body !== undefined ? { body: r.body } : {}) });
      await res.body.text();
      return performance.now() - t0;
    };

    // latency: one connection each, direct and proxied in turn
    const direct = new Pool(ledger, { connections: 1, pipelining: 1 });
    const through = new Pool(proxy, { connections: 1, pipelining: 1 });
    pools.push(direct, through);
    for (let i = 0; i < 1000; i++) {
      await send(direct, mix[i % 4]!);
      await send(through, mix[i % 4]!);
    }
    const d: number[] = [];
    const t: number[] = [];
    const pairs = 5000;
    for (let i = 0; i < pairs; i++) {
      const r = mix[i % 4]!;
      if (i % 2 === 0) {
        d.push(await send(direct, r));
        t.push(await send(through, r));
      } else {
        t.push(await send(through, r));
        d.push(await send(direct, r));
      }
    }
    const paired = d.map((x, i) => t[i]! - x).sort((a, b) => a - b);
    d.sort((a, b) => a - b);
    t.sort((a, b) => a - b);
    line('latency direct p50 / p99', `${fmt(percentile(d, 50), 3)} / ${fmt(percentile(d, 99), 3)} ms (${pairs} sequential requests, four interfaces)`);
    line('latency via observe p50 / p99', `${fmt(percentile(t, 50), 3)} / ${fmt(percentile(t, 99), 3)} ms`);
    line('added p50 / p99', `${fmt(percentile(t, 50) - percentile(d, 50), 3)} / ${fmt(percentile(t, 99) - percentile(d, 99), 3)} ms (median of the paired differences ${fmt(percentile(paired, 50), 3)} ms)`, '<= 1 ms at p50');

    // memory over a bounded load: 16 in flight, the mix in turn
    const load = new Pool(proxy, { connections: 16 });
    pools.push(load);
    const total = o.exchanges;
    const marks: string[] = [];
    let next = 0;
    let done = 0;
    const warm = Math.min(10_000, Math.floor(total / 10));
    let warmRss = Number.NaN;
    const t0 = performance.now();
    const every = Math.max(1, Math.floor(total / 10));
    const worker = async () => {
      while (next < total) {
        const i = next++;
        await send(load, mix[i % mix.length]!);
        done++;
        if (done === warm) warmRss = memoryOf(pid).rss;
        if (done % every === 0) marks.push(`${fmt(done / 1000)}k ${fmt(memoryOf(pid).rss)}`);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const seconds = (performance.now() - t0) / 1000;
    const m = memoryOf(pid);
    line('exchanges through observe', `${fmt(total)} in ${fmt(seconds, 1)} s (${fmt(total / seconds)}/s, 16 in flight)`);
    line('observe RSS after warm-up', `${fmt(warmRss)} MiB at ${fmt(warm / 1000)}k exchanges; then (k exchanges, MiB): ${marks.join(', ')}`, 'flat after warm-up');
    line('observe peak RSS', `${fmt(m.peak)} MiB`);
    observe.child.kill('SIGINT');
    await observe.exited;
    const report = JSON.parse(readFileSync(join(o.work, 'observe-reports', 'latest', 'conformance.json'), 'utf8')) as {
      outcome: string;
      observed: { exchanges: number; requirements: Array<{ id: string; verdict: string; failures: number }> };
      requirements: Array<{ id: string; failures: unknown[] }>;
    };
    const failing = report.observed.requirements.filter((q) => q.verdict === 'observed fail');
    line(
      'observe report',
      `${fmt(report.observed.exchanges)} exchanges judged; ${failing.map((q) => `${q.id} broken by ${fmt(q.failures)} (${(report.requirements.find((r) => r.id === q.id)?.failures ?? []).filter((f) => (f as { exchange?: unknown }).exchange !== undefined).length} kept with their exchange)`).join(', ') || 'no observed failure'}`,
    );
  } finally {
    for (const p of pools) await p.close().catch(() => undefined);
    if (observe !== undefined && observe.child.exitCode === null) {
      observe.child.kill('SIGKILL');
      await observe.exited;
    }
    serve.child.kill('SIGINT');
    await serve.exited;
  }
}
