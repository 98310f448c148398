/**
 * A realistic latency profile for the benchmark: a loopback proxy, in a worker thread of its own, that holds
 * each answer for the time its kind of operation takes on a real participant and its synchronizer, rather than one
 * flat delay for all. The classes and their delays are one table (LATENCY_PROFILE), overridable with
 * `--profile read=20,users=50,topology=400,submission=250,upload=800,vetting=500` (any subset).
 *
 * A request's delay is the sum of its classes' (an upload that vets its packages is an upload and a vetting change); an
 * answer that is not 2xx (a rejected request: malformed, unauthorised, not found, already exists) is held for the read
 * delay only, as a participant refuses such a request before it does the work. The delay is added once the reference
 * answered, like the flat delay proxy's.
 *
 * `profileBench` runs the suite against a served reference through these proxies and prints the run's wall time, its
 * critical path (the longest chain of requests that had to wait for one another: the longest chain of a check, or of
 * the checks that share a resource of the target and so run one after another) and the ratio wall / critical path;
 * `--nightly` does it again at `--runs 500` and prints the wall time and peak RSS.
 */
import { Worker } from 'node:worker_threads';

/** A kind of operation and how long a real target takes to answer it. */
export interface LatencyClass {
  name: string;
  what: string;
  ms: number;
}

/** The profile's delays (ms), one per class. Reads take the network's round trip and a database read. */
export const LATENCY_PROFILE: readonly LatencyClass[] = [
  { name: 'read', what: 'reads (every GET, the POST queries: vetting lists, updates by offset, events, activities, choice contexts) and every rejected request', ms: 20 },
  { name: 'users', what: 'user and rights administration (create, update and delete a user; grant and revoke rights)', ms: 50 },
  { name: 'topology', what: 'party allocation and topology (allocate a party, generate an external party topology, top up a traffic account)', ms: 400 },
  { name: 'submission', what: 'command submissions and reassignments (submit-and-wait-for-transaction, -tree, -reassignment)', ms: 250 },
  { name: 'upload', what: 'package uploads (POST /v2/packages, /v2/dars)', ms: 800 },
  { name: 'vetting', what: 'vetting changes (added to an upload that vets its packages: vetAllPackages not false)', ms: 500 },
];

/**
 * Which classes a request belongs to, by method and path (the path's end, so that a base path in front of it does not
 * matter); a request no route names is a read. `vets`: only when the query does not say vetAllPackages=false.
 */
interface Route {
  method: string;
  path: string;
  classes: string[];
  /** the class added when the request vets its packages */
  vets?: string;
}
export const PROFILE_ROUTES: readonly Route[] = [
  { method: 'POST', path: '/v2/users$', classes: ['users'] },
  { method: 'PATCH|DELETE', path: '/v2/users/[^/]+$', classes: ['users'] },
  { method: 'POST|PATCH', path: '/v2/users/[^/]+/rights$', classes: ['users'] },
  { method: 'POST', path: '/v2/parties$', classes: ['topology'] },
  { method: 'POST', path: '/v2/parties/external/[^/]+$', classes: ['topology'] },
  { method: 'POST', path: '/v2/traffic/accounts$', classes: ['topology'] },
  { method: 'POST', path: '/v2/commands/submit-and-wait[^/]*$', classes: ['submission'] },
  { method: 'POST', path: '/v2/(packages|dars)$', classes: ['upload'], vets: 'vetting' },
];

