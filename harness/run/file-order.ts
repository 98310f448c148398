/**
 * Each suite file's time in the last complete run, and the order files start in. A conformance run loads
 * its files in one group per worker (harness/run-groups.ts), balanced by these times, with the files that lock shared
 * target state together. Runs that give vitest the files themselves (the self-test's) start them in the order below: a
 * worker thread runs such files one after another, so a file that takes long and starts late makes the run end late.
 * Files start longest first, as the previous complete run against the same targets measured them (the embedded
 * reference, where a file's time is CPU; a configured target, where it is mostly its chains of requests waiting for the
 * target), and a file that locks shared target state where the file holding it is expected to end (orderFiles).
 * Without such a run, vitest's own order.
 *
 * A file's time is its own, not the time it waited for other files: its checks that share target state run one after
 * another, each from its first request to its last answer (the wait for the lock before is another file's time); the
 * others run at once, the longest decides. Through the benchmark's latency profile the two files that share the
 * package-vetting state counted their waits for each other, started together first, and held two of the four workers
 * for most of the run; by their own time, the second one starts when the first one has ended.
 *
 * Kept in node_modules/.cache/canton-conformance/file-order/ after each complete run (not a shard, a selection of
 * requirements nor a read-only run): the embedded reference's, and per set of target URLs (orderFilesOf). The order
 * changes no verdict: each check's inputs come from the run seed and its id, and checks that share target state hold a
 * lock whatever runs beside them.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';
import type { Config } from '../config.js';
import type { CheckResultMeta } from '../types.js';
import { narrowed } from './selection.js';

const ORDER_DIR = join(PACKAGE_ROOT, 'node_modules', '.cache', 'canton-conformance', 'file-order');

/**
 * The cache files a run's order is read from, first found first: against configured targets, the last run against the
 * same URLs, then the last run against any target (a new target, or one whose port changes with every start, gets the
 * order of the last one rather than none); against the embedded reference, its own.
 */
export function orderFilesOf(config: Pick<Config, 'useReference' | 'targets'>): string[] {
  if (config.useReference) return ['reference.json'];
  const urls = Object.values(config.targets).map((t) => t?.url ?? '').sort().join('\n');
  return [`target-${createHash('sha256').update(urls).digest('hex').slice(0, 16)}.json`, 'target.json'];
}

const spanOf = (c: CheckResultMeta): number =>
  c.firstRequestAt !== undefined && c.lastResponseAt !== undefined ? Math.max(0, Date.parse(c.lastResponseAt) - Date.parse(c.firstRequestAt)) : 0;

/**
 * Each file's own time (ms) in a run: the sum of the active spans of its checks that share state, or the span of its
 * other checks together (from the first one's first request to the last one's last answer), whichever is longer.
 */
export function fileWeights(checks: readonly CheckResultMeta[]): Record<string, number> {
  const shared = new Map<string, number>();
  const others = new Map<string, { first: number; last: number }>();
  for (const c of checks) {
    if (c.file === undefined || c.firstRequestAt === undefined || c.lastResponseAt === undefined) continue;
    if ((c.shares ?? []).length > 0) {
      shared.set(c.file, (shared.get(c.file) ?? 0) + spanOf(c));
      continue;
    }
    const o = others.get(c.file) ?? { first: Infinity, last: -Infinity };
    o.first = Math.min(o.first, Date.parse(c.firstRequestAt));
    o.last = Math.max(o.last, Date.parse(c.lastResponseAt));
    others.set(c.file, o);
  }
  const out: Record<string, number> = {};
  for (const f of new Set([...shared.keys(), ...others.keys()])) {
    const o = others.get(f);
    out[f] = Math.round(Math.max(shared.get(f) ?? 0, o !== undefined ? o.last - o.first : 0));
  }
  return out;
}

/** What the order knows of a file from the last complete run against the same targets. */
export interface FileWeight {
  /** its own time (ms): fileWeights */
  ms: number;
  /**
   * the shared target state its checks lock (CheckDeclaration.shares, and reads: the order treats a reader like a
   * holder, so that it starts where a holder in another file ends), when any
   */
  shares?: string[];
}

/** Each file's own time and the shared state its checks lock, in a run (the order's input for the next run). */
export function fileProfiles(checks: readonly CheckResultMeta[]): Record<string, FileWeight> {
  const shares = new Map<string, Set<string>>();
  for (const c of checks) {
    const locked = [...(c.shares ?? []), ...(c.reads ?? [])];
    if (c.file === undefined || locked.length === 0) continue;
    const s = shares.get(c.file) ?? new Set<string>();
    for (const r of locked) s.add(r);
    shares.set(c.file, s);
  }
  return Object.fromEntries(Object.entries(fileWeights(checks)).map(([f, ms]) => [f, { ms, ...(shares.has(f) ? { shares: [...shares.get(f)!].sort() } : {}) }]));
}