/** The profile with `--profile name=ms,...` applied. */
export function profileWith(override: string | undefined, base: readonly LatencyClass[] = LATENCY_PROFILE): LatencyClass[] {
  const out = base.map((c) => ({ ...c }));
  for (const part of (override ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
    const [name, value] = part.split('=');
    const c = out.find((x) => x.name === name?.trim());
    const ms = Number(value);
    if (c === undefined || value === undefined || !(ms >= 0)) throw new Error(`--profile: "${part}" is not one of ${out.map((x) => `${x.name}=<ms>`).join(', ')}`);
    c.ms = ms;
  }
  return out;
}

/**
 * The classifier, as the source of a function (method, url, status, routes, ms by class) -> delay, so that the proxy's
 * worker and this module run the same code.
 */
const CLASSIFY_SOURCE = `function delayOf(method, url, status, routes, ms) {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (status < 200 || status > 299) return { classes: ['read'], ms: ms.read };
  // each route's expressions, compiled once
  const compiled = (delayOf.compiled ??= new Map());
  const re = (source) => {
    let r = compiled.get(source);
    if (r === undefined) compiled.set(source, (r = new RegExp(source)));
    return r;
  };
  for (const r of routes) {
    if (!re('^(' + r.method + ')$').test(method) || !re(r.path).test(path)) continue;
    const classes = [...r.classes];
    if (r.vets !== undefined && !/[?&]vetAllPackages=false(&|$)/.test(q < 0 ? '' : url.slice(q))) classes.push(r.vets);
    return { classes, ms: classes.reduce((a, c) => a + ms[c], 0) };
  }
  return { classes: ['read'], ms: ms.read };
}`;
const delayOfFn = new Function(`${CLASSIFY_SOURCE}\nreturn delayOf;`)() as (method: string, url: string, status: number, routes: readonly Route[], ms: Record<string, number>) => { classes: string[]; ms: number };

/** How long the profile holds the answer to one request, and its classes. */
export function delayOf(method: string, url: string, status: number, profile: readonly LatencyClass[] = LATENCY_PROFILE): { classes: string[]; ms: number } {
  return delayOfFn(method.toUpperCase(), url, status, PROFILE_ROUTES, Object.fromEntries(profile.map((c) => [c.name, c.ms])));
}

/**
 * The proxy: holds each answer for its delay, then sends it. In a worker thread of its own (as the flat delay proxy of
 * scripts/bench.ts, for the same reason: distance costs a real target no CPU). It counts the requests of each class.
 *
 * It works on the bytes, not through node:http, so that it costs this machine's cores as little as it can (a real
 * target far away costs them nothing): each connection of the client has one connection to the target, the request's
 * bytes go through as they come, and the proxy reads of them only each request's method and path (its head, then its
 * body skipped by its length or chunks). Of the target's bytes it finds where each answer ends (Content-Length,
 * chunked, or the connection's end; none after HEAD, 1xx, 204 or 304), then holds the whole answer for its delay, in
 * order. Through node:http its thread was busy 3.0 s of a delayed default run (about 0.75 ms a request, as much as
 * the reference's own serving); this way 1.0 to 1.3 s. The target's keep-alive and connection headers reach the client
 * as sent: the client's connection lasts as long as the target's.
 */
const PROFILE_PROXY_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const { upstream, routes, ms } = workerData;
const delayOf = (${CLASSIFY_SOURCE});
const target = new URL(upstream);
const counts = {};
const HEAD_END = Buffer.from('\\r\\n\\r\\n');
const LINE_END = Buffer.from('\\r\\n');
const MAX_HEAD = 1 << 20;

/**
 * Finds the HTTP/1.1 messages in one direction of a connection: onHead(start line, head bytes) when a message's head
 * is read, returning how its body is framed ({ length }, { chunked: true }, { untilClose: true }, or {} for none);
 * onMessage(parts) once the message's last byte is read, with its bytes.
 */
function framer(onHead, onMessage) {
  let pending = Buffer.alloc(0);
  let parts = [];
  let state = 'head';
  let remaining = 0;
  const take = (n) => {
    parts.push(pending.subarray(0, n));
    pending = pending.subarray(n);
  };
  const finish = () => {
    const p = parts;
    parts = [];
    state = 'head';
    onMessage(p);
  };
  return {
    feed(chunk) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        if (state === 'head') {
          const i = pending.indexOf(HEAD_END);
          if (i < 0) {
            if (pending.length > MAX_HEAD) throw new Error('a message head longer than 1 MiB');
            return;
          }
          const text = pending.toString('latin1', 0, i);
          take(i + 4);
          const lines = text.split('\\r\\n');
          let length;
          let chunked = false;
          for (let k = 1; k < lines.length; k++) {
            const c = lines[k].indexOf(':');
            if (c < 0) continue;
            const name = lines[k].slice(0, c).trim().toLowerCase();
            if (name === 'content-length') length = Number(lines[k].slice(c + 1).trim());
            else if (name === 'transfer-encoding' && /chunked/i.test(lines[k].slice(c + 1))) chunked = true;
          }
          const body = onHead(lines[0], { length, chunked });
          if (body.chunked) state = 'size';
          else if (body.untilClose) state = 'close';
          else if (body.length > 0) {
            remaining = body.length;
            state = 'body';
          } else finish();
        } else if (state === 'body' || state === 'data') {
          if (pending.length === 0) return;
          const n = Math.min(remaining, pending.length);
          take(n);
          remaining -= n;
          if (remaining > 0) return;
          if (state === 'body') finish();
          else state = 'size';
        } else if (state === 'size' || state === 'trailer') {
          const i = pending.indexOf(LINE_END);
          if (i < 0) return;
          const line = pending.toString('latin1', 0, i);
          take(i + 2);
          if (state === 'trailer') {
            if (i === 0) finish();
          } else {
            const size = parseInt(line, 16);
            if (!(size >= 0)) throw new Error('a malformed chunk size');
            if (size === 0) state = 'trailer';
            else {
              remaining = size + 2;
              state = 'data';
            }
          }
        } else {
          // until the connection ends
          if (pending.length > 0) take(pending.length);
          return;
        }
      }
    },
    /** the connection ended: a message read until its end is complete */
    end() {
      if (state === 'close') finish();
    },
  };
}