export function loadFileWeights(config: Pick<Config, 'useReference' | 'targets'>): Record<string, FileWeight> | undefined {
  for (const file of orderFilesOf(config)) {
    const w = readWeights(file);
    if (w !== undefined) return w;
  }
  return undefined;
}

function readWeights(file: string): Record<string, FileWeight> | undefined {
  try {
    const w = JSON.parse(readFileSync(join(ORDER_DIR, file), 'utf8')) as unknown;
    if (typeof w !== 'object' || w === null) return undefined;
    const out: Record<string, FileWeight> = {};
    for (const [f, v] of Object.entries(w as Record<string, unknown>)) {
      // a number: the cache of an earlier version (times only)
      if (typeof v === 'number' && Number.isFinite(v)) out[f] = { ms: v };
      else if (typeof v === 'object' && v !== null && typeof (v as FileWeight).ms === 'number') {
        const shares = (v as FileWeight).shares;
        out[f] = { ms: (v as FileWeight).ms, ...(Array.isArray(shares) && shares.every((r) => typeof r === 'string') ? { shares } : {}) };
      }
    }
    return out;
  } catch {
    return undefined;
  }
}

/** Keeps a complete run's file times for the next run of its kind; never fails the run. */
export function saveFileWeights(config: Config, checks: readonly CheckResultMeta[]): void {
  // a selection's partial file times (--check, --operation, --exclude-requirement too) would misorder a whole run
  if (config.run.shard !== undefined || config.run.requirements.length > 0 || narrowed(config.run) || config.run.readOnly || config.internal !== undefined) return;
  try {
    const [own] = orderFilesOf(config);
    // a checks folder outside the package (run.checksDir) is not kept: its paths may change from run to run
    const weights = JSON.stringify({ ...(readWeights(own!) ?? {}), ...fileProfiles(checks.filter((c) => c.file?.startsWith('../') !== true)) });
    mkdirSync(ORDER_DIR, { recursive: true });
    // this target's own order, and (against a target) the order of the last run against any
    for (const name of orderFilesOf(config)) {
      const file = join(ORDER_DIR, name);
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, weights);
      renameSync(tmp, file);
    }
  } catch {
    // the order is a speed-up only
  }
}

/**
 * The order `files` start in, for `workers` workers that each take the next file when their last one ended (vitest's
 * pool). Files without a weight keep their place ahead of the weighed ones, in the order given (vitest's). The weighed
 * ones are placed by a simulation of the run with their last times: each time a worker is free, it takes the longest
 * file left whose shared state no running file locks; when every file left waits for such state, the one whose state
 * frees first. A file whose checks wait for another file's lock holds its worker while it waits, doing nothing: through
 * the latency profile the second of the two files that share the package-vetting state, started fifth by length alone,
 * waited 5 s for the first in one of the four workers. Placed where that state frees, the worker runs other files
 * meanwhile. With one worker, or no shared state, this is longest first.
 */
export function orderFiles<T>(files: readonly T[], pathOf: (f: T) => string, weights: Record<string, FileWeight>, workers = 1): T[] {
  const unknown = files.filter((f) => weights[pathOf(f)] === undefined);
  const left = files.filter((f) => weights[pathOf(f)] !== undefined).sort((a, b) => weights[pathOf(b)]!.ms - weights[pathOf(a)]!.ms);
  const free = Array.from({ length: Math.max(1, workers) }, () => 0);
  /** per shared state, when the file that locks it is expected to end */
  const lockedUntil = new Map<string, number>();
  const readyAt = (f: T) => Math.max(0, ...(weights[pathOf(f)]!.shares ?? []).map((r) => lockedUntil.get(r) ?? 0));
  const out: T[] = [];
  while (left.length > 0) {
    const w = free.indexOf(Math.min(...free));
    const now = free[w]!;
    let i = left.findIndex((f) => readyAt(f) <= now);
    if (i < 0) i = left.reduce((best, f, j) => (readyAt(f) < readyAt(left[best]!) ? j : best), 0);
    const [f] = left.splice(i, 1) as [T];
    const end = Math.max(now, readyAt(f)) + weights[pathOf(f)]!.ms;
    for (const r of weights[pathOf(f)]!.shares ?? []) lockedUntil.set(r, end);
    free[w] = end;
    out.push(f);
  }
  return [...unknown, ...out];
}