const sockets = new Set();
const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
  const up = net.connect({ host: target.hostname, port: Number(target.port), allowHalfOpen: true, noDelay: true });
  sockets.add(client);
  sockets.add(up);
  const fail = () => {
    client.destroy();
    up.destroy();
  };
  // the requests sent and not yet answered, oldest first
  const asked = [];
  const requests = framer(
    (start, f) => {
      const [method, url] = start.split(' ');
      asked.push({ method, url });
      return f.chunked ? { chunked: true } : { length: f.length ?? 0 };
    },
    () => undefined,
  );
  // answers held for their delays, in order: each leaves no earlier than the one before it
  const held = [];
  let timer;
  let upEnded = false;
  const release = () => {
    timer = undefined;
    const now = performance.now();
    while (held.length > 0 && held[0].at <= now) client.write(held.shift().data);
    if (held.length > 0) timer = setTimeout(release, held[0].at - now);
    else if (upEnded) client.end();
  };
  let answering;
  const answers = framer(
    (start, f) => {
      const status = Number(start.split(' ')[1]);
      // an interim answer (100 Continue) goes at once, and the request still waits for its answer
      answering = status >= 100 && status < 200 ? { status, interim: true } : { status, request: asked.shift() ?? { method: 'GET', url: '/' } };
      if (answering.interim || answering.request.method === 'HEAD' || status === 204 || status === 304) return {};
      if (f.chunked) return { chunked: true };
      return f.length !== undefined ? { length: f.length } : { untilClose: true };
    },
    (parts) => {
      const data = parts.length === 1 ? parts[0] : Buffer.concat(parts);
      if (answering.interim) {
        client.write(data);
        return;
      }
      const d = delayOf(answering.request.method, answering.request.url, answering.status, routes, ms);
      const key = d.classes.join('+');
      counts[key] = (counts[key] ?? 0) + 1;
      const at = Math.max(performance.now() + d.ms, held.length > 0 ? held[held.length - 1].at : 0);
      held.push({ at, data });
      if (timer === undefined) timer = setTimeout(release, Math.max(0, held[0].at - performance.now()));
    },
  );
  client.on('data', (c) => {
    up.write(c);
    try {
      requests.feed(c);
    } catch {
      fail();
    }
  });
  up.on('data', (c) => {
    try {
      answers.feed(c);
    } catch {
      fail();
    }
  });
  client.on('end', () => up.end());
  up.on('end', () => {
    answers.end();
    upEnded = true;
    if (timer === undefined) release();
  });
  client.on('error', fail);
  up.on('error', fail);
  client.on('close', () => {
    sockets.delete(client);
    up.destroy();
  });
  up.on('close', () => sockets.delete(up));
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => {
  if (m !== 'close') return;
  for (const s of sockets) s.destroy();
  server.close(() => parentPort.postMessage({ closed: counts, activeMs: require('node:perf_hooks').performance.eventLoopUtilization().active }));
});
`;

export interface ProfileProxy {
  url: string;
  /** closes it; resolves to how many requests of each class (joined with +) it held */
  close(): Promise<Record<string, number>>;
  /** once closed: how long its thread was busy (ms of its event loop's active time), the CPU the distance cost here */
  busyMs?: number;
}

export async function profileProxy(upstream: string, profile: readonly LatencyClass[] = LATENCY_PROFILE): Promise<ProfileProxy> {
  const worker = new Worker(PROFILE_PROXY_SOURCE, { eval: true, workerData: { upstream, routes: PROFILE_ROUTES, ms: Object.fromEntries(profile.map((c) => [c.name, c.ms])) } });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (m: { port: number }) => resolve(m.port));
    worker.once('error', reject);
  });
  const proxy: ProfileProxy = {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      const closed = new Promise<Record<string, number>>((resolve) =>
        worker.once('message', (m: { closed?: Record<string, number>; activeMs?: number }) => {
          proxy.busyMs = m.activeMs;
          resolve(m.closed ?? {});
        }),
      );
      worker.postMessage('close');
      const counts = await Promise.race([closed, new Promise<Record<string, number>>((r) => setTimeout(() => r({}), 2000))]);
      await worker.terminate();
      return counts;
    },
  };
  return proxy;
}

/** What the critical path reads of a report's checks. */
export interface TimedCheck {
  id: string;
  properties?: Array<{ name?: string; numRuns: number; plannedRuns?: number }>;
  shares?: string[];
  reads?: string[];
  durationMs?: number;
  requests?: number;
  chain?: { ms: number; requests: number };
}

export interface CriticalPath {
  /** the longest chain of one check */
  check?: { id: string; ms: number; requests: number; wallMs?: number };
  /**
   * the longest chain over one resource of the target: the chains of the checks that hold it (they run one after
   * another) summed, and the longest chain of the checks that only read it (they run beside each other, never beside
   * a holder)
   */
  shared?: { resource: string; ms: number; requests: number; checks: number };
  /** the longer of the two */
  ms: number;
}

/**
 * The critical path of a run from its report: the longest chain of a check (requests each sent after the previous was
 * answered, their response times summed) and the longest sum of chains over the checks that hold one shared resource
 * (a lock on target state: they run one after another, whatever the concurrency), plus the longest chain of the checks
 * that only read it (beside each other, never beside a holder). No run at any concurrency can take less than the
 * longer of the two.
 */
export function criticalPathOf(checks: readonly TimedCheck[]): CriticalPath {
  let check: CriticalPath['check'];
  const byResource = new Map<string, { ms: number; requests: number; checks: number; reader?: { ms: number; requests: number } }>();
  const of = (r: string) => byResource.get(r) ?? byResource.set(r, { ms: 0, requests: 0, checks: 0 }).get(r)!;
  for (const c of checks) {
    if (c.chain === undefined) continue;
    if (check === undefined || c.chain.ms > check.ms) check = { id: c.id, ms: c.chain.ms, requests: c.chain.requests, ...(c.durationMs !== undefined ? { wallMs: c.durationMs } : {}) };
    for (const r of c.shares ?? []) {
      const s = of(r);
      s.ms += c.chain.ms;
      s.requests += c.chain.requests;
      s.checks++;
    }
    for (const r of (c.reads ?? []).filter((x) => !(c.shares ?? []).includes(x))) {
      const s = of(r);
      if (s.reader === undefined || c.chain.ms > s.reader.ms) s.reader = { ms: c.chain.ms, requests: c.chain.requests };
    }
  }
  let shared: CriticalPath['shared'];
  for (const [resource, s] of byResource) {
    const total = { ms: s.ms + (s.reader?.ms ?? 0), requests: s.requests + (s.reader?.requests ?? 0), checks: s.checks + (s.reader !== undefined ? 1 : 0) };
    if (shared === undefined || total.ms > shared.ms) shared = { resource, ...total };
  }
  return { ...(check !== undefined ? { check } : {}), ...(shared !== undefined ? { shared } : {}), ms: Math.max(check?.ms ?? 0, shared?.ms ?? 0) };
}

type Line = (label: string, value: string, goal?: string) => void;
type Fmt = (n: number, digits?: number) => string;

/** Prints a run's critical path and the ratio of its wall time to it. */
export function describeCriticalPath(wallMs: number, checks: readonly TimedCheck[], line: Line, fmt: Fmt, goal?: string): CriticalPath {
  const cp = criticalPathOf(checks);
  if (cp.check !== undefined) line('longest chain of a check', `${fmt(cp.check.ms / 1000, 2)} s, ${cp.check.requests} requests, ${cp.check.id}${cp.check.wallMs !== undefined ? ` (the check took ${fmt(cp.check.wallMs / 1000, 2)} s)` : ''}`);
  if (cp.shared !== undefined) line('longest chain over a lock', `${fmt(cp.shared.ms / 1000, 2)} s, ${cp.shared.requests} requests in ${cp.shared.checks} checks holding ${cp.shared.resource} one after another (a reader's counted once)`);
  line('critical path', `${fmt(cp.ms / 1000, 2)} s; wall / critical path = ${cp.ms > 0 ? fmt(wallMs / cp.ms, 2) : '-'}`, goal);
  const slow = [...checks].filter((c) => c.durationMs !== undefined).sort((a, b) => b.durationMs! - a.durationMs!).slice(0, 10);
  console.log('  slowest checks: wall, requests, longest chain');
  for (const c of slow) console.log(`    ${fmt(c.durationMs! / 1000, 2).padStart(6)} s ${String(c.requests ?? 0).padStart(5)} req  chain ${c.chain !== undefined ? `${fmt(c.chain.ms / 1000, 2)} s / ${c.chain.requests} req` : '-'}  ${c.id}${(c.shares ?? []).length > 0 ? ` [shares ${c.shares!.join(', ')}]` : ''}${(c.reads ?? []).length > 0 ? ` [reads ${c.reads!.join(', ')}]` : ''}`);
  return cp;
}

/** What profileBench needs of scripts/bench.ts. */
export interface ProfileBenchDeps {
  work: string;
  line: Line;
  fmt: Fmt;
  suiteRun(name: string, args: string[]): Promise<{ wallMs: number; rssMiB: number; exitCode: number | null; outcome: string; requests: number; checks: TimedCheck[]; windowMs?: number; firstRequestMs?: number }>;
  servedReference(name: string): Promise<{ server: { close(): Promise<void> }; targets: Record<string, { url: string }> }>;
  writeConfig(file: string, targets: Record<string, unknown>): void;
}

/** The suite against a served reference through profile proxies (one per origin); `args` go to the run. */
export async function profiledRun(d: ProfileBenchDeps, name: string, profile: readonly LatencyClass[], args: string[] = []) {
  const far = await d.servedReference(name);
  const origins = [...new Set(Object.values(far.targets).map((t) => new URL(t.url).origin))];
  const proxies = new Map<string, ProfileProxy>();
  const counts: Record<string, number> = {};
  try {
    for (const o of origins) proxies.set(o, await profileProxy(o, profile));
    const proxied = Object.fromEntries(Object.entries(far.targets).map(([api, t]) => {
      const u = new URL(t.url);
      return [api, { ...t, url: `${proxies.get(u.origin)!.url}${u.pathname}`.replace(/\/$/, '') }];
    }));
    const file = `${d.work}/${name}-profiled.yaml`;
    d.writeConfig(file, proxied);
    const run = await d.suiteRun(name, ['--config', file, '--no-html', ...args]);
    return { run, counts };
  } finally {
    for (const p of proxies.values()) for (const [k, n] of Object.entries(await p.close())) counts[k] = (counts[k] ?? 0) + n;
    await far.server.close();
  }
}

/**
 * The profile's figures: wall time, critical path and their ratio (goal: wall <= 1.25 x critical path, critical path
 * <= 30 s), --repeat N runs (medians); with `nightly`, one run at --runs 500 too: wall time and peak RSS.
 */
export async function profileBench(d: ProfileBenchDeps, o: { override?: string; repeat: number; nightly: boolean; nightlyRuns?: number }): Promise<void> {
  const profile = profileWith(o.override);
  d.line('profile (ms)', profile.map((c) => `${c.name} ${c.ms}`).join(', '));
  const runs: Array<{ wallMs: number; cp: number }> = [];
  for (let i = 0; i < o.repeat; i++) {
    const { run, counts } = await profiledRun(d, `profiled-${i}`, profile);
    d.line(`run ${i + 1}`, `${d.fmt(run.wallMs / 1000, 2)} s (${run.outcome}, exit ${run.exitCode}), ${d.fmt(run.requests)} requests, peak RSS ${d.fmt(run.rssMiB)} MiB`);
    if (i === 0) d.line('requests by class', Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', '));
    const cp = describeCriticalPath(run.wallMs, run.checks, d.line, d.fmt, 'wall <= 1.25 x critical path <= 30 s');
    // the process's wall time holds its start (modules, workers, the target's first answer) and its reports too: the
    // span of its requests says how well the requests themselves overlap
    if (run.windowMs !== undefined && cp.ms > 0) {
      d.line('first request to last answer', `${d.fmt(run.windowMs / 1000, 2)} s, ${d.fmt(run.windowMs / cp.ms, 2)} x critical path${run.firstRequestMs !== undefined ? ` (first request ${d.fmt(run.firstRequestMs / 1000, 2)} s after the spawn)` : ''}`);
    }
    runs.push({ wallMs: run.wallMs, cp: cp.ms });
  }
  if (o.repeat > 1) {
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
    d.line('median wall / critical path', `${d.fmt(median(runs.map((r) => r.wallMs)) / 1000, 2)} s / ${d.fmt(median(runs.map((r) => r.cp)) / 1000, 2)} s, ratio ${d.fmt(median(runs.map((r) => r.wallMs / r.cp)), 2)} (lower median of ${o.repeat})`);
  }
  if (o.nightly) {
    const n = o.nightlyRuns ?? 500;
    console.log(`nightly depth through the profile (--runs ${n}):`);
    const { run } = await profiledRun(d, 'nightly', profile, ['--runs', String(n)]);
    d.line('wall time', `${d.fmt(run.wallMs / 1000, 1)} s (${run.outcome}, exit ${run.exitCode}), ${d.fmt(run.requests)} requests`);
    d.line('peak RSS', `${d.fmt(run.rssMiB)} MiB`, '400 MB');
    // a property whose time budget (80% of run.checkTimeoutMs) ran out passes with the cases it ran: at nightly depth
    // that is depth lost, said here
    const cut = run.checks.flatMap((c) => (c.properties ?? []).filter((p) => p.plannedRuns !== undefined).map((p) => `${c.id}${p.name !== undefined ? ` (${p.name})` : ''} ${p.numRuns} of ${p.plannedRuns}`));
    d.line('properties cut by their time', cut.length === 0 ? 'none: every property ran all its cases' : `${cut.length}: ${cut.join(', ')}`);
    describeCriticalPath(run.wallMs, run.checks, d.line, d.fmt);
  }
}
